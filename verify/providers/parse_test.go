package providers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// brief is what a parse test compares: each claim's item and text, and
// each citation's item, keys, quote and coordinates.
type brief struct {
	Item, Text string
	Cits       []citBrief
}

type citBrief struct {
	Item  string
	Keys  []string
	Quote string
	Range *Range
	Pages *Pages
}

func briefs(a *Answer) []brief {
	var out []brief
	for _, c := range a.Claims {
		b := brief{Item: c.Item, Text: c.Text}
		for _, ci := range c.Citations {
			b.Cits = append(b.Cits, citBrief(ci))
		}
		out = append(out, b)
	}
	return out
}

// cpRange returns the code-point range of sub in s, the unit fixtures are written in.
func cpRange(t testing.TB, s, sub string, u Unit) *Range {
	t.Helper()
	i := strings.Index(s, sub)
	if i < 0 {
		t.Fatalf("%q not in %q", sub, s)
	}
	return &Range{Start: length(s[:i], u), End: length(s[:i+len(sub)], u), Unit: u}
}

func TestParseAnthropic(t *testing.T) {
	policy := string(readFixture(t, "docs/policy.txt"))
	c1 := "Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip."
	c2 := "Meals 🍽️ are reimbursed up to EUR 60 per day; the café rule q\u0303 applies to team dinners."
	c3 := "出張報告は14日以内に提出してください。"
	for _, u := range []Unit{CodePoint, UTF16} {
		file := map[Unit]string{CodePoint: "anthropic-char.json", UTF16: "anthropic-char-utf16.json"}[u]
		a, err := Parse(Anthropic, readFixture(t, file), u)
		if err != nil {
			t.Fatal(err)
		}
		want := []brief{
			{"content[1]", "expense reports must be submitted within 14 calendar days of the end of the trip",
				[]citBrief{{"content[1].citations[0]", []string{"0"}, c1, cpRange(t, policy, c1, u), nil}}},
			{"content[3]", "Meals are reimbursed up to EUR 60 per day",
				[]citBrief{{"content[3].citations[0]", []string{"0"}, c2, cpRange(t, policy, c2, u), nil}}},
			{"content[5]", "出張報告は14日以内に提出してください",
				[]citBrief{{"content[5].citations[0]", []string{"0"}, c3, cpRange(t, policy, c3, u), nil}}},
		}
		if diff := cmp.Diff(want, briefs(a)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", file, diff)
		}
		if a.ID != "msg_01XFDUDYJgAACzvnptvVoYEL" || !strings.HasPrefix(a.Text, "According to the travel policy, expense reports") || !strings.HasSuffix(a.Text, "提出してください.") {
			t.Errorf("id %q, text %q", a.ID, a.Text)
		}
	}

	a, err := Parse(Anthropic, readFixture(t, "anthropic-page.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{"content[1]", "remote work is allowed two days per week with the manager's approval", []citBrief{{"content[1].citations[0]", []string{"1"},
			"Chapter 2. Remote work 🏠 is allowed two days per week with the manager's approval.\n", nil, &Pages{2, 3}}}},
		{"content[3]", "annual leave is 25 days per year", []citBrief{{"content[3].citations[0]", []string{"1"},
			"Chapter 3. Annual leave is 25 days per year;", nil, &Pages{3, 4}}}},
		{"content[5]", "Hotels in Zürich are capped at CHF 240 per night", []citBrief{{"content[5].citations[0]", []string{"kb://travel/policy#4"},
			"Hotels in Zürich are capped at CHF 240 per night", nil, nil}}},
		{"content[7]", "Business class is allowed only for flights over six hours", []citBrief{{"content[7].citations[0]", []string{"2"},
			"Business class is allowed only for flights over six hours.", nil, nil}}},
	}
	if diff := cmp.Diff(want, briefs(a)); diff != "" {
		t.Errorf("anthropic-page.json (-want +got):\n%s", diff)
	}
}

