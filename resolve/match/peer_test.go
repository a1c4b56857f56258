package match

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
	"unicode/utf8"
)

// The side-by-side comparison with npm approx-string-match, the matcher of
// the Hypothesis annotation client (corpus/approx-peer.mjs):
//
//	go test ./resolve/match -run TestWritePeerInputs -peer-out=/tmp/peer.json
//	cd corpus && npm install --no-save approx-string-match && node approx-peer.mjs /tmp/peer.json
//
// The test writes the planted cases, and this package's own medians on them,
// to the file; the harness runs the peer on the same texts and quotes with
// the same error bound and prints both.

var peerOut = flag.String("peer-out", "", "write the peer-comparison inputs and our timings to this JSON file")

// peerFile is the JSON the harness reads.
type peerFile struct {
	Note  string            `json:"note"`
	Texts map[string]string `json:"texts"`
	Cases []peerCase        `json:"cases"`
	Ours  []peerGroup       `json:"ours"`
}

type peerCase struct {
	Group string `json:"group"`
	Text  string `json:"text"` // key into Texts
	Quote string `json:"quote"`
	// Start and End are the planted span, in code points (= UTF-16 code
	// units: the texts hold no character outside the BMP).
	Start int `json:"start"`
	End   int `json:"end"`
	// MaxErrors is the fuzzy bound Find uses by default for this quote; the
	// harness gives the peer the same.
	MaxErrors int `json:"max_errors"`
}

type peerGroup struct {
	Group  string  `json:"group"`
	Size   int     `json:"size"` // text length, code points
	Cases  int     `json:"cases"`
	Found  int     `json:"found"`   // found alone, at the planted span ±2
	WarmMS float64 `json:"warm_ms"` // median over cases of the median Find on a built Index
	ColdMS float64 `json:"cold_ms"` // the same with NewIndex (folding the text) included
	// ColdCPUMS is the process's CPU time per cold search, the mean over
	// all cases and repetitions: what the search costs on a shared
	// machine, where the wall-clock medians also count waits for a core.
	ColdCPUMS float64 `json:"cold_cpu_ms"`
}

func TestWritePeerInputs(t *testing.T) {
	if *peerOut == "" {
		t.Skip("set -peer-out=FILE to write the peer-comparison inputs")
	}
	groups := []struct {
		name        string
		size, count int
	}{
		{"2k", 2000, 20},
		{"221k", 221000, 20},
		{"growth-20k", 20000, 5},
		{"growth-200k", 200000, 5},
		{"growth-2M", 2000000, 5},
	}
	out := peerFile{
		Note:  "200-code-point quotes with 5 OCR-style errors planted in generated text; see resolve/match/peer_test.go",
		Texts: map[string]string{},
	}
	for _, g := range groups {
		cases := ocrCases(g.size, g.count)
		pg := peerGroup{Group: g.name, Size: g.size, Cases: len(cases)}
		var warm, cold []float64
		var cpu time.Duration
		runs := 0
		for i, c := range cases {
			key := fmt.Sprintf("%s-%d", g.name, i)
			if i > 0 && c.text == cases[0].text {
				key = fmt.Sprintf("%s-0", g.name)
			} else {
				out.Texts[key] = c.text
			}
			out.Cases = append(out.Cases, peerCase{Group: g.name, Text: key, Quote: c.quote, Start: c.start, End: c.end,
				MaxErrors: min(utf8.RuneCountInString(Fold(c.quote, LevelNormalized))/8, maxDefaultDistance)})

			ix := NewIndex(c.text)
			m := ix.Find(c.quote, noHint)
			if m.Level == LevelFuzzy && m.Count == 1 && abs(m.Start-c.start) <= 2 && abs(m.End-c.end) <= 2 {
				pg.Found++
			}
			reps := max(3, min(200, 2000000/g.size))
			warm = append(warm, medianMS(reps, func() { ix.Find(c.quote, noHint) }))
			cold = append(cold, medianMS(max(3, reps/4), func() { NewIndex(c.text).Find(c.quote, noHint) }))
			c0 := cpuTime()
			for range max(3, reps/4) {
				NewIndex(c.text).Find(c.quote, noHint)
				runs++
			}
			cpu += cpuTime() - c0
		}
		pg.WarmMS, pg.ColdMS = median(warm), median(cold)
		pg.ColdCPUMS = float64(cpu.Nanoseconds()) / 1e6 / float64(runs)
		out.Ours = append(out.Ours, pg)
		t.Logf("%-12s found %d/%d  warm %.4f ms  cold %.4f ms  cold CPU %.4f ms", g.name, pg.Found, pg.Cases, pg.WarmMS, pg.ColdMS, pg.ColdCPUMS)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*peerOut, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// medianMS runs f reps times and returns the median duration in ms.
func medianMS(reps int, f func()) float64 {
	f() // warm caches and pools
	ts := make([]float64, reps)
	for i := range ts {
		t0 := time.Now()
		f()
		ts[i] = float64(time.Since(t0).Nanoseconds()) / 1e6
	}
	return median(ts)
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
