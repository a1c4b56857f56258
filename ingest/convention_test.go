package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// readImportFixture extracts a source (or takes its --text) and reads a
// manifest of testdata/import.
func readImportFixture(t *testing.T, source, manifest string) (*Extracted, store.Text, []ImportedChunk, string) {
	t.Helper()
	src, err := os.ReadFile(source)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := extractTest(source, src)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	chunks, format, err := ReadManifest(bytes.NewReader(mb), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	return ex, store.NewText([]byte(ex.Text)), chunks, format
}

// TestImportConventions: real LangChain output made four ways over the
// paged sample (page by page; the whole text with page set afterwards;
// pages from 0 and from 1) and PyPDFLoader's over pypdf text of a PDF
// whose pages start with white space: each is read under the convention
// it was made with, and every chunk is accepted untouched.
func TestImportConventions(t *testing.T) {
	credit := filepath.Join(sampleDir(t), "credit-agreement-summary.txt")
	imp := filepath.Join("testdata", "import")
	reportlab := filepath.Join(imp, "reportlab-userguide-p11-24.txt")
	tests := []struct {
		source, manifest string
		want             Convention
	}{
		{credit, "credit-agreement-summary.txt.langchain.jsonl", Convention{Offsets: OffsetsPage, PageBase: 0, Paged: true}},
		{credit, "credit-agreement-summary.txt.page1.jsonl", Convention{Offsets: OffsetsPage, PageBase: 1, Paged: true}},
		{credit, "credit-agreement-summary.txt.whole.jsonl", Convention{Offsets: OffsetsDocument, PageBase: 0, Paged: true}},
		{credit, "credit-agreement-summary.txt.whole-page1.jsonl", Convention{Offsets: OffsetsDocument, PageBase: 1, Paged: true}},
		{reportlab, "reportlab-userguide-p11-24.txt.pypdf.jsonl", Convention{Offsets: OffsetsPage, PageBase: 0, Paged: true, Stripped: true}},
		// Text without pages: offsets from the document, nothing to say about pages.
		{filepath.Join(sampleDir(t), "expense-policy.md"), "expense-policy.md.langchain.jsonl", Convention{Offsets: OffsetsDocument, PageBase: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.manifest, func(t *testing.T) {
			ex, txt, chunks, format := readImportFixture(t, tt.source, filepath.Join(imp, tt.manifest))
			got, conv := ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{Format: format})
			if conv != tt.want {
				t.Errorf("convention: got %+v, want %+v", conv, tt.want)
			}
			for i, c := range got {
				if c.Quarantine != nil || c.Repair != nil {
					t.Errorf("line %d: got quarantine %+v repair %+v, want accepted", chunks[i].Line, c.Quarantine, c.Repair)
				}
			}
		})
	}
}

// TestImportConventionForced: --offsets forces the origin, and page base
// and stripping are still detected under it; the wrong origin quarantines
// exactly the chunks past the first page (where both origins agree).
func TestImportConventionForced(t *testing.T) {
	credit := filepath.Join(sampleDir(t), "credit-agreement-summary.txt")
	ex, txt, chunks, format := readImportFixture(t, credit, filepath.Join("testdata", "import", "credit-agreement-summary.txt.whole-page1.jsonl"))
	firstPage := 0
	for _, c := range chunks {
		if c.Page == 1 {
			firstPage++
		}
	}
	for _, tt := range []struct {
		force       string
		want        Convention
		quarantined int
	}{
		{OffsetsDocument, Convention{Offsets: OffsetsDocument, PageBase: 1, Paged: true}, 0},
		{OffsetsPage, Convention{Offsets: OffsetsPage, PageBase: 1, Paged: true}, len(chunks) - firstPage},
	} {
		got, conv := ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{Format: format, Offsets: tt.force})
		if conv != tt.want {
			t.Errorf("--offsets %s: got %+v, want %+v", tt.force, conv, tt.want)
		}
		q := 0
		for _, c := range got {
			if c.Quarantine != nil {
				q++
			}
		}
		if q != tt.quarantined {
			t.Errorf("--offsets %s: %d quarantined, want %d", tt.force, q, tt.quarantined)
		}
	}
}

