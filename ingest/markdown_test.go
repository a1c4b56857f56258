package ingest

import (
	"os"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// sec is a section literal: start, end, path.
func sec(start, end int, path ...string) store.Section {
	return store.Section{Start: start, End: end, Path: path}
}

func TestExtractMarkdown(t *testing.T) {
	tests := []struct {
		name string
		src  string
		text string // "" means the source itself
		want []store.Section
	}{
		{
			name: "atx levels and nesting",
			src:  "# A\ntext\n## B\nb\n### C\nc\n## D\n# E\n",
			want: []store.Section{
				sec(0, 29, "A"), sec(9, 24, "A", "B"), sec(16, 24, "A", "B", "C"),
				sec(24, 29, "A", "D"), sec(29, 33, "E"),
			},
		},
		{
			name: "skipped level",
			src:  "# H1\n### H3\n## H2\n",
			want: []store.Section{sec(0, 18, "H1"), sec(5, 12, "H1", "H3"), sec(12, 18, "H1", "H2")},
		},
		{
			name: "no heading",
			src:  "just text\n",
		},
		{
			name: "setext",
			src:  "Title\n=====\n\nSub\n---\nbody\n",
			want: []store.Section{sec(0, 26, "Title"), sec(13, 26, "Title", "Sub")},
		},
		{
			name: "multi-line setext",
			src:  "one\ntwo\n===\n",
			want: []store.Section{sec(0, 12, "one two")},
		},
		{
			name: "closing hashes and inline markup kept",
			src:  "## *Rates* in `EUR` ##\n#### x #\n### C#\n",
			want: []store.Section{sec(0, 39, "*Rates* in `EUR`"), sec(23, 32, "*Rates* in `EUR`", "x"), sec(32, 39, "*Rates* in `EUR`", "C#")},
		},
		{
			name: "heading attribute",
			src:  "## Intro {#intro}\n",
			want: []store.Section{sec(0, 18, "Intro")},
		},
		{
			name: "indented atx",
			src:  "   # Three spaces\n",
			want: []store.Section{sec(3, 18, "Three spaces")},
		},
		{
			name: "backtick fence",
			src:  "# A\n```\n# not\n```\n## B\n",
			want: []store.Section{sec(0, 23, "A"), sec(18, 23, "A", "B")},
		},
		{
			name: "tilde fence",
			src:  "~~~md\n# not\nnot\n---\n~~~\n# A\n",
			want: []store.Section{sec(24, 28, "A")},
		},
		{
			name: "unclosed fence runs to the end",
			src:  "# A\n```\n# not\n",
			want: []store.Section{sec(0, 14, "A")},
		},
		{
			name: "indented code",
			src:  "para\n\n    # not\n\t# not\n# A\n",
			want: []store.Section{sec(23, 27, "A")},
		},
		{
			name: "html block",
			src:  "<div>\n# not\n</div>\n\n# A\n",
			want: []store.Section{sec(20, 24, "A")},
		},
		{
			name: "not headings",
			src:  "#hashtag\n####### seven\n\\# escaped\n#\n",
		},
		{
			name: "link reference definition is not a setext heading",
			src:  "[foo]: /url\n===\n",
		},
		{
			name: "blockquote and list item headings",
			src:  "> # Q\n\n- ## L\n",
			want: []store.Section{sec(2, 14, "Q"), sec(9, 14, "Q", "L")},
		},
		{
			name: "non-ASCII before headings: code points, not bytes",
			src:  "Préface 日本語 😀\n\n# Été\n\n## Ünïcode\n",
			want: []store.Section{sec(15, 33, "Été"), sec(22, 33, "Été", "Ünïcode")},
		},
		{
			name: "normalized before parsing",
			src:  "\ufeffe\u0301\r\n# A\r\n\x01## B\r\n",
			text: "é\n# A\n## B\n",
			want: []store.Section{sec(2, 11, "A"), sec(6, 11, "A", "B")},
		},
		{
			name: "yaml front matter",
			src:  "---\ntitle: x\n---\n# A\n",
			want: []store.Section{sec(17, 21, "A")},
		},
		{
			name: "toml front matter",
			src:  "+++\ntitle = 'x'\n---\n+++\nB\n-\n",
			want: []store.Section{sec(24, 28, "B")},
		},
		{
			name: "unclosed front matter is a thematic break",
			src:  "---\nTitle\n===\n",
			want: []store.Section{sec(4, 14, "Title")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := ExtractMarkdown([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			wantText := tt.text
			if wantText == "" {
				wantText = tt.src
			}
			if x.Text != wantText {
				t.Errorf("got text %q, want %q", x.Text, wantText)
			}
			if diff := cmp.Diff(tt.want, x.Layout.Sections); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]int{0}, x.Layout.PageStarts); diff != "" {
				t.Errorf("page starts (-want +got):\n%s", diff)
			}
			if x.MediaType != "text/markdown" || x.Extractor != "markdown/1" {
				t.Errorf("got %q, %q, want text/markdown, markdown/1", x.MediaType, x.Extractor)
			}
			if err := checkExtracted(x); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFrontMatterEnd(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"---\na: b\n---\nx", 13},
		{"---\na: b\n...\n", 13},
		{"--- \na: b\n---", 13},
		{"+++\na = 1\n+++\n", 14},
		{"+++\na = 1\n---\n", 0},
		{"---\na: b\n", 0},
		{"----\na\n----\n", 0},
		{"x\n---\na\n---\n", 0},
		{"---", 0},
	}
	for _, tt := range tests {
		if got := frontMatterEnd(tt.in); got != tt.want {
			t.Errorf("frontMatterEnd(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// benchMarkdown returns the Markdown files of the corpus joined, or a
// synthetic document when the corpus is absent.
func benchMarkdown(b *testing.B) []byte {
	var all []byte
	for _, name := range []string{"node-api-child-process.md", "node-api-url.md", "go-godebug.md", "node-security.md"} {
		src, err := os.ReadFile(corpusDir + "/" + name)
		if err != nil {
			continue
		}
		all = append(all, src...)
		all = append(all, '\n')
	}
	if all == nil {
		all = benchASCIIMarkdown()
	}
	return all
}

func BenchmarkExtractMarkdown(b *testing.B) {
	src := benchMarkdown(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ExtractMarkdown(src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkdownParser compares goldmark configurations on the parse
// alone: the one ExtractMarkdown uses against goldmark's full CommonMark
// parser.
func BenchmarkMarkdownParser(b *testing.B) {
	src := benchMarkdown(b)
	full := parser.NewParser(
		parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	noTransformers := parser.NewParser(parser.WithBlockParsers(mdBlockParsers()...))
	for _, p := range []struct {
		name string
		p    parser.Parser
	}{{"blocks", mdParser}, {"blocks-no-transformers", noTransformers}, {"full", full}} {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				p.p.Parse(text.NewReader(src))
			}
		})
	}
}
