package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/evidence-rag/evidence/resolve/match"
	"github.com/evidence-rag/evidence/verify"
)

// Format names a provider's response format.
type Format string

// The formats Parse reads.
const (
	Anthropic Format = "anthropic" // Messages API response (a message with text blocks and their citations)
	OpenAI    Format = "openai"    // Responses API response, or an Assistants message (or list of messages)
	Cohere    Format = "cohere"    // v2 chat response (v1 too)
	Gemini    Format = "gemini"    // generateContent response with groundingMetadata
)

// Formats lists the formats, for messages and flag help.
var Formats = []Format{Anthropic, OpenAI, Cohere, Gemini}

// ParseFormat reads a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", &InputError{Item: "from", Reason: fmt.Sprintf("%q: want anthropic, openai, cohere or gemini", s)}
}

// DefaultUnit is the unit of the format's offsets as its provider
// documents them, or as its SDKs count when the documentation is silent:
// Gemini's segment indices are UTF-8 bytes; Anthropic's character indices,
// OpenAI's and Cohere's indices are read as code points (Python's str).
func (f Format) DefaultUnit() Unit {
	if f == Gemini {
		return Byte
	}
	return CodePoint
}

// Answer is a provider's cited answer, in no provider's shape.
type Answer struct {
	Format Format
	ID     string // the provider's id of the response, the default request id
	Text   string // the answer as its reader sees it, citation markers removed
	Claims []Claim
}

// Claim is one cited part of the answer.
type Claim struct {
	Item      string // where it is in the provider's JSON: "content[3]"
	Text      string
	Citations []Citation
}

// Citation is one source a claim cites, as the provider names it.
type Citation struct {
	Item string // where it is in the provider's JSON: "content[3].citations[0]"
	// Keys are the map keys that may name the cited document, tried in
	// order: a document index ("0"), a file id then its file name, a
	// source id, a grounding chunk's index, URI and title.
	Keys []string
	// Quote is the provider's text of what is cited (Anthropic cited_text,
	// an OpenAI file search result, a Cohere document's text, a Gemini
	// retrieved context), "" when it gives none.
	Quote string
	// Range, when set, is where the quote is in the cited document: the
	// half-open offsets of an Anthropic char_location.
	Range *Range
	// Pages, when set, are the pages that hold the quote.
	Pages *Pages
}

// Range is a half-open offset range into a cited document's text.
type Range struct {
	Start, End int
	Unit       Unit
}

// Pages is a half-open range of pages, from 1: [First, End).
type Pages struct{ First, End int }

// Parse reads a provider's response. unit overrides the format's default
// unit of its offsets ("" keeps it). Every claim has text and at least one
// citation; every citation at least one key. A response with no citation
// is an error: there is nothing to verify.
func Parse(f Format, b []byte, unit Unit) (*Answer, error) {
	if len(b) > verify.MaxRequestBytes {
		return nil, inputf(f, "", "larger than %d bytes", verify.MaxRequestBytes)
	}
	if unit == "" {
		unit = f.DefaultUnit()
	}
	if _, err := ParseUnit(string(unit)); err != nil {
		return nil, err
	}
	p := parser{f: f, unit: unit}
	var a *Answer
	var err error
	switch f {
	case Anthropic:
		a, err = p.anthropic(b)
	case OpenAI:
		a, err = p.openai(b)
	case Cohere:
		a, err = p.cohere(b)
	case Gemini:
		a, err = p.gemini(b)
	default:
		_, err = ParseFormat(string(f))
	}
	if err != nil {
		return nil, err
	}
	a.Format = f
	if len(a.Claims) == 0 {
		return nil, inputf(f, "", "the response cites nothing: no claim to verify (were citations or grounding enabled?)")
	}
	return a, nil
}

// parser holds what every format's reader needs.
type parser struct {
	f    Format
	unit Unit
}

func (p *parser) errorf(item, format string, args ...any) error {
	return inputf(p.f, item, format, args...)
}

// decode reads one JSON value into v, naming the item on error.
func (p *parser) decode(b []byte, v any, item string) error {
	d := json.NewDecoder(bytes.NewReader(b))
	if err := d.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return p.errorf(item, "field %s: JSON %s where %s was expected", te.Field, te.Value, te.Type)
		}
		return p.errorf(item, "malformed JSON: %v", err)
	}
	if d.More() {
		return p.errorf(item, "malformed JSON: data after the response object")
	}
	return nil
}

// answerSpan returns text[start:end] for offsets into the answer counted in
// the parser's unit. want, when not "", is what the provider says they hold:
// it must be there (or equal once white space is folded), and when it is
// not but would be in another unit, the error names that unit.
func (p *parser) answerSpan(item, text string, start, end int, want string) (string, error) {
	bs, be, ok := span(text, start, end, p.unit)
	if ok && (want == "" || text[bs:be] == want || match.Fold(text[bs:be], match.LevelWhitespace) == match.Fold(want, match.LevelWhitespace)) {
		return text[bs:be], nil
	}
	if want != "" {
		if us := fitting(text, start, end, want, p.unit); len(us) > 0 {
			return "", p.errorf(item, "offsets [%d, %d) hold %q counted in %s, not in %s: set offset_unit %s", start, end, want, us[0], p.unit, us[0])
		}
	}
	if !ok {
		if end < start {
			return "", p.errorf(item, "offsets [%d, %d) are inverted", start, end)
		}
		return "", p.errorf(item, "offsets [%d, %d) do not fall on characters of the %d-%s answer text (offset_unit %s)", start, end, length(text, p.unit), unitNoun(p.unit), p.unit)
	}
	return "", p.errorf(item, "text %q is not at [%d, %d) of the answer, which holds %q there, nor at those offsets in any unit", excerpt(want), start, end, excerpt(text[bs:be]))
}

func unitNoun(u Unit) string {
	switch u {
	case Byte:
		return "byte"
	case UTF16:
		return "UTF-16-unit"
	}
	return "code-point"
}

// claimText trims a cited part of an answer to what it says: white space,
// and the punctuation a citation's position leaves at its start (". B is
// 6" after a citation that stood before the period of "A is 5.").
func claimText(s string) string {
	return strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), ".,;:!?)]}»”’ \t\n"))
}

// excerpt shortens s for a message.
func excerpt(s string) string {
	const n = 60
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// keys drops empty and repeated keys, keeping the order.
func keys(ks ...string) []string {
	var out []string
	for _, k := range ks {
		if k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
