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

// TestJudgmentSealed: a cached verdict with any one bit flipped is not read
// (the claim is judged again), so a damaged entry can never turn a verdict
// into another; an entry written before verdicts were sealed still reads.
func TestJudgmentSealed(t *testing.T) {
	v := JudgeVerdict{Label: JudgeNotAddressed, Score: 0.25, LatencyMS: 12, Fragment: "no such term"}
	b := encodeJudgment(&v)
	for i := range b {
		for bit := range 8 {
			flipped := append([]byte(nil), b...)
			flipped[i] ^= 1 << bit
			if w, ok := decodeJudgment(flipped); ok {
				t.Errorf("bit %d of byte %d flipped: read as %+v", bit, i, w)
			}
		}
	}
	legacy := append([]byte{judgmentRecordV1}, b[1:len(b)-4]...)
	if w, ok := decodeJudgment(legacy); !ok || w.Label != v.Label || w.Fragment != v.Fragment {
		t.Errorf("an unsealed verdict: got %+v %v", w, ok)
	}
}
