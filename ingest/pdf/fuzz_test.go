package pdf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzLimits keep each input's work small: Go's fuzzer cannot time an
// input out, so the target bounds itself.
var fuzzLimits = Limits{MaxPages: 64, MaxTextBytes: 1 << 20, MaxStreamBytes: 1 << 20, MaxOps: 200_000}

func FuzzExtract(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.pdf"))
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj trailer<</Root 1 0 R>>"))
	f.Fuzz(func(t *testing.T, src []byte) {
		n := 0
		doc, err := Extract(src, fuzzLimits, func(p Page) error {
			n++
			if p.Number != n {
				t.Fatalf("page %d numbered %d", n, p.Number)
			}
			if strings.Contains(p.Text, "\f") || !utf8.ValidString(p.Text) {
				t.Fatalf("page %d: text with a form feed or invalid UTF-8", n)
			}
			for _, h := range p.Headings {
				if h.Offset < 0 || h.Offset+len(h.Text) > len(p.Text) || p.Text[h.Offset:h.Offset+len(h.Text)] != h.Text {
					t.Fatalf("page %d: heading %q not at offset %d", n, h.Text, h.Offset)
				}
			}
			return nil
		})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error not *Error: %v", err)
			}
		}
		if doc != nil && doc.Pages != n {
			t.Fatalf("Doc.Pages %d, delivered %d", doc.Pages, n)
		}
		if doc != nil {
			for _, o := range doc.Outline {
				if o.Page < 0 || o.Level < 1 {
					t.Fatalf("outline entry %+v", o)
				}
			}
		}
	})
}
