package ingest

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// ReasonQuarantineLimit fails an import whose quarantined chunks exceed
// the limit (--max-quarantined): the version is not stored and the
// document's current version stays current.
const ReasonQuarantineLimit = "quarantine_limit"

// QuarantineLimit is the import gate: the most quarantined chunks an
// imported manifest may have and still become the current version. The
// zero value allows none.
type QuarantineLimit struct {
	Count   int     // most quarantined chunks, when !IsShare
	Share   float64 // most quarantined share of the manifest's chunks, 0 to 1, when IsShare
	IsShare bool
}

// ParseQuarantineLimit reads a limit as --max-quarantined takes it: a count
// ("0", "12"), a percentage ("5%", "2.5%") or a share written with a
// decimal point ("0.05", "1.0").
func ParseQuarantineLimit(s string) (QuarantineLimit, error) {
	bad := func(why string) (QuarantineLimit, error) {
		return QuarantineLimit{}, fmt.Errorf("%w: --max-quarantined %q: %s (want a count such as 3, a percentage such as 5%%, or a share such as 0.05)", ErrOptions, s, why)
	}
	t := strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || math.IsNaN(f) {
			return bad("not a number")
		}
		if f < 0 || f > 100 {
			return bad("a percentage is between 0% and 100%")
		}
		return QuarantineLimit{Share: f / 100, IsShare: true}, nil
	}
	if strings.ContainsAny(t, ".eE") {
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(f) {
			return bad("not a number")
		}
		if f < 0 || f > 1 {
			return bad("a share is between 0 and 1")
		}
		return QuarantineLimit{Share: f, IsShare: true}, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil {
		return bad("not a number")
	}
	if n < 0 {
		return bad("a count is at least 0")
	}
	return QuarantineLimit{Count: n}, nil
}

// String is the limit as --max-quarantined takes it.
func (l QuarantineLimit) String() string {
	if l.IsShare {
		return strconv.FormatFloat(l.Share*100, 'f', -1, 64) + "%"
	}
	return strconv.Itoa(l.Count)
}

// Exceeded reports whether quarantined chunks out of total pass the limit.
func (l QuarantineLimit) Exceeded(quarantined, total int) bool {
	if quarantined == 0 {
		return false
	}
	if !l.IsShare {
		return quarantined > l.Count
	}
	// A small tolerance, so that 5% of 100 chunks allows 5.
	return float64(quarantined) > l.Share*float64(total)+1e-9
}

// textSource says where the text an import was checked against came from,
// for the hint.
type textSource int

const (
	textExtracted textSource = iota // extracted from the source (ingest without --text)
	textGiven                       // ingest --text
	textStored                      // a rebuild: the stored canonical text
)

// gate holds back an imported version over the limit: the result becomes
// rejected, with the reason, what was found and a hint naming the likely
// cause. It reports whether the version was held back.
func gate(r *Result, nv *store.NewVersion, limit QuarantineLimit, text textSource, repair bool) bool {
	total := len(nv.Chunks)
	if !limit.Exceeded(r.Quarantined, total) {
		return false
	}
	noOffsets := 0
	for i := range nv.Chunks {
		if q := nv.Chunks[i].Quarantine; q != nil && q.Reason == resolve.ReasonOutOfRange && q.Got == noOffsetsGot {
			noOffsets++
		}
	}
	r.Status, r.Reason = Rejected, ReasonQuarantineLimit
	r.Error = fmt.Sprintf("%d of %d imported chunks quarantined (%s), over --max-quarantined %s: not stored",
		r.Quarantined, total, reasonList(r.QuarantineReasons), limit)
	r.Hint = hint(r, total, noOffsets, text, repair)
	return true
}

// hint names the likely causes of a rejected import, the likeliest first:
// when most chunks are not at their offsets, the offsets count in another
// text or by another convention; when a few are, they drifted.
func hint(r *Result, total, noOffsets int, text textSource, repair bool) string {
	reasons := r.QuarantineReasons
	moved := reasons[resolve.ReasonTextMismatch] + reasons[resolve.ReasonOutOfRange] - noOffsets
	pages := reasons[resolve.ReasonPageMismatch] + reasons[resolve.ReasonPageLabelMismatch]
	var h []string
	if moved+reasons[resolve.ReasonNotFound] > 0 {
		switch text {
		case textExtracted:
			h = append(h, "the offsets may count in another extractor's text: give that text with --text FILE")
		case textGiven:
			h = append(h, "the chunks are not where they claim in the --text given: check that it is the text the pipeline split")
		case textStored:
			h = append(h, "the offsets may count in another text than the stored one: ingest the source with --chunks and --text FILE")
		}
	}
	if moved > 0 || pages > 0 {
		h = append(h, "the manifest was read as "+r.ImportConvention()+" (the best fit); if the pipeline counted otherwise, force it with --offsets document|page")
	}
	if !repair && moved+pages > 0 {
		fix := "--repair re-anchors chunks whose text moved and corrects wrong pages"
		if 2*(moved+pages) <= total {
			h = append([]string{fix}, h...) // a few drifted: repairing them is the likely fix
		} else {
			h = append(h, fix)
		}
	}
	if n := reasons[resolve.ReasonNotFound]; n > 0 {
		h = append(h, plural(n, "chunk is", "chunks are")+" nowhere in the text (within the fuzzy bound): the manifest may be of another text, document or version")
	}
	if n := reasons[resolve.ReasonAmbiguous]; n > 0 {
		h = append(h, plural(n, "chunk fits", "chunks fit")+" several places equally well: only offsets can say which")
	}
	if noOffsets > 0 {
		s := plural(noOffsets, "chunk has", "chunks have") + " no offset (start -1 or none)"
		if !repair {
			s += ": --repair locates " + map[bool]string{true: "it", false: "them"}[noOffsets == 1] + " by the text"
		}
		h = append(h, s)
	}
	h = append(h, "--max-quarantined N or P% stores an import with some quarantined chunks")
	return strings.Join(h, "; ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func reasonList(reasons map[string]int) string {
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if reasons[keys[i]] != reasons[keys[j]] {
			return reasons[keys[i]] > reasons[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strconv.Itoa(reasons[k]) + " " + k
	}
	return strings.Join(parts, ", ")
}
