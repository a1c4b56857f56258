package providers

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A generateContent response (Gemini API and Vertex AI): the first
// candidate's parts hold the text, its groundingMetadata the grounding
// chunks (web pages, retrieved contexts) and the supports, each a segment
// of a part ([startIndex, endIndex) in UTF-8 bytes, and its text) with the
// indices of the chunks that support it. Proto3 JSON leaves out zero
// values: a missing startIndex or partIndex is 0.
type geminiResponse struct {
	ResponseID string `json:"responseId"`
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text    *string `json:"text"`
				Thought bool    `json:"thought"`
			} `json:"parts"`
		} `json:"content"`
		GroundingMetadata *struct {
			GroundingChunks   []json.RawMessage `json:"groundingChunks"`
			GroundingSupports []json.RawMessage `json:"groundingSupports"`
		} `json:"groundingMetadata"`
	} `json:"candidates"`
}

type geminiChunk struct {
	Web *struct {
		URI   string `json:"uri"`
		Title string `json:"title"`
	} `json:"web"`
	RetrievedContext *struct {
		URI          string `json:"uri"`
		Title        string `json:"title"`
		Text         string `json:"text"`
		DocumentName string `json:"documentName"`
		RagChunk     *struct {
			Text     string `json:"text"`
			PageSpan *struct {
				FirstPage int `json:"firstPage"` // from 1, inclusive
				LastPage  int `json:"lastPage"`  // inclusive
			} `json:"pageSpan"`
		} `json:"ragChunk"`
	} `json:"retrievedContext"`
}

type geminiSupport struct {
	Segment *struct {
		PartIndex  int    `json:"partIndex"`
		StartIndex int    `json:"startIndex"`
		EndIndex   int    `json:"endIndex"`
		Text       string `json:"text"`
	} `json:"segment"`
	GroundingChunkIndices []int `json:"groundingChunkIndices"`
}

func (p *parser) gemini(b []byte) (*Answer, error) {
	// The Python SDK's model_dump() writes the same fields in snake_case.
	b, err := camelKeys(b)
	if err != nil {
		return nil, p.errorf("", "malformed JSON: %v", err)
	}
	var r geminiResponse
	if err := p.decode(b, &r, ""); err != nil {
		return nil, err
	}
	if len(r.Candidates) == 0 {
		return nil, p.errorf("", "no candidates: want a generateContent response")
	}
	cand := r.Candidates[0]
	a := &Answer{ID: r.ResponseID}
	parts := make([]string, len(cand.Content.Parts))
	var text strings.Builder
	for i, pt := range cand.Content.Parts {
		if pt.Text != nil && !pt.Thought {
			parts[i] = *pt.Text
			text.WriteString(*pt.Text)
		}
	}
	a.Text = text.String()
	gm := cand.GroundingMetadata
	if gm == nil {
		return a, nil
	}
	chunks := make([]geminiChunk, len(gm.GroundingChunks))
	for i, raw := range gm.GroundingChunks {
		if err := p.decode(raw, &chunks[i], fmt.Sprintf("groundingChunks[%d]", i)); err != nil {
			return nil, err
		}
	}
	for i, raw := range gm.GroundingSupports {
		item := fmt.Sprintf("groundingSupports[%d]", i)
		var s geminiSupport
		if err := p.decode(raw, &s, item); err != nil {
			return nil, err
		}
		if s.Segment == nil {
			return nil, p.errorf(item, "support without a segment")
		}
		seg := s.Segment
		if seg.PartIndex < 0 || seg.PartIndex >= len(parts) {
			return nil, p.errorf(item, "segment partIndex %d: the candidate has %d parts", seg.PartIndex, len(parts))
		}
		cited, err := p.answerSpan(item+".segment", parts[seg.PartIndex], seg.StartIndex, seg.EndIndex, seg.Text)
		if err != nil {
			return nil, err
		}
		cl := Claim{Item: item, Text: claimText(cited)}
		if cl.Text == "" {
			return nil, p.errorf(item, "segment [%d, %d) of part %d is blank", seg.StartIndex, seg.EndIndex, seg.PartIndex)
		}
		if len(s.GroundingChunkIndices) == 0 {
			return nil, p.errorf(item, "support without groundingChunkIndices")
		}
		for j, ci := range s.GroundingChunkIndices {
			cItem := fmt.Sprintf("%s.groundingChunkIndices[%d]", item, j)
			if ci < 0 || ci >= len(chunks) {
				return nil, p.errorf(cItem, "grounding chunk %d: the response has %d", ci, len(chunks))
			}
			c := Citation{Item: fmt.Sprintf("%s (groundingChunks[%d])", cItem, ci), Keys: []string{strconv.Itoa(ci)}}
			switch ch := chunks[ci]; {
			case ch.RetrievedContext != nil:
				rc := ch.RetrievedContext
				c.Keys = keys(c.Keys[0], rc.URI, rc.DocumentName, rc.Title)
				c.Quote = rc.Text
				if rg := rc.RagChunk; rg != nil {
					if c.Quote == "" {
						c.Quote = rg.Text
					}
					if ps := rg.PageSpan; ps != nil && ps.FirstPage >= 1 && ps.LastPage >= ps.FirstPage {
						c.Pages = &Pages{First: ps.FirstPage, End: ps.LastPage + 1}
					}
				}
			case ch.Web != nil:
				c.Keys = keys(c.Keys[0], ch.Web.URI, ch.Web.Title)
			}
			cl.Citations = append(cl.Citations, c)
		}
		a.Claims = append(a.Claims, cl)
	}
	return a, nil
}

// camelKeys rewrites the object keys of a JSON document from snake_case
// to camelCase ("grounding_supports" → "groundingSupports"), leaving
// values alone.
func camelKeys(b []byte) ([]byte, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	if !hasSnake(v) {
		return b, nil
	}
	return json.Marshal(camel(v))
}

func hasSnake(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if strings.Contains(k, "_") || hasSnake(x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if hasSnake(x) {
				return true
			}
		}
	}
	return false
}

func camel(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			parts := strings.Split(k, "_")
			for i := 1; i < len(parts); i++ {
				if p := parts[i]; p != "" {
					parts[i] = strings.ToUpper(p[:1]) + p[1:]
				}
			}
			out[strings.Join(parts, "")] = camel(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = camel(x)
		}
	}
	return v
}
