package providers

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// The Messages API response: a message whose text blocks carry citations
// (docs.claude.com, Citations). Each text block with citations is a claim.
type anthropicMessage struct {
	ID      string            `json:"id"`
	Type    string            `json:"type"`
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type      string            `json:"type"`
	Text      *string           `json:"text"`
	Citations []json.RawMessage `json:"citations"`
}

type anthropicCitation struct {
	Type      string  `json:"type"`
	CitedText *string `json:"cited_text"`
	// char_location, page_location, content_block_location
	DocumentIndex   *int `json:"document_index"`
	StartCharIndex  *int `json:"start_char_index"` // 0-indexed
	EndCharIndex    *int `json:"end_char_index"`   // exclusive
	StartPageNumber *int `json:"start_page_number"`
	EndPageNumber   *int `json:"end_page_number"` // exclusive
	StartBlockIndex *int `json:"start_block_index"`
	EndBlockIndex   *int `json:"end_block_index"`
	// search_result_location
	Source string `json:"source"`
	// web_search_result_location
	URL string `json:"url"`
}

func (p *parser) anthropic(b []byte) (*Answer, error) {
	var m anthropicMessage
	if err := p.decode(b, &m, ""); err != nil {
		return nil, err
	}
	if m.Content == nil {
		return nil, p.errorf("", "no content array: want a Messages API response (a message with content blocks)")
	}
	if m.Type != "" && m.Type != "message" {
		return nil, p.errorf("type", "%q: want a message", m.Type)
	}
	a := &Answer{ID: m.ID}
	var text strings.Builder
	for i, raw := range m.Content {
		item := fmt.Sprintf("content[%d]", i)
		var blk anthropicBlock
		if err := p.decode(raw, &blk, item); err != nil {
			return nil, err
		}
		if blk.Type != "text" {
			if len(blk.Citations) > 0 {
				return nil, p.errorf(item, "a %q block carries citations: only text blocks are read", blk.Type)
			}
			continue // tool use, thinking, search results: not the answer's prose
		}
		if blk.Text == nil {
			return nil, p.errorf(item, "text block without text")
		}
		text.WriteString(*blk.Text)
		if len(blk.Citations) == 0 {
			continue
		}
		c := Claim{Item: item, Text: claimText(*blk.Text)}
		if c.Text == "" {
			return nil, p.errorf(item, "cited text block is blank")
		}
		for j, raw := range blk.Citations {
			ci, err := p.anthropicCitation(raw, fmt.Sprintf("%s.citations[%d]", item, j))
			if err != nil {
				return nil, err
			}
			c.Citations = append(c.Citations, ci)
		}
		a.Claims = append(a.Claims, c)
	}
	a.Text = text.String()
	return a, nil
}

func (p *parser) anthropicCitation(raw json.RawMessage, item string) (Citation, error) {
	var c anthropicCitation
	if err := p.decode(raw, &c, item); err != nil {
		return Citation{}, err
	}
	if c.CitedText == nil {
		return Citation{}, p.errorf(item, "%s citation without cited_text", c.Type)
	}
	out := Citation{Item: item, Quote: *c.CitedText}
	docIndex := func() error {
		if c.DocumentIndex == nil || *c.DocumentIndex < 0 {
			return p.errorf(item, "%s citation without a document_index of 0 or more", c.Type)
		}
		out.Keys = []string{strconv.Itoa(*c.DocumentIndex)}
		return nil
	}
	pair := func(s, e *int, sName, eName string, min int) error {
		switch {
		case s == nil || e == nil:
			return p.errorf(item, "%s citation without %s and %s", c.Type, sName, eName)
		case *s < min || *e < *s:
			return p.errorf(item, "%s %d and %s %d: want %d ≤ %s ≤ %s", sName, *s, eName, *e, min, sName, eName)
		}
		return nil
	}
	switch c.Type {
	case "char_location":
		if err := docIndex(); err != nil {
			return Citation{}, err
		}
		if err := pair(c.StartCharIndex, c.EndCharIndex, "start_char_index", "end_char_index", 0); err != nil {
			return Citation{}, err
		}
		out.Range = &Range{Start: *c.StartCharIndex, End: *c.EndCharIndex, Unit: p.unit}
	case "page_location":
		if err := docIndex(); err != nil {
			return Citation{}, err
		}
		if err := pair(c.StartPageNumber, c.EndPageNumber, "start_page_number", "end_page_number", 1); err != nil {
			return Citation{}, err
		}
		// end_page_number is exclusive; a citation within one page has end = start+1.
		out.Pages = &Pages{First: *c.StartPageNumber, End: max(*c.EndPageNumber, *c.StartPageNumber+1)}
	case "content_block_location":
		// The blocks are the application's own; the cited text locates them.
		if err := docIndex(); err != nil {
			return Citation{}, err
		}
		if err := pair(c.StartBlockIndex, c.EndBlockIndex, "start_block_index", "end_block_index", 0); err != nil {
			return Citation{}, err
		}
	case "search_result_location":
		if c.Source == "" {
			return Citation{}, p.errorf(item, "search_result_location without a source")
		}
		out.Keys = []string{c.Source}
	case "web_search_result_location":
		if c.URL == "" {
			return Citation{}, p.errorf(item, "web_search_result_location without a url")
		}
		out.Keys = []string{c.URL}
	default:
		return Citation{}, p.errorf(item, "citation type %q: want char_location, page_location, content_block_location, search_result_location or web_search_result_location", c.Type)
	}
	return out, nil
}
