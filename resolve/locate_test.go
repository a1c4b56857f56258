package resolve_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestCitationCheck: each unusable request is refused with its reason.
func TestCitationCheck(t *testing.T) {
	one, five := 1, 5
	for _, tt := range []struct {
		c    resolve.CitationRequest
		want string
	}{
		{resolve.CitationRequest{ChunkID: "v-0"}, ""},
		{resolve.CitationRequest{ChunkID: " "}, "missing chunk_id"},
		{resolve.CitationRequest{ChunkID: "v-0", SourceStart: &one}, "go together"},
		{resolve.CitationRequest{ChunkID: "v-0", SourceStart: &five, SourceEnd: &one}, "inverted"},
		{resolve.CitationRequest{ChunkID: "v-0", Quote: strings.Repeat("x", 11)}, "longer than 10"},
	} {
		err := tt.c.Check(10)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", tt.c, err)
			}
			continue
		}
		if !errors.Is(err, resolve.ErrCitation) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: got %v, want ErrCitation saying %q", tt.c, err, tt.want)
		}
	}
}

// TestLocate: a quote is found in its chunk (the offsets of the part, its
// text), a missing or repeated quote and offsets outside the chunk give a
// reason, not an error.
func TestLocate(t *testing.T) {
	db := storetest.Open(t)
	text := "Claims are paid within 30 days. Claims are paid by transfer."
	nv := storetest.NewVersion("p.txt", text, 0)
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	id := store.ChunkID(nv.Version.ID, 0)
	twenty, forty, seventy := 20, 40, 70
	for _, tt := range []struct {
		c             resolve.CitationRequest
		match, reason string
		text          string
	}{
		{resolve.CitationRequest{ChunkID: id, Quote: "within 30 days"}, "exact", "", "within 30 days"},
		{resolve.CitationRequest{ChunkID: id, Quote: "within  30\ndays"}, "whitespace", "", "within 30 days"},
		{resolve.CitationRequest{ChunkID: id, Quote: "within 60 weeks"}, "none", "quote_not_found", ""},
		{resolve.CitationRequest{ChunkID: id, Quote: "Claims are paid"}, "exact", "quote_ambiguous", ""},
		{resolve.CitationRequest{ChunkID: id, SourceStart: &twenty, SourceEnd: &forty}, "offsets", "", text[20:40]},
		{resolve.CitationRequest{ChunkID: id, SourceStart: &twenty, SourceEnd: &seventy}, "none", "offsets_outside_chunk", ""},
	} {
		err := db.View(func(tx *store.Tx) error {
			r, err := resolve.ChunkTx(tx, id, "")
			if err != nil {
				return err
			}
			got, err := resolve.Locate(tx, r, tt.c)
			if err != nil {
				return err
			}
			if got.Match != tt.match || got.Reason != tt.reason || got.Text != tt.text {
				t.Errorf("%+v: got match %q reason %q text %q, want %q %q %q", tt.c, got.Match, got.Reason, got.Text, tt.match, tt.reason, tt.text)
			}
			if tt.reason == "" && got.Link == nil {
				t.Errorf("%+v: no deep link", tt.c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
