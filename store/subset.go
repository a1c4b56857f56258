package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Subset selects the versions whose data an audit reads, like restic
// check --read-data-subset: on a large store, each run reads a part, and
// a series of runs covers it all. Either N of T (1 <= N <= T): the
// versions in group N of T, a group fixed by the version id, so that the
// runs 1/T to T/T read every version once; or Percent: that share of the
// versions, drawn at random on each run (at least one version).
type Subset struct {
	N, T    int
	Percent float64
	// Rand draws the random share; nil draws from a source seeded at
	// random.
	Rand *rand.Rand
}

// ParseSubset parses "N/T" or "P%" (0 < P <= 100).
func ParseSubset(s string) (*Subset, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || !(f > 0 && f <= 100) || math.IsNaN(f) {
			return nil, fmt.Errorf("store: subset %q: want a percentage above 0 and at most 100", s)
		}
		return &Subset{Percent: f}, nil
	}
	n, t, ok := strings.Cut(s, "/")
	ni, err1 := strconv.Atoi(n)
	ti, err2 := strconv.Atoi(t)
	if !ok || err1 != nil || err2 != nil || ti < 1 || ni < 1 || ni > ti {
		return nil, fmt.Errorf("store: subset %q: want N/T (1 <= N <= T) or P%% (0 < P <= 100)", s)
	}
	return &Subset{N: ni, T: ti}, nil
}

// String returns the subset as ParseSubset reads it.
func (s *Subset) String() string {
	if s.T > 0 {
		return fmt.Sprintf("%d/%d", s.N, s.T)
	}
	return strconv.FormatFloat(s.Percent, 'f', -1, 64) + "%"
}

// Group returns the group (1 to t) of a version id among t: the id's
// first 64 bits, modulo t.
func Group(versionID string, t int) int {
	u, _ := strconv.ParseUint(versionID[:min(16, len(versionID))], 16, 64)
	return int(u%uint64(t)) + 1
}

// pick returns the ids of the versions selected; a nil subset selects all.
func (s *Subset) pick(vs []*Version) map[string]bool {
	out := make(map[string]bool, len(vs))
	switch {
	case s == nil:
		for _, v := range vs {
			out[v.ID] = true
		}
	case s.T > 0:
		for _, v := range vs {
			if Group(v.ID, s.T) == s.N {
				out[v.ID] = true
			}
		}
	default:
		k := min(len(vs), int(math.Ceil(float64(len(vs))*s.Percent/100)))
		r := s.Rand
		if r == nil {
			r = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		}
		for _, i := range r.Perm(len(vs))[:k] {
			out[vs[i].ID] = true
		}
	}
	return out
}
