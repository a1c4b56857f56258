package providers

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// The Responses API: output items, among them messages whose output_text
// parts carry annotations, and file_search_call items whose results (with
// include: ["file_search_call.results"]) hold the retrieved text.
type openaiResponse struct {
	ID     string            `json:"id"`
	Object string            `json:"object"`
	Output []json.RawMessage `json:"output"`
	// An Assistants message, or a list of them.
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
	Data    []json.RawMessage `json:"data"`
}

type openaiItem struct {
	Type    string            `json:"type"`
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
	Results []struct {
		FileID   string `json:"file_id"`
		Filename string `json:"filename"`
		Text     string `json:"text"`
	} `json:"results"`
}

type openaiContent struct {
	Type        string            `json:"type"`
	Text        json.RawMessage   `json:"text"` // a string (Responses), an object (Assistants)
	Annotations []json.RawMessage `json:"annotations"`
}

type openaiAnnotation struct {
	Type     string `json:"type"`
	FileID   string `json:"file_id"`
	Filename string `json:"filename"`
	// Index is where the citation stands in the text (Responses
	// file_citation): its marker was taken out there.
	Index      *int   `json:"index"`
	StartIndex *int   `json:"start_index"`
	EndIndex   *int   `json:"end_index"`
	URL        string `json:"url"`
	// Assistants: the marker text at [start_index, end_index), and the file.
	Text         string `json:"text"`
	FileCitation *struct {
		FileID string `json:"file_id"`
		Quote  string `json:"quote"` // Assistants v1; v2 dropped it
	} `json:"file_citation"`
}

func (p *parser) openai(b []byte) (*Answer, error) {
	var r openaiResponse
	if err := p.decode(b, &r, ""); err != nil {
		return nil, err
	}
	switch {
	case r.Output != nil || r.Object == "response":
		return p.openaiResponses(&r)
	case r.Object == "thread.message" || r.Content != nil && r.Role != "":
		a := &Answer{ID: r.ID}
		return a, p.assistantsMessage(a, r.Content, "")
	case r.Object == "list" || r.Data != nil:
		a := &Answer{ID: r.ID}
		for i, raw := range r.Data {
			item := fmt.Sprintf("data[%d]", i)
			var m openaiResponse
			if err := p.decode(raw, &m, item); err != nil {
				return nil, err
			}
			if m.Role != "assistant" {
				continue
			}
			if a.ID == "" {
				a.ID = m.ID
			}
			if err := p.assistantsMessage(a, m.Content, item+"."); err != nil {
				return nil, err
			}
		}
		return a, nil
	}
	return nil, p.errorf("", "neither a Responses API response (object \"response\", output) nor an Assistants message (object \"thread.message\") or list of messages")
}

// openaiResponses reads a Responses API response. A file_citation stands
// at an index: its claim is the text from the previous citation (or the
// start of the line) to it, and its quote the file search result of the
// file it names that best fits the claim (fileCitation.citations).
func (p *parser) openaiResponses(r *openaiResponse) (*Answer, error) {
	a := &Answer{ID: r.ID}
	results := map[string][]searchResult{} // by file id
	items := make([]openaiItem, len(r.Output))
	for i, raw := range r.Output {
		item := fmt.Sprintf("output[%d]", i)
		if err := p.decode(raw, &items[i], item); err != nil {
			return nil, err
		}
		if items[i].Type == "file_search_call" {
			for j, res := range items[i].Results {
				if res.FileID != "" && strings.TrimSpace(res.Text) != "" {
					results[res.FileID] = append(results[res.FileID], searchResult{fmt.Sprintf("%s.results[%d]", item, j), res.Text})
				}
			}
		}
	}
	var text strings.Builder
	for i, it := range items {
		if it.Type != "message" || it.Role != "" && it.Role != "assistant" {
			continue
		}
		for j, raw := range it.Content {
			item := fmt.Sprintf("output[%d].content[%d]", i, j)
			var c openaiContent
			if err := p.decode(raw, &c, item); err != nil {
				return nil, err
			}
			if c.Type != "output_text" {
				continue // refusals and other parts are not cited prose
			}
			var s string
			if err := json.Unmarshal(c.Text, &s); err != nil {
				return nil, p.errorf(item, "output_text without a text string")
			}
			if text.Len() > 0 {
				text.WriteString("\n\n")
			}
			text.WriteString(s)
			var at []fileCitation
			for k, raw := range c.Annotations {
				aItem := fmt.Sprintf("%s.annotations[%d]", item, k)
				var an openaiAnnotation
				if err := p.decode(raw, &an, aItem); err != nil {
					return nil, err
				}
				switch an.Type {
				case "file_citation":
					if an.Index == nil || an.FileID == "" {
						return nil, p.errorf(aItem, "file_citation without index and file_id")
					}
					if _, ok := byteOffset(s, *an.Index, p.unit); !ok {
						return nil, p.errorf(aItem, "index %d does not fall on a character of the %d-%s text (offset_unit %s)", *an.Index, length(s, p.unit), unitNoun(p.unit), p.unit)
					}
					at = append(at, fileCitation{pos: *an.Index, item: aItem, file: an.FileID, keys: keys(an.FileID, an.Filename)})
				case "url_citation", "container_file_citation":
					if an.StartIndex == nil || an.EndIndex == nil {
						return nil, p.errorf(aItem, "%s without start_index and end_index", an.Type)
					}
					cited, err := p.answerSpan(aItem, s, *an.StartIndex, *an.EndIndex, "")
					if err != nil {
						return nil, err
					}
					cl := Claim{Item: aItem, Text: claimText(cited), Citations: []Citation{{Item: aItem, Keys: keys(an.URL, an.FileID, an.Filename)}}}
					if cl.Text == "" {
						return nil, p.errorf(aItem, "%s cites a blank part of the text", an.Type)
					}
					a.Claims = append(a.Claims, cl)
				case "file_path":
					// a link to a file the model made, not a citation
				default:
					return nil, p.errorf(aItem, "annotation type %q: want file_citation, url_citation, container_file_citation or file_path", an.Type)
				}
			}
			sort.SliceStable(at, func(x, y int) bool { return at[x].pos < at[y].pos })
			prev, first := 0, len(a.Claims)
			for _, g := range at {
				end, _ := byteOffset(s, g.pos, p.unit)
				start := max(prev, strings.LastIndexByte(s[:end], '\n')+1)
				cl := claimText(s[start:end])
				switch {
				case cl != "":
					a.Claims = append(a.Claims, Claim{Item: g.item, Text: cl})
				case len(a.Claims) == first:
					return nil, p.errorf(g.item, "file_citation at index %d cites no text before it", g.pos)
				}
				// Citations side by side cite the same text.
				last := &a.Claims[len(a.Claims)-1]
				last.Citations = append(last.Citations, g.citations(last.Text, results[g.file])...)
				prev = end
			}
		}
	}
	a.Text = text.String()
	return a, nil
}

