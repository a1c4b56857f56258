package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/ingest/pdf"
)

// golden renders an extraction for a golden file: a header with the media
// type, extractor, page starts and one line per section (start, end in code
// points, the first characters at start, the path), then the text verbatim.
func golden(x *Extracted) string {
	var b strings.Builder
	fmt.Fprintf(&b, "media_type: %s\nextractor: %s\npage_starts: %v\nsections:\n", x.MediaType, x.Extractor, x.Layout.PageStarts)
	runes := []rune(x.Text)
	for _, s := range x.Layout.Sections {
		at := string(runes[s.Start:min(len(runes), s.Start+16)])
		fmt.Fprintf(&b, "\t%d\t%d\t%q\t%s\n", s.Start, s.End, at, strings.Join(s.Path, " > "))
	}
	b.WriteString("-- text --\n")
	b.WriteString(x.Text)
	return b.String()
}

func TestGolden(t *testing.T) {
	for _, name := range []string{"sample.txt", "sample.md", "sample.html"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			x, err := extractTest(path, src)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkExtracted(x); err != nil {
				t.Error(err)
			}
			checkGolden(t, name+".golden", []byte(golden(x)))
		})
	}
}

func TestExtract(t *testing.T) {
	tests := []struct {
		path      string
		src       string
		reason    string // "" for success
		sentinel  error
		mediaType string
	}{
		{"a.txt", "hello", "", nil, "text/plain"},
		{"A.TEXT", "hello", "", nil, "text/plain"},
		{"dir/a.md", "# hi", "", nil, "text/markdown"},
		{"a.Markdown", "hi", "", nil, "text/markdown"},
		{"a.html", "<p>hi", "", nil, "text/html"},
		{"a.HTM", "<p>hi", "", nil, "text/html"},
		{"a.xhtml", "<p>hi</p>", "", nil, "text/html"},
		{"a.pdf", "hello, no PDF here", ReasonMalformed, pdf.ErrNotPDF, ""},
		{"a.docx", "PK", ReasonUnsupported, ErrUnsupported, ""},
		{"README", "hi", ReasonUnsupported, ErrUnsupported, ""},
		{"a.txt", "", ReasonEmpty, ErrEmpty, ""},
		{"a.md", " \n\t\r\n\u00a0", ReasonEmpty, ErrEmpty, ""},
		{"a.txt", "\ufeff\n", ReasonEmpty, ErrEmpty, ""},
		{"a.html", "<script>x()</script><!-- c -->", ReasonEmpty, ErrEmpty, ""},
		{"a.txt", "ab\x00cd", ReasonBinary, ErrBinary, ""},
		{"a.md", "caf\xe9", ReasonInvalidUTF8, ErrInvalidUTF8, ""},
		{"a.html", "<p>\xff</p>", ReasonInvalidUTF8, ErrInvalidUTF8, ""},
	}
	for _, tt := range tests {
		t.Run(tt.path+"/"+tt.src, func(t *testing.T) {
			x, err := extractTest(tt.path, []byte(tt.src))
			if tt.reason == "" {
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				if x.MediaType != tt.mediaType {
					t.Errorf("got media type %q, want %q", x.MediaType, tt.mediaType)
				}
				if x.Extractor != ExtractorFor(tt.path) {
					t.Errorf("got extractor %q, want ExtractorFor's %q", x.Extractor, ExtractorFor(tt.path))
				}
				return
			}
			var ee *ExtractError
			if !errors.As(err, &ee) {
				t.Fatalf("got error %v (%T), want *ExtractError", err, err)
			}
			if ee.Reason != tt.reason || ee.Path != tt.path {
				t.Errorf("got reason %q, path %q, want %q, %q", ee.Reason, ee.Path, tt.reason, tt.path)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("got %v, want it to match %v", err, tt.sentinel)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.path) || !strings.Contains(msg, tt.reason) || strings.Contains(msg, "\n") {
				t.Errorf("got message %q, want one line naming %q and %q", msg, tt.path, tt.reason)
			}
		})
	}
}

func TestExtractErrorMessage(t *testing.T) {
	err := &ExtractError{Path: "docs/a\nb.pdf", Reason: ReasonUnsupported, Err: fmt.Errorf("%w %q", ErrUnsupported, ".pdf")}
	got := err.Error()
	want := `ingest: docs/a b.pdf: unsupported: unsupported file type ".pdf"`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// corpusDir holds real documents of several kinds; see its MANIFEST.tsv.
const corpusDir = "../../shared/corpus/text"

func TestCorpus(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(corpusDir, "*"))
	if err != nil || len(names) == 0 {
		t.Skipf("corpus %s is absent: the real-document checks need it", corpusDir)
	}
	found := map[string][]string{} // file -> section paths, joined by " > "
	for _, path := range names {
		if !Supported(path) {
			continue
		}
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			x, err := extractTest(path, src)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkExtracted(x); err != nil {
				t.Fatal(err)
			}
			if x.MediaType == "text/html" {
				if err := checkBlankLines(x.Text); err != nil {
					t.Error(err)
				}
			}
			// The text at a section start begins with '#' (Markdown ATX) or
			// with the title, white space collapsed.
			runes := []rune(x.Text)
			for _, s := range x.Layout.Sections {
				title := s.Path[len(s.Path)-1]
				at := collapseSpace([]byte(string(runes[s.Start:min(len(runes), s.Start+2*utf8.RuneCountInString(title)+16)])))
				if !strings.HasPrefix(at, title) && !(x.MediaType == "text/markdown" && strings.HasPrefix(at, "#")) {
					t.Errorf("section %q: text at %d is %q", s.Path, s.Start, at)
				}
				found[name] = append(found[name], strings.Join(s.Path, " > "))
			}
			if x.MediaType != "text/plain" && len(x.Layout.Sections) == 0 {
				t.Errorf("no sections found")
			}
			t.Logf("%d bytes, %d code points, %d pages, %d sections", len(src), len(runes), len(x.Layout.PageStarts), len(x.Layout.Sections))
		})
	}
	want := map[string][]string{
		"go-spec.html": {
			"Introduction",
			"Source code representation > Characters",
			"Statements > For statements",
			"Statements > For statements > For statements with for clause",
			"Statements > Switch statements > Type switches",
			"Expressions > Passing arguments to ... parameters",
			"System considerations > Package unsafe",
		},
		"go-memory-model.html": {
			"Introduction > Advice",
			"Introduction > Informal Overview",
			"Memory Model",
			"Synchronization > Locks",
			"Conclusion",
		},
		"go-godebug.md": {
			"Introduction",
			"GODEBUG History > Go 1.21",
		},
		"node-api-url.md": {
			"URL > The WHATWG URL API > Class: `URL` > `url.protocol` > Special schemes",
		},
	}
	for name, paths := range want {
		if _, ok := found[name]; !ok {
			continue // not in this corpus
		}
		for _, p := range paths {
			if !slices.Contains(found[name], p) {
				t.Errorf("%s: no section with path %q", name, p)
			}
		}
	}
}
