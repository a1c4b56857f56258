package corpus

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

func TestRoot(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	// Tests run in the package directory, one level under the root.
	wd, _ := os.Getwd()
	if got, want := root, filepath.Dir(wd); got != want {
		t.Errorf("got root %s, want %s", got, want)
	}
}

func TestShared(t *testing.T) {
	dir, ok := Shared("text")
	if !ok {
		t.Skipf("shared corpus not present at %s", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "MANIFEST.tsv")); err != nil {
		t.Errorf("got %v, want a MANIFEST.tsv in %s", err, dir)
	}
	if _, ok := Shared("no-such-folder"); ok {
		t.Error("got ok for a missing folder, want false")
	}
}

// The sample corpus is the demo's input: small, valid UTF-8 and consistent.
func TestSample(t *testing.T) {
	dir, err := SampleDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		pages int // form feeds + 1
		want  []string
	}{
		{"expense-policy.md", 1, []string{"Submit all expense reports within 14 calendar days", "EUR 75 per day", "### 2.1 Deadline"}},
		{"credit-agreement-summary.txt", 3, []string{"Net Leverage Ratio shall not exceed 3.25 to 1.00", "2025-03-31"}},
		{"security-faq.html", 1, []string{"<h1>", "<h3", "<table>", "<script>", "<style>", "&amp;", "&nbsp;"}},
		{"data-retention.md", 1, []string{"7 years", "13 months", "DR-02"}},
	} {
		b, err := os.ReadFile(filepath.Join(dir, tt.name))
		if err != nil {
			t.Error(err)
			continue
		}
		if n := len(b); n < 2<<10 || n > 8<<10 {
			t.Errorf("%s: got %d bytes, want 2 to 8 KB", tt.name, n)
		}
		if !utf8.Valid(b) || bytes.Contains(b, []byte("\r")) {
			t.Errorf("%s: got invalid UTF-8 or \\r, want clean UTF-8 text", tt.name)
		}
		if got := bytes.Count(b, []byte("\f")) + 1; got != tt.pages {
			t.Errorf("%s: got %d pages, want %d", tt.name, got, tt.pages)
		}
		for _, w := range tt.want {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("%s: got no %q, want it", tt.name, w)
			}
		}
	}
}
