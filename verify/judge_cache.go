package verify

import (
	"context"
	"encoding/binary"
	"hash/crc32"
	"math"
	"sync"
	"time"

	"github.com/zeebo/blake3"
)

// JudgmentCache is the part of *store.DB that CachedJudge keeps verdicts
// in: opaque keys and values.
type JudgmentCache interface {
	Judgment(key []byte) ([]byte, bool, error)
	PutJudgment(key, verdict []byte) error
}

// CachedJudge returns j answering from c what j answered before for the
// same judge id, claim text and evidence spans, so that a replay is
// deterministic and a repeated claim costs no call. Only verdicts are
// kept, never failures. A cache that cannot be read or written is passed
// over: j is asked, and verification goes on.
func CachedJudge(j Judge, c JudgmentCache) Judge {
	if c == nil {
		return j
	}
	return &cachedJudge{j: j, c: c}
}

type cachedJudge struct {
	j Judge
	c JudgmentCache
}

func (cj *cachedJudge) ID() string { return cj.j.ID() }

func (cj *cachedJudge) Judge(ctx context.Context, in JudgeInput) (JudgeVerdict, error) {
	if v, ok := cj.cached(&in); ok {
		return v, nil
	}
	start := time.Now()
	v, err := cj.j.Judge(ctx, in)
	if err == nil {
		err = checkVerdict(&v)
	}
	if err != nil {
		return v, err
	}
	v.LatencyMS = milliseconds(time.Since(start))
	v.Fragment = clipUTF8(v.Fragment, maxJudgeFragment)
	_ = cj.c.PutJudgment(judgmentKey(cj.j.ID(), &in), encodeJudgment(&v)) // a lost entry costs one call later
	return v, nil
}

func (cj *cachedJudge) cached(in *JudgeInput) (JudgeVerdict, bool) {
	id := cj.j.ID()
	b, ok, err := cj.c.Judgment(judgmentKey(id, in))
	if err != nil || !ok {
		return JudgeVerdict{}, false
	}
	v, ok := decodeJudgment(b)
	if !ok {
		return JudgeVerdict{}, false // a damaged entry is asked again and overwritten
	}
	v.Judge, v.Cached = id, true
	return v, true
}

// judgmentKey is BLAKE3 over a domain tag, the judge id, and the BLAKE3
// of the claim text and of each evidence span in order: the spans are
// hashed one by one so that no two lists of spans give the same key.
func judgmentKey(id string, in *JudgeInput) []byte {
	const tag = "evidence/judgment/1\x00"
	h := judgmentHashers.Get().(*blake3.Hasher)
	defer judgmentHashers.Put(h)
	var small [512]byte // the common case hashes without allocating
	buf := append(small[:0], tag...)
	buf = append(buf, id...)
	buf = append(buf, 0)
	for i := -1; i < len(in.Evidence); i++ {
		h.Reset()
		if i < 0 {
			_, _ = h.WriteString(in.Claim)
		} else {
			_, _ = h.WriteString(in.Evidence[i])
		}
		buf = h.Sum(buf)
	}
	key := blake3.Sum256(buf)
	return key[:]
}

var judgmentHashers = sync.Pool{New: func() any { return blake3.New() }}

// A stored verdict: version byte, label byte, score and latency as
// float64 bits, then the fragment. Small and decoded without reflection:
// a cached verdict is on the hot path.
const (
	judgmentRecordV1 = 1 // unsealed, from before
	judgmentRecordV2 = 2 // the same, then a CRC-32C
)

var judgmentLabels = [...]string{1: JudgeSupported, 2: JudgeContradicted, 3: JudgeNotAddressed}

func encodeJudgment(v *JudgeVerdict) []byte {
	var label byte
	for i, l := range judgmentLabels {
		if l != "" && l == v.Label {
			label = byte(i)
		}
	}
	b := make([]byte, 0, 18+len(v.Fragment))
	b = append(b, judgmentRecordV1, label)
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.Score))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(v.LatencyMS))
	b = append(b, v.Fragment...)
	b[0] = judgmentRecordV2
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// castagnoli is the CRC-32C table: sealed verdicts end with the CRC-32C of
// what comes before, so one flipped bit cannot turn "not_addressed" into
// "supported" (labels are one byte apart) and accept a claim.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func decodeJudgment(b []byte) (JudgeVerdict, bool) {
	switch {
	case len(b) >= 22 && b[0] == judgmentRecordV2:
		body := b[:len(b)-4]
		if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(b[len(b)-4:]) {
			return JudgeVerdict{}, false // damaged: asked again and overwritten
		}
		b = body
	case len(b) >= 18 && b[0] == judgmentRecordV1:
		// written before verdicts were sealed
	default:
		return JudgeVerdict{}, false
	}
	if b[1] == 0 || int(b[1]) >= len(judgmentLabels) {
		return JudgeVerdict{}, false
	}
	v := JudgeVerdict{
		Label:     judgmentLabels[b[1]],
		Score:     math.Float64frombits(binary.BigEndian.Uint64(b[2:])),
		LatencyMS: math.Float64frombits(binary.BigEndian.Uint64(b[10:])),
		Fragment:  string(b[18:]),
	}
	ok := checkVerdict(&v) == nil && v.LatencyMS >= 0 && !math.IsInf(v.LatencyMS, 1) // false for NaN too
	return v, ok
}

// WithJudgeCache returns a copy of the policy whose judge's verdicts are
// kept in c and reported to obs when obs is set; a policy without a judge
// is returned as it is.
func (p *Policy) WithJudgeCache(c JudgmentCache, obs JudgeObserver) *Policy {
	j := p.ModelJudge()
	if j == nil {
		return p
	}
	return p.WithJudge(ObservedJudge(CachedJudge(j, c), obs))
}