func TestParseOpenAI(t *testing.T) {
	r1 := "Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip."
	r2 := "Hotels in Zürich are capped at CHF 240 per night 🏨."
	keys := []string{"file-2dtbBZdjtDKS8eqWxqbgDi", "policy.txt"}
	a, err := Parse(OpenAI, readFixture(t, "openai-responses.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	// Each file_citation is the text before its index, and its evidence the
	// file's search result that shares the most words with it.
	a0, a1 := "output[1].content[0].annotations[0]", "output[1].content[0].annotations[1]"
	want := []brief{
		{a0, "Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip",
			[]citBrief{{a0 + " with output[0].results[0]", keys, r1, nil, nil}}},
		{a1, "Hotels in Zürich 🏨 are capped at CHF 240 per night",
			[]citBrief{{a1 + " with output[0].results[1]", keys, r2, nil, nil}}},
	}
	if diff := cmp.Diff(want, briefs(a)); diff != "" {
		t.Errorf("openai-responses.json (-want +got):\n%s", diff)
	}

	a, err = Parse(OpenAI, readFixture(t, "openai-responses-noresults.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Claims) != 2 || a.Claims[0].Citations[0].Quote != "" || a.Claims[0].Item != a0 {
		t.Errorf("without results: got %+v, want two claims citing the file without a quote", briefs(a))
	}

	a, err = Parse(OpenAI, readFixture(t, "openai-assistants.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	b0, b1 := "content[0].text.annotations[0]", "content[0].text.annotations[1]"
	want = []brief{
		{b0, "Meals 🍽️ are reimbursed up to EUR 60 per day", []citBrief{{b0, []string{"file-policy"}, "Meals 🍽️ are reimbursed up to EUR 60 per day", nil, nil}}},
		{b1, "Remote work is allowed two days per week", []citBrief{{b1, []string{"file-handbook-ch2"}, "", nil, nil}}},
	}
	if diff := cmp.Diff(want, briefs(a)); diff != "" {
		t.Errorf("openai-assistants.json (-want +got):\n%s", diff)
	}
	if a.Text != "Meals 🍽️ are reimbursed up to EUR 60 per day. Remote work is allowed two days per week." {
		t.Errorf("markers left in the answer: %q", a.Text)
	}
}

func TestParseCohere(t *testing.T) {
	a, err := Parse(Cohere, readFixture(t, "cohere-v2.json"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{"message.citations[0]", "due within 14 calendar days", []citBrief{{"message.citations[0].sources[0]", []string{"doc-expenses"},
			"Expense reports 🧾 must be submitted within 14 calendar days of the end of the trip.", nil, nil}}},
		{"message.citations[1]", "hotels in Zürich are capped at CHF 240 per night", []citBrief{{"message.citations[1].sources[0]", []string{"doc-hotels"},
			"Hotels in Zürich are capped at CHF 240 per night 🏨.", nil, nil}}},
	}
	if diff := cmp.Diff(want, briefs(a)); diff != "" {
		t.Errorf("cohere-v2.json (-want +got):\n%s", diff)
	}

	// v1: text, citations with document_ids, documents.
	v1 := `{"response_id": "r1", "text": "Meals 🍽️ cost up to EUR 60.", "citations": [{"start": 0, "end": 8, "text": "Meals 🍽️", "document_ids": ["doc_0"]}],
	 "documents": [{"id": "doc_0", "snippet": "Meals 🍽️ are reimbursed up to EUR 60 per day"}]}`
	a, err = Parse(Cohere, []byte(v1), "")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != "r1" || len(a.Claims) != 1 || a.Claims[0].Text != "Meals 🍽️" || a.Claims[0].Citations[0].Quote != "Meals 🍽️ are reimbursed up to EUR 60 per day" {
		t.Errorf("v1: got %q %+v", a.ID, briefs(a))
	}
}

func TestParseGemini(t *testing.T) {
	b := readFixture(t, "gemini.json")
	a, err := Parse(Gemini, b, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []brief{
		{"groundingSupports[0]", "報告は14日以内に提出します 🧾。", []citBrief{{"groundingSupports[0].groundingChunkIndices[0] (groundingChunks[0])",
			[]string{"0", "gs://kestrel-kb/policy.txt", "policy.txt"}, "出張報告は14日以内に提出してください。", nil, nil}}},
		{"groundingSupports[1]", "Hotels in Zürich are capped at CHF 240 per night 🏨.", []citBrief{{"groundingSupports[1].groundingChunkIndices[0] (groundingChunks[1])",
			[]string{"1", "gs://kestrel-kb/policy.txt", "policy.txt"}, "4. Hotels in Zürich are capped at CHF 240 per night 🏨.", nil, nil}}},
	}
	if diff := cmp.Diff(want, briefs(a)); diff != "" {
		t.Errorf("gemini.json (-want +got):\n%s", diff)
	}
	if a.ID != "mE2vaJ2uKdqgz7IPj9DWoQs" {
		t.Errorf("id %q", a.ID)
	}
	// The Python SDK's model_dump() writes snake_case; it reads the same.
	snake := strings.NewReplacer("groundingMetadata", "grounding_metadata", "groundingSupports", "grounding_supports",
		"groundingChunks", "grounding_chunks", "groundingChunkIndices", "grounding_chunk_indices", "retrievedContext", "retrieved_context",
		"endIndex", "end_index", "startIndex", "start_index", "responseId", "response_id").Replace(string(b))
	a2, err := Parse(Gemini, []byte(snake), "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(briefs(a), briefs(a2)); diff != "" {
		t.Errorf("snake_case (-camel +snake):\n%s", diff)
	}
}

// TestParseWrongUnit: offsets that hold the provider's text in another unit
// than the one given are refused with the unit that fits.
func TestParseWrongUnit(t *testing.T) {
	for _, tt := range []struct {
		f    Format
		file string
		unit Unit
		want string
	}{
		{Gemini, "gemini.json", CodePoint, "groundingSupports[0].segment: offsets [0, 46) hold \"報告は14日以内に提出します 🧾。\" counted in byte, not in code_point: set offset_unit byte"},
		{Gemini, "gemini.json", UTF16, "counted in byte, not in utf16"},
		{Cohere, "cohere-v2.json", Byte, "message.citations[1]: offsets [55, 103) hold \"hotels in Zürich are capped at CHF 240 per night\" counted in code_point, not in byte"},
		{OpenAI, "openai-assistants.json", Byte, "content[0].text.annotations[0]: offsets [44, 60) hold \"【4:0†policy.txt】\" counted in code_point, not in byte"},
	} {
		_, err := Parse(tt.f, readFixture(t, tt.file), tt.unit)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s as %s: got %v, want an input error containing %q", tt.file, tt.unit, err, tt.want)
		}
	}
}

// TestParseBadInput: malformed provider files get an error naming the item.
func TestParseBadInput(t *testing.T) {
	for _, tt := range []struct {
		f          Format
		body, want string
	}{
		{Anthropic, `{"content": [`, "anthropic: malformed JSON"},
		{Anthropic, `{"id": "m"}`, "anthropic: no content array"},
		{Anthropic, `{"content": [{"type": "text", "text": "a"}]}`, "anthropic: the response cites nothing"},
		{Anthropic, `{"content": [{"type": "text", "text": "x", "citations": [{"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 5}]}]}`,
			"anthropic: content[0].citations[0]: char_location citation without start_char_index and end_char_index"},
		{Anthropic, `{"content": [{"type": "text", "text": "x", "citations": [{"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 5, "end_char_index": 2}]}]}`,
			"content[0].citations[0]: start_char_index 5 and end_char_index 2"},
		{Anthropic, `{"content": [{"type": "text", "text": "x", "citations": [{"type": "char_location", "document_index": 0, "start_char_index": 0, "end_char_index": 1}]}]}`,
			"content[0].citations[0]: char_location citation without cited_text"},
		{Anthropic, `{"content": [{"type": "text", "text": "x", "citations": [{"type": "page_location", "cited_text": "x", "document_index": 0, "start_page_number": 0, "end_page_number": 1}]}]}`,
			"start_page_number 0 and end_page_number 1: want 1 ≤"},
		{Anthropic, `{"content": [{"type": "text", "text": "x", "citations": [{"type": "hologram", "cited_text": "x"}]}]}`, `citation type "hologram"`},
		{Anthropic, `{"content": [{"type": "text", "text": "x", "citations": [{"type": "char_location", "cited_text": "x", "document_index": "0", "start_char_index": 0, "end_char_index": 1}]}]}`,
			"content[0].citations[0]: field document_index: JSON string where int was expected"},
		{Anthropic, `{"content": [{"type": "text", "text": "  ", "citations": [{"type": "search_result_location", "cited_text": "x", "source": "s"}]}]}`, "content[0]: cited text block is blank"},
		{OpenAI, `{"object": "response", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "abc", "annotations": [{"type": "file_citation", "file_id": "f", "index": 9}]}]}]}`,
			"openai: output[0].content[0].annotations[0]: index 9 does not fall on a character of the 3-code-point text"},
		{OpenAI, `{"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": "abc", "annotations": [{"type": "file_citation", "index": 1}]}]}]}`,
			"output[0].content[0].annotations[0]: file_citation without index and file_id"},
		{OpenAI, `{"object": "response", "output": [{"type": "message", "content": [{"type": "output_text", "text": "abc", "annotations": [{"type": "file_citation", "file_id": "f", "index": 0}]}]}]}`,
			"file_citation at index 0 cites no text before it"},
		{OpenAI, `{"hello": 1}`, "openai: neither a Responses API response"},
		{OpenAI, `{"object": "thread.message", "role": "assistant", "content": [{"type": "text", "text": {"value": "ab【1】", "annotations": [{"type": "file_citation", "text": "【2】", "start_index": 2, "end_index": 5, "file_citation": {"file_id": "f"}}]}}]}`,
			"content[0].text.annotations[0]: text \"【2】\" is not at [2, 5) of the answer"},
		{Cohere, `{"message": {"content": [{"type": "text", "text": "abc"}], "citations": [{"start": 0, "end": 2, "text": "ab", "sources": []}]}}`, "message.citations[0]: citation without sources"},
		{Cohere, `{"message": {"content": [{"type": "text", "text": "abc"}], "citations": [{"start": 0, "end": 7, "text": "ab", "sources": [{"type": "document", "id": "d"}]}]}}`,
			"message.citations[0]: offsets [0, 7) do not fall on characters of the 3-code-point answer text"},
		{Cohere, `{"message": {"content": [{"type": "text", "text": "abc"}], "citations": [{"start": 0, "end": 2, "text": "zz", "sources": [{"type": "document", "id": "d"}]}]}}`,
			"message.citations[0]: text \"zz\" is not at [0, 2) of the answer, which holds \"ab\" there"},
		{Cohere, `{"message": {"content": [{"type": "text", "text": "abc"}], "citations": [{"start": 0, "end": 2, "sources": [{"type": "document"}]}]}}`, "message.citations[0].sources[0]: source without an id"},
		{Gemini, `{"candidates": []}`, "gemini: no candidates"},
		{Gemini, `{"candidates": [{"content": {"parts": [{"text": "abc"}]}, "groundingMetadata": {"groundingChunks": [], "groundingSupports": [{"segment": {"endIndex": 2}, "groundingChunkIndices": [3]}]}}]}`,
			"groundingSupports[0].groundingChunkIndices[0]: grounding chunk 3: the response has 0"},
		{Gemini, `{"candidates": [{"content": {"parts": [{"text": "abc"}]}, "groundingMetadata": {"groundingSupports": [{"segment": {"partIndex": 2, "endIndex": 2}, "groundingChunkIndices": [0]}]}}]}`,
			"groundingSupports[0]: segment partIndex 2: the candidate has 1 parts"},
		{Gemini, `{"candidates": [{"content": {"parts": [{"text": "é"}]}, "groundingMetadata": {"groundingChunks": [{"web": {"uri": "u"}}], "groundingSupports": [{"segment": {"endIndex": 1}, "groundingChunkIndices": [0]}]}}]}`,
			"groundingSupports[0].segment: offsets [0, 1) do not fall on characters of the 2-byte answer text"},
	} {
		_, err := Parse(tt.f, []byte(tt.body), "")
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s:\ngot  %v\nwant an input error containing %q", tt.f, tt.body, err, tt.want)
		}
	}
	if _, err := Parse(Anthropic, readFixture(t, "anthropic-char.json"), "furlongs"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `offset_unit: "furlongs"`) {
		t.Errorf("bad unit: got %v", err)
	}
}

func TestUnits(t *testing.T) {
	// 🍽️ is two code points (U+1F37D, U+FE0F), three UTF-16 units, seven bytes;
	// q̃ two code points, two units, three bytes; 出 one, one, three.
	s := "a🍽️q\u0303出b"
	for _, tt := range []struct {
		u          Unit
		start, end int // of "出b"
		inside     int // an offset inside a character
	}{
		{CodePoint, 5, 7, -1},
		{UTF16, 6, 8, 2},
		{Byte, 11, 15, 2},
	} {
		bs, be, ok := span(s, tt.start, tt.end, tt.u)
		if !ok || s[bs:be] != "出b" {
			t.Errorf("%s [%d, %d): got %q %v, want 出b", tt.u, tt.start, tt.end, s[bs:be], ok)
		}
		if got := length(s, tt.u); got != tt.end {
			t.Errorf("%s: length %d, want %d", tt.u, got, tt.end)
		}
		if tt.inside >= 0 {
			if _, ok := byteOffset(s, tt.inside, tt.u); ok {
				t.Errorf("%s offset %d is inside a character, but converted", tt.u, tt.inside)
			}
		}
		if _, ok := byteOffset(s, tt.end+1, tt.u); ok {
			t.Errorf("%s offset past the end converted", tt.u)
		}
		if got := fitting(s, tt.start, tt.end, "出b", CodePoint); tt.u != CodePoint && !slicesContains(got, tt.u) {
			t.Errorf("fitting %s offsets: got %v, want %s among them", tt.u, got, tt.u)
		}
	}
}

func slicesContains(us []Unit, u Unit) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}
