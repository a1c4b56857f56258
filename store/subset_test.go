package store

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestParseSubset(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // String() of the result, "" for an error
	}{
		{"1/3", "1/3"}, {"3/3", "3/3"}, {"1/1", "1/1"}, {"25%", "25%"}, {"100%", "100%"}, {"0.5%", "0.5%"},
		{"0/3", ""}, {"4/3", ""}, {"1/0", ""}, {"0%", ""}, {"101%", ""}, {"NaN%", ""}, {"-5%", ""}, {"half", ""}, {"", ""}, {"1/", ""},
	} {
		s, err := ParseSubset(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseSubset(%q) = %v, want an error", tt.in, s)
		case tt.want != "" && (err != nil || s.String() != tt.want):
			t.Errorf("ParseSubset(%q) = %v, %v, want %s", tt.in, s, err, tt.want)
		}
	}
}

// TestSubsetPick: the groups 1/T to T/T partition the versions; a share
// picks that many at random, at least one.
func TestSubsetPick(t *testing.T) {
	var vs []*Version
	for i := range 40 {
		vs = append(vs, &Version{ID: fmt.Sprintf("%032x", uint64(i)*0x9e3779b97f4a7c15)})
	}
	seen := map[string]int{}
	for n := 1; n <= 3; n++ {
		for id := range (&Subset{N: n, T: 3}).pick(vs) {
			seen[id]++
		}
	}
	for _, v := range vs {
		if seen[v.ID] != 1 {
			t.Errorf("version %s in %d of the groups 1/3, 2/3, 3/3, want 1", v.ID, seen[v.ID])
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		p    float64
		want int
	}{{10, 4}, {1, 1}, {100, 40}, {33, 14}} {
		if got := len((&Subset{Percent: tt.p, Rand: r}).pick(vs)); got != tt.want {
			t.Errorf("%v%% of 40: %d versions, want %d", tt.p, got, tt.want)
		}
	}
	if got := len((*Subset)(nil).pick(vs)); got != 40 {
		t.Errorf("no subset: %d versions, want all 40", got)
	}
}
