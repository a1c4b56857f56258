package verify

import (
	"testing"
)

// FuzzJudgeAnswer: whatever a judge answers, the verifier does not panic,
// and what it takes for a verdict is one.
func FuzzJudgeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"label":"supported","score":0.9,"fragment":"x"}`,
		`{"label":"maybe","score":2}`,
		`{"choices":[{"message":{"content":"Yes"},"logprobs":{"content":[{"token":"Yes","logprob":-0.1,"top_logprobs":[{"token":"No","logprob":-2.4}]}]}}]}`,
		`{"choices":[{"message":{"content":"<think>x</think>` + "```json\\n{\\\"label\\\":\\\"contradicted\\\",\\\"score\\\":0}\\n```" + `"}}]}`,
		`{"choices":[]}`,
		`{"score":NaN}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for name, parse := range map[string]func([]byte) (JudgeVerdict, error){"plain": parseVerdict, "openai": parseChat} {
			v, err := parse(b)
			if err == nil {
				if cerr := checkVerdict(&v); cerr != nil {
					t.Fatalf("%s: %q gave verdict %+v that is not one: %v", name, b, v, cerr)
				}
			}
		}
		if v, ok := decodeJudgment(b); ok {
			if w, ok := decodeJudgment(encodeJudgment(&v)); !ok || w != v {
				t.Fatalf("stored verdict %+v does not round-trip: %+v", v, w)
			}
		}
	})
}
