package store

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every decoder of stored records has a fuzz target: FuzzDecodeDocument,
// FuzzDecodeVersion, FuzzDecodeLayout, FuzzDecodeChunk (record_test.go's
// fuzzDecoder: a record or ErrCorrupt, never a panic, and a record decodes
// again from its own encoding), FuzzLoadText (text_test.go) and
// FuzzOpenJSON for the JSON records. testdata/fuzz/FuzzX keeps a corpus
// for each: real encodings, sealed and as written before seals, written
// by -update-fuzz-corpus, beside any input a fuzzing run found.

var updateFuzzCorpus = flag.Bool("update-fuzz-corpus", false, "write the seed corpora of the record decoders' fuzz targets to testdata/fuzz")

func FuzzDecodeVersion(f *testing.F) { fuzzDecoder(f, testVersions(), encodeVersion, decodeVersion) }

// unsealed returns a sealed binary record as written before seals.
func unsealed(b []byte) []byte {
	b = bytes.Clone(b[:len(b)-4])
	b[0] = recordV1
	return b
}

// jsonSeeds are JSON records under their keys.
func jsonSeeds() [][2][]byte {
	at := time.Unix(1700000000, 0).UTC()
	failure, _ := json.Marshal(&Failure{Path: "in/a.pdf", DocumentID: "a.pdf", Reason: "encrypted", Error: "pdf: encrypted", Time: at})
	review, _ := json.Marshal(&Review{TraceID: "t1", ClaimID: "c1", Judge: "j", JudgeLabel: "supported", HumanLabel: "contradicted", Recorded: at})
	trace := []byte(`{"trace_id":"0190-trace","request":{"principal":"a@example.com"}}`)
	return [][2][]byte{
		{[]byte("a.pdf"), failure},
		{reviewKey("t1", "c1"), review},
		{[]byte("0190-trace"), trace},
	}
}

// FuzzOpenJSON: the seal of the JSON records. A record opens under the
// key it was sealed with, or as an unsealed JSON object, or not at all,
// with an error that matches ErrCorrupt; what a sealed record opens to is
// the JSON it sealed.
func FuzzOpenJSON(f *testing.F) {
	for _, kv := range jsonSeeds() {
		f.Add(kv[0], sealJSON(kv[0], kv[1]))
		f.Add(kv[0], kv[1])
	}
	f.Fuzz(func(t *testing.T, key, b []byte) {
		j, err := openJSON("record", key, b)
		if err != nil {
			if CorruptReason(err) == "" {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if len(j) != len(b) && !bytes.Equal(sealJSON(key, j), b) {
			t.Fatalf("%q opened to %q, which does not seal to it", b, j)
		}
		if other := append(slices.Clone(key), 'x'); len(j) != len(b) {
			if _, err := openJSON("record", other, b); err == nil {
				t.Fatalf("%q opens under key %q and %q", b, key, other)
			}
		}
		for name, decode := range map[string]func(k, v []byte) error{
			"failure": func(k, v []byte) error { _, err := decodeFailure(k, v); return err },
			"review":  func(k, v []byte) error { _, err := decodeReview(k, v); return err },
		} {
			if err := decode(key, b); err != nil && CorruptReason(err) == "" {
				t.Fatalf("%s: error %v does not match ErrCorrupt", name, err)
			}
		}
	})
}

// fuzzCorpus returns the seed inputs of each target, each input its
// arguments.
func fuzzCorpus() map[string][][][]byte {
	out := map[string][][][]byte{}
	add := func(target string, args ...[]byte) { out[target] = append(out[target], args) }
	for _, x := range sorted(testDocuments()) {
		b := encodeDocument(x)
		add("FuzzDecodeDocument", b)
		if b[0] == recordV2 {
			add("FuzzDecodeDocument", unsealed(b))
		}
	}
	for _, x := range sorted(testVersions()) {
		add("FuzzDecodeVersion", encodeVersion(x))
		add("FuzzDecodeVersion", unsealed(encodeVersion(x)))
	}
	for _, x := range sorted(testLayouts()) {
		add("FuzzDecodeLayout", encodeLayout(x))
		add("FuzzDecodeLayout", unsealed(encodeLayout(x)))
	}
	for _, x := range sorted(testChunks()) {
		add("FuzzDecodeChunk", encodeChunk(x))
		add("FuzzDecodeChunk", unsealed(encodeChunk(x)))
	}
	for _, s := range []string{"", "ascii only", strings.Repeat("é日", cpStride+3), strings.Repeat("x", 2*textBlock) + "é"} {
		txt := NewText([]byte(s))
		idx := txt.encodeIndex()
		add("FuzzLoadText", []byte(s), idx)
		add("FuzzLoadText", []byte(s), idx[:8+len(txt.index)]) // before seals
	}
	for _, kv := range jsonSeeds() {
		add("FuzzOpenJSON", kv[0], sealJSON(kv[0], kv[1]))
		add("FuzzOpenJSON", kv[0], kv[1])
	}
	return out
}

// sorted returns the values of m in key order.
func sorted[T any](m map[string]*T) []*T {
	var out []*T
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

// TestFuzzCorpus: each target's kept corpus holds its seeds (write them
// with -update-fuzz-corpus after a format change).
func TestFuzzCorpus(t *testing.T) {
	for target, inputs := range fuzzCorpus() {
		dir := filepath.Join("testdata", "fuzz", target)
		for i, args := range inputs {
			var body strings.Builder
			body.WriteString("go test fuzz v1\n")
			for _, a := range args {
				fmt.Fprintf(&body, "[]byte(%q)\n", a)
			}
			path := filepath.Join(dir, fmt.Sprintf("seed-%02d", i))
			if *updateFuzzCorpus {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != body.String() {
				t.Errorf("%s: missing or stale (%v): run go test ./store -run TestFuzzCorpus -update-fuzz-corpus", path, err)
			}
		}
	}
}
