package pdf

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// Golden page text: every field of every page, and the document
// description, for small files that exercise the interpreter.
func TestGolden(t *testing.T) {
	for _, name := range []string{"hello.pdf", "type0.pdf", "broken.pdf"} {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			doc, err := Extract(readTestdata(t, name), Limits{}, func(p Page) error {
				fmt.Fprintf(&b, "--- page %d label=%q lowconf=%q err=%q\n", p.Number, p.Label, p.LowConfidence, p.Err)
				for _, h := range p.Headings {
					fmt.Fprintf(&b, "heading level=%d offset=%d %q\n", h.Level, h.Offset, h.Text)
				}
				b.WriteString(p.Text)
				b.WriteString("\n")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "--- doc pages=%d encrypted=%v version=%q\n", doc.Pages, doc.Encrypted, doc.Version)
			for _, o := range doc.Outline {
				fmt.Fprintf(&b, "outline level=%d page=%d %q\n", o.Level, o.Page, o.Title)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(name, ".pdf")+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}