// assistantsMessage reads an Assistants message: annotation markers
// ("【4:0†source】") stand in the text at [start_index, end_index); each
// file_citation's claim is the text before its marker, from the previous
// marker or the start of the line, and the markers are taken out of the
// answer.
func (p *parser) assistantsMessage(a *Answer, content []json.RawMessage, prefix string) error {
	for j, raw := range content {
		item := fmt.Sprintf("%scontent[%d]", prefix, j)
		var c openaiContent
		if err := p.decode(raw, &c, item); err != nil {
			return err
		}
		if c.Type != "text" {
			continue
		}
		var t struct {
			Value       string            `json:"value"`
			Annotations []json.RawMessage `json:"annotations"`
		}
		if err := json.Unmarshal(c.Text, &t); err != nil {
			return p.errorf(item, "text content without a text object {value, annotations}")
		}
		type marker struct {
			bs, be int
			cit    *Citation
		}
		var ms []marker
		for k, raw := range t.Annotations {
			aItem := fmt.Sprintf("%s.text.annotations[%d]", item, k)
			var an openaiAnnotation
			if err := p.decode(raw, &an, aItem); err != nil {
				return err
			}
			if an.Type == "file_path" {
				continue
			}
			if an.Type != "file_citation" {
				return p.errorf(aItem, "annotation type %q: want file_citation or file_path", an.Type)
			}
			if an.StartIndex == nil || an.EndIndex == nil || an.FileCitation == nil || an.FileCitation.FileID == "" {
				return p.errorf(aItem, "file_citation without start_index, end_index and file_citation.file_id")
			}
			if _, err := p.answerSpan(aItem, t.Value, *an.StartIndex, *an.EndIndex, an.Text); err != nil {
				return err
			}
			bs, be, _ := span(t.Value, *an.StartIndex, *an.EndIndex, p.unit)
			ms = append(ms, marker{bs, be, &Citation{Item: aItem, Keys: []string{an.FileCitation.FileID}, Quote: an.FileCitation.Quote}})
		}
		sort.SliceStable(ms, func(x, y int) bool { return ms[x].bs < ms[y].bs })
		var text strings.Builder
		prev, first := 0, len(a.Claims)
		for _, m := range ms {
			if m.bs < prev {
				return p.errorf(m.cit.Item, "marker overlaps the one before it")
			}
			start := max(prev, strings.LastIndexByte(t.Value[:m.bs], '\n')+1)
			text.WriteString(t.Value[prev:m.bs])
			cl := claimText(t.Value[start:m.bs])
			switch {
			case cl != "":
				a.Claims = append(a.Claims, Claim{Item: m.cit.Item, Text: cl, Citations: []Citation{*m.cit}})
			case len(a.Claims) > first:
				last := &a.Claims[len(a.Claims)-1]
				last.Citations = append(last.Citations, *m.cit)
			default:
				return p.errorf(m.cit.Item, "file_citation cites no text before its marker")
			}
			prev = m.be
		}
		text.WriteString(t.Value[prev:])
		if a.Text != "" {
			a.Text += "\n\n"
		}
		a.Text += text.String()
	}
	return nil
}

// fileCitation is a Responses API file_citation, before its claim is known.
type fileCitation struct {
	pos        int // where it stands in the text, in the parser's unit
	item, file string
	keys       []string
}

// searchResult is the text a file search retrieved from a file.
type searchResult struct{ item, text string }

// citations returns the citation's evidence for a claim: the file's search
// result that shares the most words with the claim (all of those that tie),
// since the citation names the file, not which of its results; none when
// the response holds no results for the file.
func (g fileCitation) citations(claim string, results []searchResult) []Citation {
	best, top := -1, []searchResult(nil)
	cw := words(claim)
	for _, r := range results {
		n := 0
		rw := words(r.text)
		for w := range cw {
			if rw[w] {
				n++
			}
		}
		switch {
		case n > best:
			best, top = n, []searchResult{r}
		case n == best:
			top = append(top, r)
		}
	}
	if len(top) == 0 {
		return []Citation{{Item: g.item, Keys: g.keys}}
	}
	out := make([]Citation, len(top))
	for i, r := range top {
		out[i] = Citation{Item: g.item + " with " + r.item, Keys: g.keys, Quote: r.text}
	}
	return out
}

// words returns the lower-cased runs of letters and digits of s.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}
