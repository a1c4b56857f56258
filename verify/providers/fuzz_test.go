package providers

import (
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzParse: provider files are outside input. Whatever the bytes, Parse
// never panics, and what it returns keeps its promises: claims with text
// and citations, citations with keys, ranges and pages in order.
func FuzzParse(f *testing.F) {
	for i, name := range []string{"anthropic-char.json", "anthropic-page.json", "openai-responses.json", "openai-assistants.json", "cohere-v2.json", "gemini.json"} {
		f.Add(readFixture(f, name), uint8(i), uint8(0))
	}
	f.Add([]byte(`{"response_id":"r","text":"é","citations":[{"start":0,"end":1,"text":"é","document_ids":["d"]}],"documents":[{"id":"d","text":"é"}]}`), uint8(4), uint8(2))
	formats := []Format{Anthropic, Anthropic, OpenAI, OpenAI, Cohere, Gemini}
	f.Fuzz(func(t *testing.T, b []byte, format, unit uint8) {
		fm := formats[int(format)%len(formats)]
		u := Units[int(unit)%len(Units)]
		a, err := Parse(fm, b, u)
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error not of the input: %v", err)
			}
			return
		}
		if len(a.Claims) == 0 {
			t.Fatal("an answer without claims")
		}
		for _, c := range a.Claims {
			if c.Text == "" || c.Item == "" || len(c.Citations) == 0 {
				t.Fatalf("claim %+v: want item, text and citations", c)
			}
			for _, ci := range c.Citations {
				if len(ci.Keys) == 0 || ci.Item == "" {
					t.Fatalf("citation %+v: want item and keys", ci)
				}
				if r := ci.Range; r != nil && (r.Start < 0 || r.End < r.Start) {
					t.Fatalf("range %+v", r)
				}
				if p := ci.Pages; p != nil && (p.First < 1 || p.End <= p.First) {
					t.Fatalf("pages %+v", p)
				}
			}
		}
		if utf8.ValidString(string(b)) && !utf8.ValidString(a.Text) {
			t.Fatalf("answer text %q is not UTF-8", a.Text)
		}
	})
}

// FuzzConvert: any quote, offsets (in any unit) and pages against a stored
// document with emoji, CJK and combining marks either convert to evidence
// the verifier can check (retrieved, servable chunks, offsets in them, an
// exact quote equal to the stored text there) or fail as bad input.
func FuzzConvert(f *testing.F) {
	db := newStore(f, 40, 4)
	m := mapOf(f, `{"0": {"document_id": "policy.txt"}, "1": {"document_id": "handbook.txt"}}`)
	f.Add("Meals 🍽️ are reimbursed", 0, 0, uint8(0), true, false, 0, 0, false)
	f.Add("出張報告は14日以内", 121, 131, uint8(0), true, true, 0, 0, false)
	f.Add("Remote work 🏠", 0, 0, uint8(1), false, false, 2, 3, true)
	f.Add("q\u0303 applies", 273, 284, uint8(2), true, true, 0, 0, false)
	f.Fuzz(func(t *testing.T, quote string, start, end int, unit uint8, doc0, ranged bool, first, last int, paged bool) {
		ci := Citation{Item: "c", Keys: []string{"1"}, Quote: quote}
		if doc0 {
			ci.Keys = []string{"0"}
		}
		if ranged {
			if start < 0 || end < start {
				return // Parse refuses these
			}
			ci.Range = &Range{start, end, Units[int(unit)%len(Units)]}
		}
		if paged {
			if first < 1 || last <= first {
				return
			}
			ci.Pages = &Pages{first, last}
		}
		a := &Answer{Format: Anthropic, Claims: []Claim{{Item: "k", Text: "claim", Citations: []Citation{ci}}}}
		req, err := Convert(db, a, m, Options{})
		if err != nil {
			if !errors.Is(err, ErrInput) {
				t.Fatalf("error not of the input: %v", err)
			}
			return
		}
		checkEvidenceOf(t, db, req, !ranged)
	})
}
