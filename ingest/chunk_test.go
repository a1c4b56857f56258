package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store"
	"github.com/google/go-cmp/cmp"
)

// checkSpans reports every broken invariant of Chunk's output for text:
// spans in range and ordered, Start and End strictly increasing, at most Size
// code points, no whitespace at either end, and every non-whitespace code
// point inside some span.
func checkSpans(t testing.TB, text string, opts ChunkOptions, spans []Span) {
	t.Helper()
	rs := []rune(text)
	size := opts.normalized().Size
	covered := 0 // code points [0, covered) are checked
	for i, sp := range spans {
		if sp.Start < 0 || sp.End > len(rs) || sp.Start >= sp.End {
			t.Fatalf("span %d: got %v, want 0 <= Start < End <= %d", i, sp, len(rs))
		}
		if i > 0 && (sp.Start <= spans[i-1].Start || sp.End <= spans[i-1].End) {
			t.Fatalf("span %d: got %v after %v, want Start and End strictly increasing", i, sp, spans[i-1])
		}
		if n := sp.End - sp.Start; n > size {
			t.Fatalf("span %d: got %d code points, want at most %d", i, n, size)
		}
		if isSpaceRune(rs[sp.Start]) || isSpaceRune(rs[sp.End-1]) {
			t.Fatalf("span %d %v: got %q, want no whitespace at either end", i, sp, string(rs[sp.Start:sp.End]))
		}
		for j := covered; j < sp.Start; j++ {
			if !isSpaceRune(rs[j]) {
				t.Fatalf("code point %d %q: got it outside every span, want it covered", j, rs[j])
			}
		}
		covered = max(covered, sp.End)
	}
	for j := covered; j < len(rs); j++ {
		if !isSpaceRune(rs[j]) {
			t.Fatalf("code point %d %q: got it outside every span, want it covered", j, rs[j])
		}
	}
}

func isSpaceRune(r rune) bool { return r < utf8.RuneSelf && isSpace(byte(r)) }

// refChunk is Chunk written the obvious way, on []rune, straight from its
// doc comment: slow, but easy to check by eye. Tests compare the two.
func refChunk(text string, layout *store.Layout, opts ChunkOptions) []Span {
	rs := []rune(text)
	opts = opts.normalized()
	size, overlap := opts.Size, opts.Overlap
	sp := func(i int) bool { return i >= 0 && i < len(rs) && isSpaceRune(rs[i]) }
	brk := map[int]bool{}
	if layout != nil {
		for _, p := range layout.PageStarts {
			brk[p] = true
		}
		for _, s := range layout.Sections {
			brk[s.Start] = true
		}
	}
	end := len(rs)
	for end > 0 && sp(end-1) {
		end--
	}
	if end == 0 {
		return nil
	}
	s := 0
	for sp(s) {
		s++
	}
	term := func(r rune) bool { return r == '.' || r == '!' || r == '?' }
	class := func(p int) int {
		prev := rs[p-1]
		switch {
		case brk[p] || prev == '\f':
			return cutSection
		case prev == '\n' && func() bool {
			for j := p - 2; j >= s; j-- {
				switch rs[j] {
				case '\n':
					return true
				case ' ', '\t', '\r', '\f':
					continue
				}
				return false
			}
			return false
		}():
			return cutParagraph
		case (term(prev) || strings.ContainsRune(`"')]`, prev) && p-2 >= s && term(rs[p-2])) && sp(p),
			prev == '。' || prev == '！' || prev == '？':
			return cutSentence
		case sp(p) || sp(p-1):
			return cutWord
		}
		return cutNone
	}
	var out []Span
	prevEnd := -1
	for {
		e, last, best := len(rs), true, cutNone
		if size < len(rs)-s {
			last = false
			e = s + size
			for p := s + size - size/2; p <= s+size; p++ {
				if k := class(p); k != cutNone && k >= best {
					best, e = k, p
				}
			}
		}
		te := e
		for sp(te - 1) {
			te--
		}
		if te > prevEnd {
			out = append(out, Span{s, te})
			prevEnd = te
		}
		if last || te >= end {
			return out
		}
		c := max(e-overlap, s+1)
		if best == cutSection {
			c = e
		}
		if c < len(rs) && !sp(c) && !sp(c-1) {
			w := c
			for w < e && !sp(w) {
				w++
			}
			if w == len(rs) || sp(w) {
				c = w
			}
		}
		for sp(c) {
			c++
		}
		s = c
	}
}

// spanTexts returns the text of each span, for readable failures.
func spanTexts(text string, spans []Span) []string {
	if len(spans) == 0 {
		return nil
	}
	rs := []rune(text)
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = string(rs[s.Start:s.End])
	}
	return out
}

