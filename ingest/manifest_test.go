package ingest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestReadManifestShapes(t *testing.T) {
	tests := []struct {
		name, in, format string
		want             ImportedChunk
	}{
		{"generic", `{"chunk_id":"c1","text":"héllo","source_start":3,"source_end":8,"page_number":2,"page_label":"ii","section_path":["A","B"]}`,
			FormatGeneric, ImportedChunk{Line: 1, ExternalID: "c1", Text: "héllo", HasText: true, Start: 3, End: 8, HasStart: true, HasEnd: true,
				Page: 2, HasPage: true, PageLabel: "ii", Section: []string{"A", "B"}, HasSection: true}},
		{"langchain pdf page, 0-based", `{"page_content":"héllo","metadata":{"start_index":10,"page":0,"source":"x.pdf"},"type":"Document"}`,
			FormatLangChain, ImportedChunk{Line: 1, Text: "héllo", HasText: true, Start: 10, End: 15, HasStart: true, HasEnd: true,
				Page: 0, HasPage: true}},
		{"langchain text, label", `{"page_content":"x","metadata":{"start_index":0,"page_label":"iv"}}`,
			FormatLangChain, ImportedChunk{Line: 1, Text: "x", HasText: true, End: 1, HasStart: true, HasEnd: true, PageLabel: "iv"}},
		{"langchain -1", `{"page_content":"x","metadata":{"start_index":-1}}`,
			FormatLangChain, ImportedChunk{Line: 1, Text: "x", HasText: true, StartNotFound: true}},
		{"llamaindex", `{"id_":"n1","text":"abc","start_char_idx":5,"end_char_idx":8,"metadata":{"page_label":"3"}}`,
			FormatLlamaIndex, ImportedChunk{Line: 1, ExternalID: "n1", Text: "abc", HasText: true, Start: 5, End: 8, HasStart: true, HasEnd: true,
				PageLabel: "3"}},
		{"haystack", `{"id":"h1","content":"abc","meta":{"split_idx_start":7,"page_number":4}}`,
			FormatHaystack, ImportedChunk{Line: 1, ExternalID: "h1", Text: "abc", HasText: true, Start: 7, End: 10, HasStart: true, HasEnd: true,
				Page: 4, HasPage: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, format, err := ReadManifest(strings.NewReader(tt.in+"\n"), FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			if format != tt.format {
				t.Errorf("detected %s, want %s", format, tt.format)
			}
			if diff := cmp.Diff([]ImportedChunk{tt.want}, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadManifestBadInput(t *testing.T) {
	good := `{"text":"a","source_start":0,"source_end":1}`
	in := strings.Join([]string{
		good,
		`{"text":"b","source_start":`,        // broken line
		`{"text":["not","a","string"]}`,      // wrong type
		`{"page_content":"c","metadata":{}}`, // another shape in a generic manifest
		"",                                   // blank: skipped
		`{"text":"` + strings.Repeat("x", maxManifestLine) + `"}`, // huge
		"\xff\xfe", // not UTF-8
		`{"text":"d","source_start":0,"source_end":1,"page_number":-3}`,
		good,
	}, "\n")
	got, _, err := ReadManifest(strings.NewReader(in), FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	wantErr := []string{"", "line 2", "line 3", "line 4", "line 6: longer", "line 7: invalid UTF-8", "line 8: page", ""}
	if len(got) != len(wantErr) {
		t.Fatalf("got %d chunks, want %d", len(got), len(wantErr))
	}
	for i, c := range got {
		if (wantErr[i] == "") != (c.Err == "") || !strings.Contains(c.Err, wantErr[i]) {
			t.Errorf("chunk %d (line %d): got error %q, want one containing %q", i, c.Line, c.Err, wantErr[i])
		}
	}
	for _, in := range []string{"", "\n\n", `{"foo":1}`, `[1,2,3]`} {
		if _, _, err := ReadManifest(strings.NewReader(in), FormatAuto); !errors.Is(err, ErrManifest) {
			t.Errorf("%q: got %v, want ErrManifest", in, err)
		}
	}
	if _, _, err := ReadManifest(strings.NewReader(good), "pinecone"); !errors.Is(err, ErrManifest) {
		t.Errorf("unknown format: got %v, want ErrManifest", err)
	}
}

// FuzzReadManifest: no panic; every chunk either has an error naming its
// line or text; offsets claimed are never taken as valid when negative.
func FuzzReadManifest(f *testing.F) {
	f.Add(`{"text":"a","source_start":0,"source_end":1}` + "\n" + `{"page_content":"x","metadata":{"start_index":-1}}`)
	f.Add(`{"content":"abc","meta":{"split_idx_start":7,"page_number":4}}`)
	f.Add(`{"id_":"n1","text":"abc","start_char_idx":5,"end_char_idx":8,"metadata":{"page_label":"3"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		chunks, _, err := ReadManifest(strings.NewReader(in), FormatAuto)
		if err != nil {
			if !errors.Is(err, ErrManifest) {
				t.Fatalf("error %v is not ErrManifest", err)
			}
			return
		}
		for _, c := range chunks {
			if c.Err == "" && !c.HasText {
				t.Fatalf("line %d: no error and no text", c.Line)
			}
			if c.Err != "" && !strings.HasPrefix(c.Err, "line ") {
				t.Fatalf("error %q does not name its line", c.Err)
			}
			if c.HasStart && c.Start < 0 {
				t.Fatalf("line %d: negative start taken as given", c.Line)
			}
		}
	})
}
