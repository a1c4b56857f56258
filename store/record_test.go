package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	testTime  = time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.UTC)
	testHash  = Hash([]byte("source"))
	testHash2 = Hash([]byte("text"))
	testVer   = VersionID("doc/a.md", testHash, "test/1")
)

func testDocuments() map[string]*Document {
	return map[string]*Document{
		"minimal": {ID: "d", Updated: testTime},
		"full": {ID: "policies/expenses.md", Current: testVer, Versions: []string{VersionID("x", testHash, "f"), testVer},
			ACL: []string{"analyst@example.com", "group:finance"}, Updated: testTime},
		"deleted": {ID: "gone", Versions: []string{testVer}, Deleted: true, Updated: testTime},
		"unicode": {ID: "文書/résumé 😀", Current: testVer, Versions: []string{testVer}, Updated: testTime},
		"no time": {ID: "zero time"},
		"metadata times": {ID: "m", Current: testVer, Versions: []string{testVer}, ACL: []string{"a"}, Updated: testTime,
			ACLUpdated: testTime.Add(-time.Hour), URLUpdated: testTime.Add(-time.Minute)},
		"url time only": {ID: "u", Updated: testTime, URLUpdated: testTime},
	}
}

func testVersions() map[string]*Version {
	full := Version{ID: testVer, Seq: 1 << 40, DocumentID: "doc/a.md", SourceHash: testHash, TextHash: testHash2,
		Fingerprint: "ingest/1;nfc;chunk=800/100", MediaType: "text/markdown", SourceURL: "https://example.com/a.md",
		SourcePath: "corpus/a.md", SourceBytes: 1 << 33, TextLen: 123456, TextBytes: 234567, Pages: 47, Chunks: 1000,
		Quarantined: 3, Created: testTime, Status: StatusCurrent}
	deleted := full
	deleted.Status, deleted.Deleted = StatusDeleted, testTime.Add(time.Hour)
	superseded := full
	superseded.Status = StatusSuperseded
	return map[string]*Version{
		"current":    &full,
		"superseded": &superseded,
		"deleted":    &deleted,
		"minimal":    {ID: testVer, Seq: 1, DocumentID: "d", Status: StatusCurrent, Created: testTime},
	}
}

func testLayouts() map[string]*Layout {
	return map[string]*Layout{
		"empty":       {},
		"one page":    {PageStarts: []int{0}},
		"pages":       {PageStarts: []int{0, 1000, 1001, 5000, 1 << 40}, PageLabels: []string{"i", "ii", "1", "2", ""}},
		"sections":    {PageStarts: []int{0}, Sections: []Section{{0, 100, []string{"Intro"}}, {10, 50, []string{"Intro", "Scope"}}, {100, 100, []string{"Empty"}}}},
		"low quality": {PageStarts: []int{0, 10}, LowConfidence: []PageFlag{{1, "ocr"}, {2, "few_chars"}}},
		"all": {PageStarts: []int{0, 7}, PageLabels: []string{"A-1", "A-2"}, Sections: []Section{{0, 7, []string{"日本"}}},
			LowConfidence: []PageFlag{{2, "garbled"}}},
	}
}

func testChunks() map[string]*Chunk {
	return map[string]*Chunk{
		"minimal": {Version: testVer},
		"plain": {Version: testVer, Ordinal: 7, Start: 418, End: 473, Page: 3, PageEnd: 4, PageLabel: "iii",
			SectionPath: []string{"Policy", "Expenses"}, SpanHash: testHash, ExternalID: "ext-7"},
		"max ordinal": {Version: testVer, Ordinal: math.MaxUint32, Start: 1 << 40, End: 1<<40 + 5, Page: 1, PageEnd: 1},
		"quarantined": {Version: testVer, Ordinal: 2, Start: 10, End: 20, Page: 1, PageEnd: 1, SpanHash: testHash,
			Quarantine: &Quarantine{Reason: "text_mismatch", Want: "claimed text", Got: "found text",
				ClaimedStart: 9, ClaimedEnd: 19, ClaimedText: "claimed text"}},
		"quarantined out of range": {Version: testVer, Ordinal: 3,
			Quarantine: &Quarantine{Reason: "out_of_range", ClaimedStart: -5, ClaimedEnd: 1 << 50}},
		"empty quarantine": {Version: testVer, Ordinal: 4, Quarantine: &Quarantine{}},
	}
}

// roundTrip checks decode(encode(x)) == x for every value of a table.
func roundTrip[T any](t *testing.T, values map[string]*T, encode func(*T) []byte, decode func([]byte) (*T, error)) {
	t.Helper()
	for name, want := range values {
		got, err := decode(encode(want))
		if err != nil {
			t.Errorf("%s: decode: %v", name, err)
			continue
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", name, diff)
		}
	}
}

