package pdf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Fixtures with their expected outcome. The sources of the hand-written
// files are in testdata/src; qpdf wrote the cross-reference tables and the
// encrypted variants (see testdata/README).
func TestExtractFixtures(t *testing.T) {
	helloOutline := []OutlineEntry{{"Introduction", 1, 1}, {"Details", 2, 2}, {"Evidence - 2", 1, 3}}
	tests := []struct {
		file      string
		reason    string // "" when extraction succeeds
		pages     int
		encrypted bool
		version   string
		labels    []string
		outline   []OutlineEntry
		contains  []string // in the text joined by \f
	}{
		{file: "hello.pdf", pages: 3, version: "1.4", labels: []string{"i", "ii", "p-7"}, outline: helloOutline,
			contains: []string{"Evidence Report\n\nKerned words", "After the inline image.", "Third page, first stream continued."}},
		{file: "hello-objstm.pdf", pages: 3, version: "1.5", labels: []string{"i", "ii", "p-7"}, outline: helloOutline},
		{file: "broken.pdf", pages: 3, version: "2.0", labels: []string{"i", "ii", "p-7"}, outline: helloOutline,
			contains: []string{"Third page, first stream continued."}},
		{file: "rc4-40.pdf", pages: 3, encrypted: true, version: "1.4", outline: helloOutline, contains: []string{"Evidence Report"}},
		{file: "rc4-128.pdf", pages: 3, encrypted: true, version: "1.5", outline: helloOutline, contains: []string{"Evidence Report"}},
		{file: "aes-128.pdf", pages: 3, encrypted: true, version: "1.6", outline: helloOutline, contains: []string{"Evidence Report"}},
		{file: "aes-256.pdf", pages: 3, encrypted: true, version: "1.7", outline: helloOutline, contains: []string{"Evidence Report"}},
		{file: "password.pdf", reason: ReasonEncrypted},
		{file: "scan.pdf", reason: ReasonNoText, pages: 1, version: "1.4"},
		// The root lists page 3 twice around two cycles: a page at each place
		// (pdf.js and PDFium show 2 pages), the cycles dropped.
		{file: "loops.pdf", pages: 2, version: "1.4", outline: []OutlineEntry{{"A", 1, 1}, {"B", 2, 0}}, contains: []string{"Only page\fOnly page"}},
		{file: "type0.pdf", pages: 2, version: "1.7", contains: []string{"Hello Worlst\n\norte\n\nHel o", "日本𝐀\n\nH"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			text, pages, doc, err := extractText(readTestdata(t, tc.file), Limits{})
			if tc.reason != "" {
				var e *Error
				if !errors.As(err, &e) || e.Reason != tc.reason {
					t.Fatalf("got error %v, want reason %s", err, tc.reason)
				}
				if tc.reason != ReasonNoText {
					return
				}
			} else if err != nil {
				t.Fatalf("got error %v", err)
			}
			if doc.Pages != tc.pages || len(pages) != tc.pages {
				t.Errorf("got %d pages (%d delivered), want %d", doc.Pages, len(pages), tc.pages)
			}
			if doc.Encrypted != tc.encrypted || doc.Version != tc.version {
				t.Errorf("got encrypted %v version %q, want %v %q", doc.Encrypted, doc.Version, tc.encrypted, tc.version)
			}
			for i, p := range pages {
				if p.Number != i+1 {
					t.Errorf("page %d numbered %d", i+1, p.Number)
				}
				if strings.Contains(p.Text, "\f") {
					t.Errorf("page %d text holds a form feed", p.Number)
				}
			}
			if tc.labels != nil {
				var got []string
				for _, p := range pages {
					got = append(got, p.Label)
				}
				if diff := cmp.Diff(tc.labels, got); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			}
			if tc.outline != nil {
				if diff := cmp.Diff(tc.outline, doc.Outline); diff != "" {
					t.Errorf("outline (-want +got):\n%s", diff)
				}
			}
			for _, s := range tc.contains {
				if !strings.Contains(text, s) {
					t.Errorf("text lacks %q; got:\n%s", s, text)
				}
			}
		})
	}
}

func TestExtractCallbackError(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	_, err := Extract(readTestdata(t, "hello.pdf"), Limits{}, func(Page) error {
		n++
		return stop
	})
	if err != stop || n != 1 {
		t.Fatalf("got %v after %d pages, want the callback's error after 1", err, n)
	}
}

func TestExtractLimits(t *testing.T) {
	src := readTestdata(t, "hello.pdf")
	tests := []struct {
		name     string
		lim      Limits
		reason   string
		sentinel error
	}{
		{"pages", Limits{MaxPages: 2}, ReasonTooLarge, ErrTooManyPages},
		{"text", Limits{MaxTextBytes: 40}, ReasonTooLarge, ErrTextTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := extractText(src, tc.lim)
			var e *Error
			if !errors.As(err, &e) || e.Reason != tc.reason || !errors.Is(err, tc.sentinel) {
				t.Fatalf("got %v, want reason %s wrapping %v", err, tc.reason, tc.sentinel)
			}
		})
	}
	// Limits on one page's work fail that page only.
	_, pages, _, err := extractText(src, Limits{MaxOps: 5})
	if err != nil {
		t.Fatal(err)
	}
	if pages[0].Err == "" {
		t.Errorf("page 1 with MaxOps 5: no error recorded")
	}
	_, pages, _, _ = extractText(src, Limits{MaxStreamBytes: 10})
	if len(pages) != 3 || pages[0].Err == "" || pages[0].Text != "" {
		t.Errorf("MaxStreamBytes 10: got %d pages, page 1 err %q text %q", len(pages), pages[0].Err, pages[0].Text)
	}
}

func TestNotPDF(t *testing.T) {
	for _, src := range []string{"", "hello", "%PDF-1.4\n", "%PDF-1.7\n1 0 obj << >> endobj\n"} {
		_, err := Extract([]byte(src), Limits{}, func(Page) error { return nil })
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonMalformed {
			t.Errorf("%q: got %v, want reason malformed", src, err)
		}
	}
}