// TestImportConventionNotMixed: a manifest whose lines come from two
// pipelines (whole-text offsets for the first pages, page-relative ones
// for the last) is read under one convention, the one most of its chunks
// fit; the chunks of the other are quarantined, never accepted by reading
// each line its own way.
func TestImportConventionNotMixed(t *testing.T) {
	credit := filepath.Join(sampleDir(t), "credit-agreement-summary.txt")
	imp := filepath.Join("testdata", "import")
	ex, txt, whole, _ := readImportFixture(t, credit, filepath.Join(imp, "credit-agreement-summary.txt.whole.jsonl"))
	_, _, paged, _ := readImportFixture(t, credit, filepath.Join(imp, "credit-agreement-summary.txt.langchain.jsonl"))
	var mixed []ImportedChunk
	fromPaged := 0
	for _, c := range whole {
		if c.Page < 2 {
			mixed = append(mixed, c)
		}
	}
	for _, c := range paged {
		if c.Page == 2 && c.Start > 0 { // page-relative and not at the page start, where the origins differ
			mixed = append(mixed, c)
			fromPaged++
		}
	}
	if fromPaged == 0 || fromPaged*2 >= len(mixed) {
		t.Fatalf("fixture: %d of %d lines page-relative, want a minority", fromPaged, len(mixed))
	}
	got, conv := ImportChunks("v", ex.Text, txt, &ex.Layout, mixed, ImportOptions{Format: FormatLangChain})
	if conv.Offsets != OffsetsDocument {
		t.Errorf("got %+v, want offsets from the document (most lines)", conv)
	}
	q := 0
	for i, c := range got {
		if c.Quarantine != nil {
			q++
			if i < len(mixed)-fromPaged {
				t.Errorf("line %d (whole-text) quarantined: %+v", i, c.Quarantine)
			}
		}
	}
	if q != fromPaged {
		t.Errorf("%d quarantined, want the %d page-relative lines", q, fromPaged)
	}
}

// TestImportStartNotFound: LangChain's start_index -1 claims no offset:
// the quarantine record holds no span (never -1), and --repair finds the
// chunk by its text.
func TestImportStartNotFound(t *testing.T) {
	credit := filepath.Join(sampleDir(t), "credit-agreement-summary.txt")
	src, err := os.ReadFile(credit)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := extractTest(credit, src)
	if err != nil {
		t.Fatal(err)
	}
	txt := store.NewText([]byte(ex.Text))
	in := `{"page_content":"KESTREL HARBOR GROUP LTD","metadata":{"start_index":0,"page":0}}
{"page_content":"3. FINANCIAL COVENANTS","metadata":{"start_index":-1,"page":1}}
`
	chunks, format, err := ReadManifest(strings.NewReader(in), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if c := chunks[1]; c.HasStart || !c.StartNotFound || c.Start != 0 {
		t.Fatalf("read: got %+v, want no start, not found", c)
	}
	got, _ := ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{Format: format})
	q := got[1].Quarantine
	if q == nil || q.Reason != resolve.ReasonOutOfRange || q.ClaimedStart != 0 || q.ClaimedEnd != 0 || !strings.Contains(q.Want, "start -1") {
		t.Errorf("without repair: got %+v, want out_of_range claiming no span", q)
	}
	if got[1].Page != 2 {
		t.Errorf("claimed page: got %d, want 2 (page 1 from 0)", got[1].Page)
	}
	got, _ = ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{Format: format, Repair: true})
	want := strings.Index(ex.Text, "3. FINANCIAL COVENANTS") // ASCII text: bytes are code points
	if c := got[1]; c.Quarantine != nil || c.Repair == nil || c.Start != want || c.Page != 2 {
		t.Errorf("with repair: got [%d,%d) page %d repair %+v quarantine %+v, want located at %d on page 2", c.Start, c.End, c.Page, c.Repair, c.Quarantine, want)
	}
}