func TestRecordRoundTrip(t *testing.T) {
	t.Run("document", func(t *testing.T) { roundTrip(t, testDocuments(), encodeDocument, decodeDocument) })
	t.Run("version", func(t *testing.T) { roundTrip(t, testVersions(), encodeVersion, decodeVersion) })
	t.Run("layout", func(t *testing.T) { roundTrip(t, testLayouts(), encodeLayout, decodeLayout) })
	t.Run("chunk", func(t *testing.T) { roundTrip(t, testChunks(), encodeChunk, decodeChunk) })
}

// TestRecordZeroTime: a zero time (a version that was never deleted) must
// decode as the zero time, not as a date in 1754.
func TestRecordZeroTime(t *testing.T) {
	e := encoder{}
	e.time(time.Time{})
	d := decoder{b: e.b}
	if got := d.time(); !got.IsZero() {
		t.Errorf("time.Time{} round trip: got %v, want the zero time", got)
	}
	v := *testVersions()["current"]
	got, err := decodeVersion(encodeVersion(&v))
	if err != nil {
		t.Fatal(err)
	}
	if !got.Deleted.IsZero() {
		t.Errorf("Deleted of a live version: got %v, want the zero time", got.Deleted)
	}
}

// codec is a record type's decoder with encoded samples of it.
type codec struct {
	samples [][]byte
	decode  func([]byte) error
}

// codecs returns every record type with the encoded test values.
func codecs() map[string]codec {
	samples := func(enc func() [][]byte) [][]byte { return enc() }
	return map[string]codec{
		"document": {samples(func() (out [][]byte) {
			for _, x := range testDocuments() {
				out = append(out, encodeDocument(x))
			}
			return out
		}), func(b []byte) error { _, err := decodeDocument(b); return err }},
		"version": {samples(func() (out [][]byte) {
			for _, x := range testVersions() {
				out = append(out, encodeVersion(x))
			}
			return out
		}), func(b []byte) error { _, err := decodeVersion(b); return err }},
		"layout": {samples(func() (out [][]byte) {
			for _, x := range testLayouts() {
				out = append(out, encodeLayout(x))
			}
			return out
		}), func(b []byte) error { _, err := decodeLayout(b); return err }},
		"chunk": {samples(func() (out [][]byte) {
			for _, x := range testChunks() {
				out = append(out, encodeChunk(x))
			}
			return out
		}), func(b []byte) error { _, err := decodeChunk(b); return err }},
	}
}

// TestRecordTruncated: every proper prefix of a record and every record with
// a trailing byte is an error wrapping ErrCorrupt, never a panic.
func TestRecordTruncated(t *testing.T) {
	for name, rec := range codecs() {
		for _, b := range rec.samples {
			for n := range len(b) {
				safely(t, name, func() {
					if err := rec.decode(b[:n]); !errors.Is(err, ErrCorrupt) {
						t.Errorf("%s: %d of %d bytes: got error %v, want ErrCorrupt", name, n, len(b), err)
					}
				})
			}
			safely(t, name, func() {
				if err := rec.decode(append(b[:len(b):len(b)], 0)); !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s with a trailing byte: got error %v, want ErrCorrupt", name, err)
				}
			})
		}
	}
}