func TestChunkSmall(t *testing.T) {
	tests := []struct {
		name string
		text string
		opts ChunkOptions
		want []string
	}{
		{"empty", "", ChunkOptions{}, nil},
		{"whitespace only", " \n\t\f\r \n\n ", ChunkOptions{Size: 4}, nil},
		{"shorter than size", "  hello world \n", ChunkOptions{Size: 100, Overlap: 10}, []string{"hello world"}},
		{"exactly size", "abcdefghij", ChunkOptions{Size: 10, Overlap: 2}, []string{"abcdefghij"}},
		{"default options", strings.Repeat("word ", 10), ChunkOptions{}, []string{strings.TrimSpace(strings.Repeat("word ", 10))}},
		{
			// No whitespace at all: hard cuts at Size, starts Overlap back.
			"huge single word", strings.Repeat("x", 25), ChunkOptions{Size: 10, Overlap: 2},
			[]string{strings.Repeat("x", 10), strings.Repeat("x", 10), strings.Repeat("x", 9)},
		},
		{
			"overlap 0", "aaa bbb ccc ddd eee fff", ChunkOptions{Size: 8, Overlap: 0},
			[]string{"aaa bbb", "ccc ddd", "eee fff"},
		},
		{
			// The start moves back by the overlap, then forward to a word start.
			"overlap moves to a word start", "aaa bbb ccc ddd eee fff", ChunkOptions{Size: 12, Overlap: 5},
			[]string{"aaa bbb ccc", "ccc ddd eee", "eee fff"},
		},
		{
			// A cut at a page or section break is not overlapped.
			"no overlap across a page break", "aaa bbb ccc\fddd eee fff", ChunkOptions{Size: 16, Overlap: 4},
			[]string{"aaa bbb ccc", "ddd eee fff"},
		},
		{
			"size 1", "ab c", ChunkOptions{Size: 1, Overlap: 5},
			[]string{"a", "b", "c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans := Chunk(tt.text, nil, tt.opts)
			checkSpans(t, tt.text, tt.opts, spans)
			if diff := cmp.Diff(tt.want, spanTexts(tt.text, spans)); diff != "" {
				t.Errorf("chunk texts (-want +got):\n%s\nspans %v", diff, spans)
			}
		})
	}
}

// TestChunkBoundaryPreference puts boundaries of several classes in the last
// half of the first window and checks which one ends the first chunk.
func TestChunkBoundaryPreference(t *testing.T) {
	// 30 code points of filler words, then the material under test; the window
	// is 60 code points, so its last half starts at 30.
	head := "aaaa bbbb cccc dddd eeee ffff " // 30 code points
	tests := []struct {
		name    string
		tail    string
		section int // code-point offset of a section start in tail, or -1
		want    string
	}{
		{
			"section beats later paragraph", "gg. hh\n\nii jj. kk ll mm nn oo pp qq rr ss tt", 2,
			"aaaa bbbb cccc dddd eeee ffff gg",
		},
		{
			"paragraph beats later sentence", "gg hh\n\nii jj. kk ll mm nn oo pp qq rr ss tt", -1,
			"aaaa bbbb cccc dddd eeee ffff gg hh",
		},
		{
			"blank line with spaces is a paragraph break", "gg hh\n  \t\nii jj. kk ll mm nn oo pp qq rr ss", -1,
			"aaaa bbbb cccc dddd eeee ffff gg hh",
		},
		{
			"sentence beats later word", "gg hh. ii jj kk ll mm nn oo pp qq rr ss tt", -1,
			"aaaa bbbb cccc dddd eeee ffff gg hh.",
		},
		{
			"latest sentence wins", "g! hh? ii. jj kk ll mm nn oo pp qq rr ss tt", -1,
			"aaaa bbbb cccc dddd eeee ffff g! hh? ii.",
		},
		{
			"sentence end with closing quote", `gg "hh." ii jj kk ll mm nn oo pp qq rr ss tt`, -1,
			`aaaa bbbb cccc dddd eeee ffff gg "hh."`,
		},
		{
			"period inside a figure is not a sentence end", "gg 3.25x hh ii jj kk ll mm nn oo pp qq rr ss", -1,
			"aaaa bbbb cccc dddd eeee ffff gg 3.25x hh ii jj kk ll mm nn",
		},
		{
			"single newline is only a word boundary", "gg hh\nii jj kk ll mm nn oo pp qq rr ss tt uu", -1,
			"aaaa bbbb cccc dddd eeee ffff gg hh\nii jj kk ll mm nn oo pp",
		},
		{
			"form feed is a page break", "gg\fhh ii. jj kk ll mm nn oo pp qq rr ss tt", -1,
			"aaaa bbbb cccc dddd eeee ffff gg",
		},
		{
			"word beats hard cut", "gg hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh", -1,
			"aaaa bbbb cccc dddd eeee ffff gg",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := head + tt.tail
			var layout *store.Layout
			if tt.section >= 0 {
				layout = &store.Layout{PageStarts: []int{0}, Sections: []store.Section{{Start: 30 + tt.section, End: len(text), Path: []string{"S"}}}}
			}
			opts := ChunkOptions{Size: 60, Overlap: 5}
			spans := Chunk(text, layout, opts)
			checkSpans(t, text, opts, spans)
			if got := spanTexts(text, spans)[0]; got != tt.want {
				t.Errorf("first chunk: got %q, want %q", got, tt.want)
			}
			if diff := cmp.Diff(refChunk(text, layout, opts), spans); diff != "" {
				t.Errorf("Chunk and refChunk differ (-ref +got):\n%s", diff)
			}
		})
	}

	// Boundaries in the first half of the window do not count: a paragraph
	// break at 10 loses to a word boundary near the end.
	text := "aaaa bbbb\n\ncccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll"
	spans := Chunk(text, nil, ChunkOptions{Size: 40, Overlap: 0})
	if got, want := spanTexts(text, spans)[0], "aaaa bbbb\n\ncccc dddd eeee ffff gggg hhhh"; got != want {
		t.Errorf("first chunk: got %q, want %q", got, want)
	}
	// No boundary at all in the last half: a hard cut at Size.
	text = "aa " + strings.Repeat("b", 50)
	spans = Chunk(text, nil, ChunkOptions{Size: 20, Overlap: 0})
	if got, want := spans[0], (Span{0, 20}); got != want {
		t.Errorf("hard cut: got %v, want %v", got, want)
	}
}

