package verify

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
)

// The verifier decodes two kinds of records it keeps in the store: traces
// with their summaries (trace list, stats) and cached judge verdicts. Each
// has a fuzz target here, with a kept corpus of real encodings under
// testdata/fuzz, written by -update-stored-fuzz-corpus.

var updateStoredCorpus = flag.Bool("update-stored-fuzz-corpus", false, "write the kept corpora of FuzzDigestTrace and FuzzDecodeJudgment to testdata/fuzz")

// storedTraceSeeds are a summary and a trace as the server stores them.
func storedTraceSeeds(t testing.TB) (summary, trace []byte) {
	req := &Request{RequestID: "r-1", Principal: "analyst@example.com", Claims: []Claim{{ClaimID: "c1", Text: "Meals are capped at 50 EUR.",
		Evidence: []Evidence{{ChunkID: "0123456789abcdef0123456789abcdef-3", Quote: "capped at 50 EUR"}}}}}
	rep := &Report{Disposition: AnswerPartial, Policy: "default", TraceID: "01a2320a1b3e4d54a0a1dbccd0ce", Claims: []ClaimReport{{ClaimID: "c1", Disposition: RemoveClaim,
		Evidence: []EvidenceReport{{Status: EvidenceInsufficient, DocumentID: "policy.md", Reasons: []string{"figure_missing", "superseded_by:0123"}}}}}}
	at := time.Unix(1764590000, 0).UTC()
	summary, err := EncodeTraceSummary(rep.TraceID, at, req, rep)
	if err != nil {
		t.Fatal(err)
	}
	report, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if trace, err = EncodeTrace(rep.TraceID, at, 7, json.RawMessage(`{"name":"default"}`), req, report); err != nil {
		t.Fatal(err)
	}
	return summary, trace
}

// FuzzDigestTrace: whatever bytes a damaged store holds for a trace and
// its summary, listing and stats get a digest or an error that matches
// store.ErrCorrupt, never a panic; every filter runs over what they got.
func FuzzDigestTrace(f *testing.F) {
	summary, trace := storedTraceSeeds(f)
	f.Add(summary, trace)
	f.Add([]byte(nil), trace)
	f.Add(summary, []byte(nil))
	f.Fuzz(func(t *testing.T, summary, trace []byte) {
		if len(summary) == 0 {
			summary = nil // a trace stored without one
		}
		d, err := digest([]byte("01"), summary, func() ([]byte, error) { return trace, nil })
		if err != nil {
			if store.CorruptReason(err) == "" {
				t.Fatalf("error %v does not match store.ErrCorrupt", err)
			}
			return
		}
		for _, f := range []TraceFilter{{}, {Principal: "analyst@example.com"}, {ByPrincipal: true}, {RequestID: "r-1"},
			{Disposition: AnswerPartial}, {Reason: "superseded_by"}, {Category: FailSupport}, {Document: "policy.md"}} {
			d.matches(&f)
			if summary != nil {
				filterNeedles(&f).rejects(summary)
			}
		}
	})
}

// judgmentSeeds are cached verdicts as stored, one of each label, sealed
// and as written before seals.
func judgmentSeeds() [][]byte {
	var out [][]byte
	for i, label := range []string{JudgeSupported, JudgeContradicted, JudgeNotAddressed} {
		b := encodeJudgment(&JudgeVerdict{Label: label, Score: 0.25 * float64(i+1), LatencyMS: 12, Fragment: fmt.Sprintf("fragment %d", i)})
		out = append(out, b, append([]byte{judgmentRecordV1}, b[1:len(b)-4]...))
	}
	return out
}

// FuzzDecodeJudgment: a cached verdict decodes to a verdict that is one
// and that encodes back to itself, or is not read at all (the claim is
// judged again); never a panic.
func FuzzDecodeJudgment(f *testing.F) {
	for _, b := range judgmentSeeds() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, ok := decodeJudgment(b)
		if !ok {
			return
		}
		if err := checkVerdict(&v); err != nil {
			t.Fatalf("%q decoded to %+v, not a verdict: %v", b, v, err)
		}
		if w, ok := decodeJudgment(encodeJudgment(&v)); !ok || w != v {
			t.Fatalf("verdict %+v does not round-trip: %+v %v", v, w, ok)
		}
	})
}

// TestStoredFuzzCorpus: the kept corpora hold the seeds of today's
// encodings (run with -update-stored-fuzz-corpus after a format change).
func TestStoredFuzzCorpus(t *testing.T) {
	summary, trace := storedTraceSeeds(t)
	want := map[string][][][]byte{
		"FuzzDigestTrace":    {{summary, trace}, {nil, trace}},
		"FuzzDecodeJudgment": {},
	}
	for _, b := range judgmentSeeds() {
		want["FuzzDecodeJudgment"] = append(want["FuzzDecodeJudgment"], [][]byte{b})
	}
	for target, inputs := range want {
		for i, args := range inputs {
			var text []byte
			text = append(text, "go test fuzz v1\n"...)
			for _, a := range args {
				text = fmt.Appendf(text, "[]byte(%q)\n", a)
			}
			path := filepath.Join("testdata", "fuzz", target, fmt.Sprintf("seed-%d", i))
			if *updateStoredCorpus {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, text, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) || string(got) != string(text) {
				t.Errorf("%s: missing or not today's encoding: run go test ./verify/ -run TestStoredFuzzCorpus -update-stored-fuzz-corpus", path)
			}
		}
	}
}
