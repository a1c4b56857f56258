package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMarkdownDeterministic(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42} {
		a, b := Markdown(seed, 20_000), Markdown(seed, 20_000)
		if !bytes.Equal(a, b) {
			t.Errorf("seed %d: two calls gave different documents", seed)
		}
	}
	if bytes.Equal(Markdown(1, 20_000), Markdown(2, 20_000)) {
		t.Error("seeds 1 and 2 gave the same document, want different ones")
	}
}

func TestMarkdownSize(t *testing.T) {
	for _, size := range []int{1, 1_000, 10_000, 100_000, 1 << 20} {
		got := len(Markdown(7, size))
		// At least size, overshooting by at most one block.
		if got < size || got > size+4096 {
			t.Errorf("Markdown(7, %d): got %d bytes, want %d to %d", size, got, size, size+4096)
		}
	}
}

var (
	atxRE    = regexp.MustCompile(`(?m)^(#{1,6}) \S`)
	setextRE = regexp.MustCompile(`(?m)^\S.*\n(=+|-+)$`)
	fenceRE  = regexp.MustCompile("(?ms)^```[a-z]*\n(.*?)^```$")
)

func TestMarkdownShape(t *testing.T) {
	doc := Markdown(3, 200_000)
	if !utf8.Valid(doc) {
		t.Fatal("got invalid UTF-8")
	}
	if bytes.ContainsAny(doc, "\r\f\t") {
		t.Error("got \\r, \\f or \\t, want only \\n as a control character")
	}

	// Headings outside code fences, by level.
	prose := fenceRE.ReplaceAll(doc, nil)
	levels := map[int]int{}
	for _, m := range atxRE.FindAllSubmatch(prose, -1) {
		levels[len(m[1])]++
	}
	for l := 1; l <= 4; l++ {
		if levels[l] == 0 {
			t.Errorf("got no ATX heading of level %d, want some (levels %v)", l, levels)
		}
	}
	if levels[1] != 1 {
		t.Errorf("got %d ATX level-1 headings, want 1 (the title)", levels[1])
	}
	if levels[5]+levels[6] != 0 {
		t.Errorf("got headings deeper than level 4: %v", levels)
	}
	if !setextRE.Match(prose) {
		t.Error("got no Setext heading, want some")
	}

	// A fenced block holding a '#' line, which a naive line scanner would
	// take for a heading.
	hashInFence := false
	for _, m := range fenceRE.FindAllSubmatch(doc, -1) {
		if regexp.MustCompile(`(?m)^# `).Match(m[1]) {
			hashInFence = true
		}
	}
	if !hashInFence {
		t.Error("got no fenced code block with a '#' line, want one")
	}

	for _, want := range []string{"calendar days", "$", "%", "x ", "RAG-", "- ", "| Item |", "\n1. "} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("got no %q in the document, want some", want)
		}
	}
	if !regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`).Match(doc) {
		t.Error("got no ISO date, want some")
	}
	nonASCII := 0
	for _, w := range []string{"café", "naïve", "Zürich", "東京"} {
		nonASCII += bytes.Count(doc, []byte(w))
	}
	if nonASCII == 0 {
		t.Error("got no non-ASCII words, want some")
	}
	if bytes.Count(doc, []byte("\n\n\n")) != 0 {
		t.Error("got runs of two blank lines, want single blank lines between blocks")
	}
}

func TestThousands(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {250000, "250,000"}, {1234567, "1,234,567"}} {
		if got := thousands(tt.n); got != tt.want {
			t.Errorf("thousands(%d): got %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gen")
	paths, err := WriteMarkdown(dir, 3, 5_000, 9)
	if err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"doc-0001.md", "doc-0002.md", "doc-0003.md"}
	if len(paths) != len(wantNames) {
		t.Fatalf("got %d paths, want %d", len(paths), len(wantNames))
	}
	for i, p := range paths {
		if got := filepath.Base(p); got != wantNames[i] {
			t.Errorf("path %d: got %s, want %s", i, got, wantNames[i])
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := Markdown(9+uint64(i), 5_000); !bytes.Equal(got, want) {
			t.Errorf("%s: got %d bytes unlike Markdown(%d, 5000)", wantNames[i], len(got), 9+i)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("got %d files in dir, want 3", len(entries))
	}

	// A file where the directory should be makes it fail.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteMarkdown(blocker, 1, 100, 1); err == nil || !strings.HasPrefix(err.Error(), "corpus: ") {
		t.Errorf("got error %v, want a corpus: error", err)
	}
}

func BenchmarkMarkdown(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(1 << 20)
	for b.Loop() {
		Markdown(1, 1<<20)
	}
}

func TestWriteMarkdownCorpus(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteMarkdownCorpus(dir, 300_000, 5)
	if err != nil {
		t.Fatal(err)
	}
	total, small, large := 0, 0, 0
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		switch {
		case len(b) < 4096 || len(b) > 64<<10+4096:
			t.Errorf("%s: %d bytes, want 4 KiB to 64 KiB and one block", p, len(b))
		case len(b) < 16<<10:
			small++
		default:
			large++
		}
		if want := Markdown(5+uint64(i), 0); !bytes.HasPrefix(b, want[:bytes.IndexByte(want, '\n')]) {
			t.Errorf("%s: does not start as Markdown(seed %d)", p, 5+i)
		}
	}
	if total < 300_000 || total > 300_000+64<<10+4096 {
		t.Errorf("got %d bytes in %d files, want at least 300,000 and at most one file more", total, len(paths))
	}
	if small == 0 || large == 0 {
		t.Errorf("got %d files under 16 KiB and %d over, want sizes that vary", small, large)
	}
	again, _ := WriteMarkdownCorpus(t.TempDir(), 300_000, 5)
	if len(again) != len(paths) {
		t.Errorf("same seed: got %d files, then %d", len(paths), len(again))
	}
}