// TestLeadingSpace: the white space before each page's first other
// character, as Python's str.strip removes it; a page of white space only
// stops at its form feed.
func TestLeadingSpace(t *testing.T) {
	text := "a\f \n b\f\u3000\x1c c\f  \fd"
	txt := store.NewText([]byte(text))
	layout := store.Layout{PageStarts: pageStarts(text)}
	got := leadingSpace(txt, &layout)
	want := []int{0, 3, 3, 2, 0}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("page %d: got %d, want %d", i+1, got[i], want[i])
		}
	}
}

// TestNumericLabelWithoutLabels: where the source defines no page labels a
// numeric label claims that page number (pypdf reports "1", "2", ...); a
// label that is no page number, or another page's, still fails.
func TestNumericLabelWithoutLabels(t *testing.T) {
	text := "one\ftwo\fthree"
	txt := store.NewText([]byte(text))
	layout := store.Layout{PageStarts: pageStarts(text)}
	cv := Convention{Offsets: OffsetsPage, Paged: true}
	for _, tt := range []struct {
		label  string
		reason string
	}{
		{"2", ""},
		{"3", resolve.ReasonPageLabelMismatch},
		{"ii", resolve.ReasonPageLabelMismatch},
	} {
		ic := ImportedChunk{Text: "two", HasText: true, Start: 0, End: 3, HasStart: true, HasEnd: true, Page: 1, HasPage: true, PageLabel: tt.label}
		c, q := cv.claim(&ic, txt, &layout, []int{0, 0, 0})
		if q == nil {
			q = resolve.Validate(txt, &layout, c)
		}
		switch {
		case tt.reason == "" && q != nil:
			t.Errorf("label %q: got %+v, want accepted", tt.label, q)
		case tt.reason != "" && (q == nil || q.Reason != tt.reason):
			t.Errorf("label %q: got %+v, want %s", tt.label, q, tt.reason)
		}
	}
}

// FuzzImportChunks: any manifest against a paged text whose pages start
// with white space: no panic, one of the format's conventions is chosen,
// every accepted or repaired chunk resolves to its span, and a quarantined
// chunk claims no negative offset.
func FuzzImportChunks(f *testing.F) {
	f.Add(`{"page_content":"two","metadata":{"start_index":0,"page":1}}`+"\n"+`{"page_content":"x","metadata":{"start_index":-1}}`, false)
	f.Add(`{"page_content":"three","metadata":{"start_index":9,"page":2,"page_label":"3"}}`, true)
	f.Add(`{"text":"two","source_start":6,"source_end":9,"page_number":2}`, false)
	f.Add(`{"id_":"n","text":"one","start_char_idx":0,"end_char_idx":3,"metadata":{"page_label":"1"}}`, true)
	text := "one\f  two\f\n\tthree two"
	txt := store.NewText([]byte(text))
	layout := store.Layout{PageStarts: pageStarts(text)}
	f.Fuzz(func(t *testing.T, in string, repair bool) {
		chunks, format, err := ReadManifest(strings.NewReader(in), FormatAuto)
		if err != nil {
			return
		}
		got, conv := ImportChunks("v", text, txt, &layout, chunks, ImportOptions{Format: format, Repair: repair})
		if conv.Offsets != OffsetsDocument && conv.Offsets != OffsetsPage || conv.PageBase != 0 && conv.PageBase != 1 {
			t.Fatalf("convention %+v", conv)
		}
		if len(got) != len(chunks) {
			t.Fatalf("%d records for %d chunks", len(got), len(chunks))
		}
		for i, c := range got {
			if q := c.Quarantine; q != nil {
				if q.ClaimedStart < 0 && !chunks[i].HasStart {
					t.Fatalf("line %d: no offset claimed, recorded as %d", chunks[i].Line, q.ClaimedStart)
				}
				continue
			}
			span, err := txt.Slice(c.Start, c.End)
			if err != nil || store.Hash(span) != c.SpanHash {
				t.Fatalf("line %d: accepted [%d,%d) does not resolve", chunks[i].Line, c.Start, c.End)
			}
		}
	})
}
