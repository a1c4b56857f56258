package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/corpus"
)

// scanSeeds are sources at the edges of what the line scanner models.
var scanSeeds = []string{
	"# a\n", "a\n=\n", "a\n-\n", "a\n- \n", "a\n---\nb\n***\n", "> # q\n", "```\n# no\n```\n# yes\n",
	"~~~~\n# no\n~~~\n# no\n~~~~\n# yes", "``` a`b\n# yes\n", "é\n## b ##\n", "#\ta\n\n\t# b\n",
	"# a {#id}\n", "a {.c}\n===\n", "a\nb {#x}\n---\n", "# a #b\n", "# a \\#\n", "### ###\n", "#\n", "####### a\n",
	"[a]: /u\n===\n", "[a]: /u\nb\n===\n", "- a\n# b\n", "- a\n\n# b\n", "1.  a\n\n    # b\n", "- a\n---\n",
	"a\n2. b\n---\n", "a\n1. b\n---\n", "a\n*\n---\n", "a\n    ---\n", "   # a\n    # b\n", "a\n   ===  \n",
	"<div>\n# a\n</div>\n", "* * *\na\n---\n", "- ```\n# a\n```\n# b\n", "-\n  a\n\n# b\n", "a\f\n===\n",
	"  - a\n    - b\n\nc\n-\n", "\t# a\n", " \t# a\n", "a\n\t===\n", "```\n\t```\n# no\n",
}

// FuzzScanHeadings holds the line scanner to goldmark's block parse, its
// oracle: wherever the scanner answers, it must find the same headings
// (level, offset, title).
func FuzzScanHeadings(f *testing.F) {
	addSeeds(f, ".md")
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Add(corpus.Markdown(1, 4000))
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Normalize(src)
		if err != nil || checkMarkdownNesting(s) != nil {
			return
		}
		compareScan(t, "source", s)
	})
}

// compareScan fails t when the scanner answers for s and differs from
// goldmark; it reports whether the scanner answered.
func compareScan(t *testing.T, name, s string) bool {
	t.Helper()
	fm := frontMatterEnd(s)
	got, ok := scanHeadings(s[fm:], fm, nil)
	if !ok {
		return false
	}
	want := goldmarkHeadings(s, fm)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(heading{})); diff != "" {
		t.Errorf("%s: scanner and goldmark differ (-goldmark +scanner):\n%s\nsource %q", name, diff, clip(s, 2000))
	}
	return true
}

func TestScanHeadingsSeeds(t *testing.T) {
	answered := 0
	for _, s := range scanSeeds {
		if compareScan(t, "seed", s) {
			answered++
		}
	}
	if answered < len(scanSeeds)/2 {
		t.Errorf("the scanner answered for %d of %d seeds, want most", answered, len(scanSeeds))
	}
}

// TestScanHeadingsCorpus: on the real and generated Markdown, the sections
// found with the scanner are goldmark's, and the generated corpus never
// needs goldmark.
func TestScanHeadingsCorpus(t *testing.T) {
	var files []string
	if dir, err := corpus.SampleDir(); err == nil {
		m, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		files = append(files, m...)
	}
	m, _ := filepath.Glob(filepath.Join("testdata", "*.md"))
	files = append(files, m...)
	if dir, ok := corpus.Shared("text"); ok {
		m, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no Markdown files found")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Normalize(src)
		if err != nil {
			t.Fatal(err)
		}
		ok := compareScan(t, f, s)
		t.Logf("%s: scanner answered: %v", filepath.Base(f), ok)
		fm := frontMatterEnd(s)
		hs := goldmarkHeadings(s, fm)
		if got, want := markdownSections(s), buildSections(s, hs); !cmp.Equal(got, want) {
			t.Errorf("%s: sections differ from goldmark's: %s", f, cmp.Diff(want, got))
		}
	}
	for seed := range uint64(20) {
		s := string(corpus.Markdown(seed, 30_000+int(seed)*3000))
		if !compareScan(t, "generated", s) {
			t.Errorf("generated document %d: the scanner gave up, want it to answer", seed)
		}
	}
}
