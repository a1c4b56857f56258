package main

import "strconv"

// plural returns n and the noun, in the plural unless n is 1: "1 page",
// "3 pages", "0 chunks". Every count printed for people goes through it.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// allOf returns "the file" for one, "all 3 files" for more.
func allOf(n int, noun string) string {
	if n == 1 {
		return "the " + noun
	}
	return "all " + plural(n, noun)
}