func TestChunkMultiByte(t *testing.T) {
	tests := []struct {
		name string
		text string
		opts ChunkOptions
		want []Span
	}{
		{
			// é is one code point (two bytes): offsets count it once.
			"accents", "café naïve résumé façade", ChunkOptions{Size: 12, Overlap: 0},
			[]Span{{0, 10}, {11, 17}, {18, 24}},
		},
		{
			// CJK sentence ends need no following space.
			"cjk", "中文句子一。中文句子二。中文句子三。", ChunkOptions{Size: 8, Overlap: 0},
			[]Span{{0, 6}, {6, 12}, {12, 18}},
		},
		{
			// Emoji outside the BMP are one code point (four bytes, two UTF-16 units).
			"emoji", "👍👍👍 👍👍👍 👍👍👍", ChunkOptions{Size: 8, Overlap: 0},
			[]Span{{0, 7}, {8, 11}},
		},
		{
			"emoji hard cut with overlap", strings.Repeat("😀", 10), ChunkOptions{Size: 4, Overlap: 1},
			[]Span{{0, 4}, {3, 7}, {6, 10}},
		},
		{
			"mixed", "Zürich: 14 calendar days. 東京: EUR 75 per day.", ChunkOptions{Size: 30, Overlap: 4},
			[]Span{{0, 25}, {26, 45}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunk(tt.text, nil, tt.opts)
			checkSpans(t, tt.text, tt.opts, got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("spans (-want +got):\n%s\ntexts %q", diff, spanTexts(tt.text, got))
			}
			if diff := cmp.Diff(refChunk(tt.text, nil, tt.opts), got); diff != "" {
				t.Errorf("Chunk and refChunk differ (-ref +got):\n%s", diff)
			}
		})
	}
}

