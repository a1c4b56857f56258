package resolve_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

func TestTitle(t *testing.T) {
	for _, tt := range []struct {
		name, file, text, url, want string
	}{
		{"markdown heading", "a.md", "# Expense Policy\n\nText.\n", "", "Expense Policy"},
		{"markdown heading with markup", "b.md", "# The *Fee* and `cost` [rules](https://x.example)\n\nText.\n", "", "The Fee and cost rules"},
		{"html heading", "c.html", "<html><head><title>T</title></head><body><h1>Travel  Questions</h1><p>Text here.</p></body></html>", "", "Travel Questions"},
		{"heading after a preamble is a section's", "d.md", strings.Repeat("Preamble words. ", 20) + "\n\n## 2. Details\n\nText.\n", "", "d.md"},
		{"plain text: the file name", "notes.txt", "Refunds are paid within 30 days.\n", "", "notes.txt"},
		{"a URL's base name", "e.txt", "Some text.\n", "https://docs.example/policies/refunds.txt", "refunds.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := storetest.Open(t)
			p := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			sum, err := ingest.Run(context.Background(), db, []string{p}, ingest.Options{URL: tt.url})
			if err != nil || sum.Failed > 0 {
				t.Fatalf("ingest: %v %+v", err, sum)
			}
			var got string
			err = db.View(func(tx *store.Tx) error {
				v, err := tx.Version(sum.Results[0].DocumentVersion)
				if err != nil {
					return err
				}
				if tt.url != "" {
					// Only the URL names it: the path is what a reader never sees.
					w := *v
					w.SourcePath = ""
					v = &w
				}
				got, err = resolve.Title(tx, v)
				return err
			})
			if err != nil || got != tt.want {
				t.Errorf("got %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}
