package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// expectation is the outcome a fixture line states for its chunk.
type expectation struct {
	Accept     bool   `json:"accept,omitempty"`     // accepted untouched, with or without --repair
	Quarantine string `json:"quarantine,omitempty"` // reason without --repair
	Repair     string `json:"repair,omitempty"`     // method with --repair ("" with Quarantine: still quarantined)
	Repaired   string `json:"repaired_quarantine,omitempty"`
	Start      int    `json:"start,omitempty"` // coordinates after repair, code points
	End        int    `json:"end,omitempty"`
}

type fixtureLine struct {
	Expect *expectation `json:"expect"`
}

// importFixture ingests a source's text and checks every chunk of a
// manifest against the expectation its line carries.
func importFixture(t *testing.T, source, manifest string, textFile string) {
	t.Helper()
	mb, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	var ex *Extracted
	if textFile != "" {
		tb, err := os.ReadFile(textFile)
		if err != nil {
			t.Fatal(err)
		}
		if ex, err = externalText(source, tb); err != nil {
			t.Fatal(err)
		}
	} else {
		src, err := os.ReadFile(source)
		if err != nil {
			t.Fatal(err)
		}
		if ex, err = extractTest(source, src); err != nil {
			t.Fatal(err)
		}
	}
	chunks, format, err := ReadManifest(bytes.NewReader(mb), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	var expects []*expectation
	for _, line := range bytes.Split(bytes.TrimSpace(mb), []byte("\n")) {
		var fl fixtureLine
		_ = json.Unmarshal(line, &fl) // a malformed line carries no expectation here
		if fl.Expect == nil {
			fl.Expect = &expectation{Accept: true}
		}
		expects = append(expects, fl.Expect)
	}
	if len(expects) != len(chunks) {
		t.Fatalf("%d expectations for %d chunks", len(expects), len(chunks))
	}
	txt := store.NewText([]byte(ex.Text))
	for _, repair := range []bool{false, true} {
		got, _ := ImportChunks("v", ex.Text, txt, &ex.Layout, chunks, ImportOptions{Format: format, Repair: repair})
		for i, c := range got {
			e := expects[i]
			where := fmt.Sprintf("%s line %d (repair=%v)", filepath.Base(manifest), chunks[i].Line, repair)
			switch {
			case e.Accept:
				if c.Quarantine != nil || c.Repair != nil {
					t.Errorf("%s: correct chunk touched: quarantine %+v repair %+v", where, c.Quarantine, c.Repair)
				}
			case !repair || e.Repaired != "":
				want := e.Quarantine
				if repair {
					want = e.Repaired
				}
				if c.Quarantine == nil || c.Quarantine.Reason != want {
					t.Errorf("%s: got quarantine %+v repair %+v, want quarantined %s", where, c.Quarantine, c.Repair, want)
				}
			default:
				if c.Quarantine != nil || c.Repair == nil || c.Repair.Method != e.Repair || c.Repair.Reason != e.Quarantine || c.Start != e.Start || c.End != e.End {
					t.Errorf("%s: got [%d,%d) repair %+v quarantine %+v, want %s repair of %s to [%d,%d)", where, c.Start, c.End, c.Repair, c.Quarantine, e.Repair, e.Quarantine, e.Start, e.End)
				}
			}
			if c.Quarantine == nil {
				span, _ := txt.Slice(c.Start, c.End)
				if store.Hash(span) != c.SpanHash {
					t.Errorf("%s: accepted chunk does not resolve", where)
				}
			}
		}
	}
}

// TestImportLangChainSample: the real LangChain output for the sample
// documents (corpus/langchain-split.sh) is accepted, every chunk untouched.
func TestImportLangChainSample(t *testing.T) {
	sample := sampleDir(t)
	for _, name := range []string{"expense-policy.md", "credit-agreement-summary.txt", "data-retention.md"} {
		t.Run(name, func(t *testing.T) {
			importFixture(t, filepath.Join(sample, name), filepath.Join("testdata", "import", name+".langchain.jsonl"), "")
		})
	}
}

// TestImportLangChainShared does the same on documents of ../shared/corpus,
// PDFs through the text pdftotext gave LangChain (--text).
func TestImportLangChainShared(t *testing.T) {
	text, ok := corpus.Shared("text")
	pdf, ok2 := corpus.Shared("pdf")
	if !ok || !ok2 {
		t.Skip("../shared/corpus not present: skipping the LangChain manifests of shared documents")
	}
	for _, name := range []string{"go-godebug.md", "node-security.md", "node-api-url.md", "dpkg-triggers-spec.txt", "git-relnotes-2.27.0.txt"} {
		t.Run(name, func(t *testing.T) {
			importFixture(t, filepath.Join(text, name), filepath.Join("testdata", "import", name+".langchain.jsonl"), "")
		})
	}
	for _, name := range []string{"deb-r-doc-pdf__R-data", "deb-octave-doc__refcard-a4", "deb-lilypond-doc-pdf__changes"} {
		t.Run(name, func(t *testing.T) {
			importFixture(t, filepath.Join(pdf, name+".pdf"), filepath.Join("testdata", "import", name+".pdftotext.txt.langchain.jsonl"),
				filepath.Join(pdf, name+".pdftotext.txt"))
		})
	}
}

// TestImportDrift: manifests with known drift, each line stating its
// expected outcome (testdata/import/drift-*.jsonl, written by
// TestWriteDriftManifests -update).
func TestImportDrift(t *testing.T) {
	sample := sampleDir(t)
	for _, tc := range []struct{ manifest, source string }{
		{"drift-langchain.jsonl", "credit-agreement-summary.txt"},
		{"drift-generic.jsonl", "expense-policy.md"},
		{"drift-repeated.jsonl", "repeated.md"},
	} {
		t.Run(tc.manifest, func(t *testing.T) {
			src := filepath.Join(sample, tc.source)
			if tc.source == "repeated.md" {
				src = filepath.Join("testdata", "import", tc.source)
			}
			importFixture(t, src, filepath.Join("testdata", "import", tc.manifest), "")
		})
	}
}

// TestWriteDriftManifests regenerates the drift fixtures from the real
// LangChain output (go test -run TestWriteDriftManifests -update).
func TestWriteDriftManifests(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate testdata/import/drift-*.jsonl")
	}
	sample := sampleDir(t)
	dir := filepath.Join("testdata", "import")
	type lc struct {
		PageContent string         `json:"page_content"`
		Metadata    map[string]any `json:"metadata"`
		Expect      *expectation   `json:"expect,omitempty"`
	}
	read := func(name string) []lc {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		var out []lc
		for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var l lc
			if err := json.Unmarshal(line, &l); err != nil {
				t.Fatal(err)
			}
			out = append(out, l)
		}
		return out
	}
	write := func(name string, lines []any) {
		var b bytes.Buffer
		for _, l := range lines {
			j, _ := json.Marshal(l)
			b.Write(j)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	extract := func(path string) (*Extracted, []rune) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := extractTest(path, src)
		if err != nil {
			t.Fatal(err)
		}
		return ex, []rune(ex.Text)
	}
	// absolute coordinates of a LangChain page-relative chunk
	abs := func(ex *Extracted, l lc) (int, int) {
		base := 0
		if p, ok := l.Metadata["page"].(float64); ok {
			base = ex.Layout.PageStarts[int(p)]
		}
		s := base + int(l.Metadata["start_index"].(float64))
		return s, s + len([]rune(l.PageContent))
	}

	// LangChain shape, paged text: stale offsets, -1 offsets, pages past the end, 0-based pages read as 1-based.
	ex, _ := extract(filepath.Join(sample, "credit-agreement-summary.txt"))
	var out []any
	for i, l := range read("credit-agreement-summary.txt.langchain.jsonl") {
		s, e := abs(ex, l)
		switch i {
		case 1: // stale offset: start_index computed without the overlap
			l.Metadata["start_index"] = l.Metadata["start_index"].(float64) + 100
			l.Expect = &expectation{Quarantine: resolve.ReasonTextMismatch, Repair: RepairMoved, Start: s, End: e}
		case 3: // -1: the pipeline could not find its own chunk
			l.Metadata["start_index"] = -1
			l.Expect = &expectation{Quarantine: resolve.ReasonOutOfRange, Repair: RepairMoved, Start: s, End: e}
		case 5: // page past the last page: page-relative offsets mean nothing, the text is searched
			l.Metadata["page"] = 9
			l.Expect = &expectation{Quarantine: resolve.ReasonPageMismatch, Repair: RepairMoved, Start: s, End: e}
		case 7: // OCR noise in the chunk text: found fuzzily
			l.PageContent = strings.Replace(strings.Replace(l.PageContent, "e", "c", 2), "o", "0", 1)
			l.Expect = &expectation{Quarantine: resolve.ReasonTextMismatch, Repair: "fuzzy", Start: s, End: e}
		case 9: // text that is nowhere in the document
			l.PageContent = "This paragraph was never in the credit agreement summary at all, not even close."
			l.Expect = &expectation{Quarantine: resolve.ReasonTextMismatch, Repaired: resolve.ReasonNotFound}
		}
		out = append(out, l)
	}
	write("drift-langchain.jsonl", out)

	// Generic shape: 0-based pages, printed labels for physical pages, wrong sections, end offsets from another unit.
	ex, runes := extract(filepath.Join(sample, "expense-policy.md"))
	out = nil
	for i, l := range read("expense-policy.md.langchain.jsonl") {
		s, e := abs(ex, l)
		g := map[string]any{"chunk_id": fmt.Sprintf("lc-%d", i), "text": l.PageContent, "source_start": s, "source_end": e,
			"page_number": 1, "section_path": ex.Layout.SectionAt(s)}
		switch i {
		case 1: // 0-based page
			g["page_number"] = 0
			g["expect"] = expectation{Quarantine: resolve.ReasonPageMismatch, Repair: RepairCoordinates, Start: s, End: e}
		case 2: // a page number past the last page
			g["page_number"] = 2
			g["expect"] = expectation{Quarantine: resolve.ReasonPageMismatch, Repair: RepairCoordinates, Start: s, End: e}
		case 4: // section taken from where the chunk ends
			g["section_path"] = ex.Layout.SectionAt(e - 1)
			if strings.Join(ex.Layout.SectionAt(e-1), "/") == strings.Join(ex.Layout.SectionAt(s), "/") {
				g["section_path"] = []string{"Somewhere else"}
			}
			g["expect"] = expectation{Quarantine: resolve.ReasonSectionMismatch, Repair: RepairCoordinates, Start: s, End: e}
		case 6: // end offset counted in UTF-8 bytes, not code points
			g["source_end"] = s + len(string(runes[s:e])) + 3
			g["expect"] = expectation{Quarantine: resolve.ReasonTextMismatch, Repair: RepairMoved, Start: s, End: e}
		case 8: // printed label where none is defined
			g["page_label"] = "iv"
			g["expect"] = expectation{Quarantine: resolve.ReasonPageLabelMismatch, Repair: RepairCoordinates, Start: s, End: e}
		case 10: // whitespace damage: runs collapsed, as some loaders do
			g["text"] = strings.Join(strings.Fields(l.PageContent), " ")
			g["expect"] = expectation{Quarantine: resolve.ReasonTextMismatch, Repair: "whitespace", Start: s, End: e}
		}
		out = append(out, g)
	}
	out = append(out, map[string]any{"text": 42, // wrong type: quarantined as malformed, the rest kept
		"expect": expectation{Quarantine: ReasonMalformed, Repaired: ReasonMalformed}})
	write("drift-generic.jsonl", out)
}