func TestChunkOptionsNormalized(t *testing.T) {
	tests := []struct{ in, want ChunkOptions }{
		{ChunkOptions{}, DefaultChunkOptions},
		{ChunkOptions{Size: -5, Overlap: 3}, DefaultChunkOptions},
		{ChunkOptions{Size: 100, Overlap: -1}, ChunkOptions{100, 0}},
		{ChunkOptions{Size: 100, Overlap: 49}, ChunkOptions{100, 49}},
		{ChunkOptions{Size: 100, Overlap: 50}, ChunkOptions{100, 49}},
		{ChunkOptions{Size: 100, Overlap: 1000}, ChunkOptions{100, 49}},
		{ChunkOptions{Size: 1, Overlap: 1}, ChunkOptions{1, 0}},
		{ChunkOptions{Size: 3, Overlap: 1}, ChunkOptions{3, 1}},
	}
	for _, tt := range tests {
		if got := tt.in.normalized(); got != tt.want {
			t.Errorf("%+v.normalized(): got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestChunkOverlap checks that consecutive chunks of running prose share
// about Overlap code points: at most Overlap, and less only by the part of
// a word the next chunk skips to start on a word boundary.
func TestChunkOverlap(t *testing.T) {
	text := string(corpus.Markdown(5, 50_000))
	const longestWord = 40 // generous: URLs and table rows aside, words are short
	for _, opts := range []ChunkOptions{{200, 40}, {500, 100}, {1000, 0}} {
		spans := Chunk(text, nil, opts)
		checkSpans(t, text, opts, spans)
		for i := 1; i < len(spans); i++ {
			shared := spans[i-1].End - spans[i].Start
			if shared > opts.Overlap || shared < opts.Overlap-longestWord && opts.Overlap > 0 {
				t.Errorf("%+v: spans %v and %v share %d code points, want about %d",
					opts, spans[i-1], spans[i], shared, opts.Overlap)
			}
		}
	}
}

// headingLayout returns a layout with a section at every ATX heading line of
// a Markdown text, skipping fenced code: good enough for tests and
// benchmarks, not a Markdown parser.
func headingLayout(text string) *store.Layout {
	l := &store.Layout{PageStarts: []int{0}}
	cp, fenced := 0, false
	for line := range strings.Lines(text) {
		switch {
		case strings.HasPrefix(line, "```"):
			fenced = !fenced
		case !fenced && strings.HasPrefix(line, "#"):
			if len(l.Sections) > 0 {
				l.Sections[len(l.Sections)-1].End = cp
			}
			l.Sections = append(l.Sections, store.Section{Start: cp, Path: []string{strings.TrimSpace(line)}})
		}
		cp += utf8.RuneCountInString(line)
	}
	if len(l.Sections) > 0 {
		l.Sections[len(l.Sections)-1].End = cp
	}
	return l
}

func TestChunkSectionsStartChunks(t *testing.T) {
	text := string(corpus.Markdown(11, 100_000))
	layout := headingLayout(text)
	opts := ChunkOptions{Size: 800, Overlap: 80}
	spans := Chunk(text, layout, opts)
	checkSpans(t, text, opts, spans)
	if diff := cmp.Diff(refChunk(text, layout, opts), spans); diff != "" {
		t.Fatalf("Chunk and refChunk differ (-ref +got):\n%s", diff)
	}
	// A chunk ends right before a heading whenever one lies in the last half
	// of its window, and the next starts there, so many chunks start with '#'.
	starts := 0
	for _, s := range spanTexts(text, spans) {
		if strings.HasPrefix(s, "#") {
			starts++
		}
	}
	if starts < len(spans)/4 {
		t.Errorf("got %d of %d chunks starting at a heading, want at least a quarter", starts, len(spans))
	}
}

func TestChunkDeterministic(t *testing.T) {
	text := string(corpus.Markdown(2, 200_000))
	layout := headingLayout(text)
	a := Chunk(text, layout, DefaultChunkOptions)
	b := Chunk(text, layout, DefaultChunkOptions)
	if !slices.Equal(a, b) {
		t.Error("two runs gave different spans")
	}
}

// TestChunkCorpora chunks real documents: the sample corpus, generated
// Markdown, and the shared corpus when present.
func TestChunkCorpora(t *testing.T) {
	texts := map[string]string{}
	for seed := range uint64(3) {
		texts[fmt.Sprintf("generated-%d", seed)] = string(corpus.Markdown(seed, 30_000))
	}
	dirs := []string{}
	if dir, err := corpus.SampleDir(); err == nil {
		dirs = append(dirs, dir)
	}
	if dir, ok := corpus.Shared("text"); ok {
		dirs = append(dirs, dir)
	} else {
		t.Logf("shared corpus not present at %s: skipping it", dir)
	}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if strings.HasSuffix(f, ".tsv") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts[filepath.Base(f)] = string(b)
		}
	}
	if len(texts) < 7 {
		t.Fatalf("got %d texts, want the sample corpus too", len(texts))
	}
	for name, text := range texts {
		for _, opts := range []ChunkOptions{DefaultChunkOptions, {Size: 300, Overlap: 60}, {Size: 64, Overlap: 0}} {
			spans := Chunk(text, headingLayout(text), opts)
			checkSpans(t, text, opts, spans)
			if len(text) < 100_000 { // the reference is slow
				if diff := cmp.Diff(refChunk(text, headingLayout(text), opts), spans); diff != "" {
					t.Errorf("%s %+v: Chunk and refChunk differ (-ref +got):\n%s", name, opts, diff)
				}
			}
		}
	}
}

func BenchmarkChunk(b *testing.B) {
	text := string(corpus.Markdown(1, 1<<20))
	for _, bb := range []struct {
		name   string
		layout *store.Layout
	}{{"nolayout", nil}, {"sections", headingLayout(text)}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Chunk(text, bb.layout, DefaultChunkOptions)
			}
		})
	}
}
