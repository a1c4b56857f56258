//go:build race

package resolve_test

// raceOn: this test binary was built with -race, which turns on checkptr.
const raceOn = true
