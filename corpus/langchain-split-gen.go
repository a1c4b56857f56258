//go:build ignore

// langchain-split-gen writes the generated Markdown corpus that
// langchain-split-bench.sh ingests and splits:
//
//	go run corpus/langchain-split-gen.go DIR [MB]
//
// MB (default 30) is the corpus size in millions of bytes; seed 1.
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/evidence-rag/evidence/corpus"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run corpus/langchain-split-gen.go DIR [MB]")
		os.Exit(2)
	}
	mb := 30
	if len(os.Args) > 2 {
		n, err := strconv.Atoi(os.Args[2])
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "MB %q: want a positive number\n", os.Args[2])
			os.Exit(2)
		}
		mb = n
	}
	paths, err := corpus.WriteMarkdownCorpus(os.Args[1], mb*1_000_000, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d files in %s\n", len(paths), os.Args[1])
}
