package ingest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store"
)

// fuzzLayout derives a layout from text so that the fuzzer also drives the
// break points: a section at every line that starts with '#', a page after
// every form feed, in code points.
func fuzzLayout(text string) *store.Layout {
	l := &store.Layout{PageStarts: []int{0}}
	cp, lineStart := 0, true
	for _, r := range text {
		if lineStart && r == '#' {
			l.Sections = append(l.Sections, store.Section{Start: cp, End: cp, Path: []string{"#"}})
		}
		cp++
		lineStart = r == '\n'
		if r == '\f' {
			l.PageStarts = append(l.PageStarts, cp)
		}
	}
	return l
}

func FuzzChunk(f *testing.F) {
	f.Add("", 10, 2)
	f.Add(" \n\t\f\r ", 3, 1)
	f.Add("café naïve résumé. 中文句子。😀😀 end", 7, 2)
	f.Add("# T\n\nPara one. Para two!\n\n## S\n\n- item\n- item\f page two", 12, 3)
	f.Add(strings.Repeat("x", 40), 9, 4)
	f.Add("a\xffb\xe4\xb8 c\xc3\xa9\xa9 d", 3, 1)
	// Seeds stay short: the fuzzer minimizes each new interesting input with
	// a number of runs quadratic in its length, for up to a minute, and a
	// long one stalls a short fuzzing session.
	const seedLen = 300
	f.Add(string(corpus.Markdown(1, seedLen)[:seedLen]), 60, 10)
	if dir, err := corpus.SampleDir(); err == nil {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b[:min(len(b), seedLen)]), 50, 10)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string, size, overlap int) {
		// Small windows exercise the most boundaries; keep some large ones.
		if size > 1<<12 {
			size %= 1 << 12
		}
		opts := ChunkOptions{Size: size, Overlap: overlap}
		for _, layout := range []*store.Layout{nil, fuzzLayout(text)} {
			spans := Chunk(text, layout, opts)
			checkSpans(t, text, opts, spans)
			if again := Chunk(text, layout, opts); !slices.Equal(spans, again) {
				t.Fatalf("second run: got %v, want %v", again, spans)
			}
			if len(text) <= 4096 { // the reference is quadratic
				if want := refChunk(text, layout, opts); !slices.Equal(spans, want) {
					t.Fatalf("got %v, want %v (refChunk)", spans, want)
				}
			}
		}
	})
}
