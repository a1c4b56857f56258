//go:build !race

package resolve_test

const raceOn = false
