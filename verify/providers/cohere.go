package providers

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Cohere's v2 chat response: message.content holds the text, and each of
// message.citations a span of it ([start, end), with its text) and the
// sources it rests on, each a document (or tool output) with an id and the
// fields the application passed. v1 responses keep the text, the
// citations (with document_ids) and the documents at the top level.
type cohereResponse struct {
	ID      string `json:"id"`
	Message *struct {
		Content   []json.RawMessage `json:"content"`
		Citations []json.RawMessage `json:"citations"`
	} `json:"message"`
	// v1
	Text         *string           `json:"text"`
	GenerationID string            `json:"generation_id"`
	ResponseID   string            `json:"response_id"`
	Citations    []json.RawMessage `json:"citations"`
	Documents    []map[string]any  `json:"documents"`
}

type cohereCitation struct {
	Start        *int              `json:"start"`
	End          *int              `json:"end"`
	Text         *string           `json:"text"`
	Type         string            `json:"type"`
	ContentIndex int               `json:"content_index"`
	Sources      []json.RawMessage `json:"sources"`
	DocumentIDs  []string          `json:"document_ids"` // v1
}

type cohereSource struct {
	Type       string         `json:"type"`
	ID         string         `json:"id"`
	Document   map[string]any `json:"document"`
	ToolOutput map[string]any `json:"tool_output"`
}

// cohereQuoteFields are the document fields that hold its text, tried in
// order: Cohere's examples pass snippet or text.
var cohereQuoteFields = []string{"text", "snippet", "content", "chunk"}

func cohereQuote(doc map[string]any) string {
	for _, k := range cohereQuoteFields {
		if s, ok := doc[k].(string); ok && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func (p *parser) cohere(b []byte) (*Answer, error) {
	var r cohereResponse
	if err := p.decode(b, &r, ""); err != nil {
		return nil, err
	}
	a := &Answer{ID: r.ID}
	var texts []string // by content index
	var cits []json.RawMessage
	prefix := "message."
	switch {
	case r.Message != nil:
		for i, raw := range r.Message.Content {
			var c struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := p.decode(raw, &c, fmt.Sprintf("message.content[%d]", i)); err != nil {
				return nil, err
			}
			if c.Type != "text" {
				c.Text = "" // thinking, tool plans: not the answer
			}
			texts = append(texts, c.Text)
		}
		cits = r.Message.Citations
	case r.Text != nil:
		texts, cits, prefix = []string{*r.Text}, r.Citations, ""
		a.ID = firstOf(r.ResponseID, r.GenerationID, r.ID)
	default:
		return nil, p.errorf("", "neither a v2 chat response (message with content and citations) nor a v1 one (text, citations)")
	}
	var answer []string
	for _, t := range texts {
		if t != "" {
			answer = append(answer, t)
		}
	}
	a.Text = strings.Join(answer, "\n\n")
	docs := map[string]map[string]any{} // v1 documents by id
	for _, d := range r.Documents {
		if id, ok := d["id"].(string); ok {
			docs[id] = d
		}
	}
	bySpan := map[[3]int]int{} // (content index, start, end) → claim
	for i, raw := range cits {
		item := fmt.Sprintf("%scitations[%d]", prefix, i)
		var c cohereCitation
		if err := p.decode(raw, &c, item); err != nil {
			return nil, err
		}
		if c.Type != "" && c.Type != "TEXT_CONTENT" {
			continue // a citation of the model's plan or thinking, not of the answer
		}
		if c.Start == nil || c.End == nil {
			return nil, p.errorf(item, "citation without start and end")
		}
		if c.ContentIndex < 0 || c.ContentIndex >= len(texts) {
			return nil, p.errorf(item, "content_index %d: the message has %d content items", c.ContentIndex, len(texts))
		}
		want := ""
		if c.Text != nil {
			want = *c.Text
		}
		cited, err := p.answerSpan(item, texts[c.ContentIndex], *c.Start, *c.End, want)
		if err != nil {
			return nil, err
		}
		var out []Citation
		for j, raw := range c.Sources {
			sItem := fmt.Sprintf("%s.sources[%d]", item, j)
			var s cohereSource
			if err := p.decode(raw, &s, sItem); err != nil {
				return nil, err
			}
			doc := s.Document
			if s.Type == "tool" || doc == nil {
				doc = s.ToolOutput
			}
			docID, _ := doc["id"].(string)
			ks := keys(s.ID, docID)
			if len(ks) == 0 {
				return nil, p.errorf(sItem, "source without an id")
			}
			out = append(out, Citation{Item: sItem, Keys: ks, Quote: cohereQuote(doc)})
		}
		for j, id := range c.DocumentIDs {
			sItem := fmt.Sprintf("%s.document_ids[%d]", item, j)
			d, ok := docs[id]
			if !ok {
				return nil, p.errorf(sItem, "document %q is not among the response's documents", id)
			}
			out = append(out, Citation{Item: sItem, Keys: []string{id}, Quote: cohereQuote(d)})
		}
		if len(out) == 0 {
			return nil, p.errorf(item, "citation without sources")
		}
		k := [3]int{c.ContentIndex, *c.Start, *c.End}
		if n, ok := bySpan[k]; ok {
			a.Claims[n].Citations = append(a.Claims[n].Citations, out...)
			continue
		}
		cl := Claim{Item: item, Text: claimText(cited), Citations: out}
		if cl.Text == "" {
			return nil, p.errorf(item, "citation of a blank part of the text")
		}
		bySpan[k] = len(a.Claims)
		a.Claims = append(a.Claims, cl)
	}
	return a, nil
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