func TestRecordGarbage(t *testing.T) {
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01} // uvarint 2^64-1
	overflow := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	cat := func(parts ...[]byte) (b []byte) {
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	v1 := []byte{recordV1}
	tests := []struct {
		name string
		b    []byte
	}{
		{"nil", nil},
		{"record version 0", []byte{0, 0, 0, 0, 0, 0, 0, 0}},
		{"record version 3", cat([]byte{3}, encodeChunk(testChunks()["plain"])[1:])},
		{"huge string length", cat(v1, huge)},
		{"string longer than record", cat(v1, []byte{100, 'a', 'b'})},
		{"varint overflow", cat(v1, overflow)},
		{"huge count", cat(v1, []byte{0}, []byte{0}, huge)},
		{"PNG header", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")},
		{"text", []byte("this is not a record at all, just some words")},
		{"all 0xff", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	}
	for name, rec := range codecs() {
		for _, tt := range tests {
			safely(t, name+"/"+tt.name, func() {
				if err := rec.decode(tt.b); !errors.Is(err, ErrCorrupt) {
					t.Errorf("%s: %s: got error %v, want ErrCorrupt", name, tt.name, err)
				}
			})
		}
	}
}

// fuzzDecoder checks that decode never panics, and that what it accepts
// encodes to bytes that decode to the same value.
func fuzzDecoder[T any](f *testing.F, samples map[string]*T, encode func(*T) []byte, decode func([]byte) (*T, error)) {
	for _, x := range samples {
		b := encode(x)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{})
	f.Add([]byte{recordV1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := decode(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got error %v, want ErrCorrupt", err)
			}
			return
		}
		y, err := decode(encode(x))
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if diff := cmp.Diff(x, y); diff != "" {
			t.Fatalf("decode(encode(decode(b))) differs (-first +second):\n%s", diff)
		}
	})
}

func FuzzDecodeChunk(f *testing.F) { fuzzDecoder(f, testChunks(), encodeChunk, decodeChunk) }
func FuzzDecodeDocument(f *testing.F) {
	fuzzDecoder(f, testDocuments(), encodeDocument, decodeDocument)
}
func FuzzDecodeLayout(f *testing.F) { fuzzDecoder(f, testLayouts(), encodeLayout, decodeLayout) }

// TestDecodeLegacyZeroTime: records written before the zero time was
// encoded as 0 hold time.Time{}.UnixNano() (an overflow, 1754-08-30) for
// "no time", for instance in Version.Deleted of every live version. Such
// stores have format 1 too, so the decoder must read that value as the
// zero time.

// TestRecordSealed: a record is refused when any one bit of it flips (the
// CRC-32C catches every single-bit error), so a damaged chunk record can
// never serve other offsets, pages or sections; and a record written
// before records were sealed (version 1, no checksum) still reads.
func TestRecordSealed(t *testing.T) {
	for name, rec := range codecs() {
		for _, b := range rec.samples {
			if b[0] != recordV2 && !(name == "document" && b[0] == recordV3) {
				t.Fatalf("%s: written as record version %d, want %d", name, b[0], recordV2)
			}
			for i := range b {
				for bit := range 8 {
					flipped := bytes.Clone(b)
					flipped[i] ^= 1 << bit
					safely(t, name, func() {
						if err := rec.decode(flipped); !errors.Is(err, ErrCorrupt) {
							t.Errorf("%s: bit %d of byte %d flipped: got %v, want ErrCorrupt", name, bit, i, err)
						}
					})
				}
			}
			if b[0] == recordV3 {
				continue // its extension fields came after version 1
			}
			legacy := append([]byte{recordV1}, b[1:len(b)-4]...)
			if err := rec.decode(legacy); err != nil {
				t.Errorf("%s: the same record as version 1: %v", name, err)
			}
		}
	}
}

// TestDocumentRecordVersions: a document without metadata times is written
// as record version 2, byte for byte what builds before version 3 wrote, so
// they still read it; one with a time is version 3, and a version 3 record
// with an extension field this build does not know (a later build's) still
// reads, the field skipped.
func TestDocumentRecordVersions(t *testing.T) {
	plain := testDocuments()["full"]
	if b := encodeDocument(plain); b[0] != recordV2 {
		t.Errorf("document without metadata times: record version %d, want %d", b[0], recordV2)
	}
	timed := testDocuments()["metadata times"]
	if b := encodeDocument(timed); b[0] != recordV3 {
		t.Errorf("document with metadata times: record version %d, want %d", b[0], recordV3)
	}

	// A later build's record: the known fields, then tag 9 with three bytes.
	e := encoder{b: []byte{recordV1}}
	e.str(timed.ID)
	e.str(timed.Current)
	e.strs(timed.Versions)
	e.strs(timed.ACL)
	e.bool(timed.Deleted)
	e.time(timed.Updated)
	e.uint(2)
	e.uint(docExtACLUpdated)
	e.str(string(timeBytes(timed.ACLUpdated)))
	e.uint(9)
	e.str("xyz")
	b := seal(e.b)
	b[0] = recordV3
	binary.BigEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	got, err := decodeDocument(b)
	if err != nil {
		t.Fatalf("record with an unknown extension field: %v", err)
	}
	want := *timed
	want.URLUpdated = time.Time{}
	if diff := cmp.Diff(&want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("record with an unknown extension field (-want +got):\n%s", diff)
	}

	// Extension fields out of order are malformed.
	e.b = e.b[:0]
	e.b = append(e.b, recordV1)
	e.str("d")
	e.str("")
	e.strs(nil)
	e.strs(nil)
	e.bool(false)
	e.time(testTime)
	e.uint(2)
	e.uint(docExtURLUpdated)
	e.str(string(timeBytes(testTime)))
	e.uint(docExtACLUpdated)
	e.str(string(timeBytes(testTime)))
	b = seal(e.b)
	b[0] = recordV3
	binary.BigEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	if _, err := decodeDocument(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("extension fields out of order: got %v, want ErrCorrupt", err)
	}
	// Version 3 is a document record only.
	c := encodeChunk(testChunks()["plain"])
	c[0] = recordV3
	binary.BigEndian.PutUint32(c[len(c)-4:], crc32.Checksum(c[:len(c)-4], castagnoli))
	if _, err := decodeChunk(c); !errors.Is(err, ErrCorrupt) {
		t.Errorf("chunk record of version 3: got %v, want ErrCorrupt", err)
	}
}
