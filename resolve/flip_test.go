package resolve_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// The byte-flip sweep (docs/store-format.md#damage): every byte of a small
// store that holds every kind of record is flipped, one at a time, and the
// damaged copy is opened, audited and asked everything the CLI and the
// service answer from it. For each flip:
//
//   - nothing crashes or hangs (a fault or a runaway loop would end the
//     test binary; a flip that takes over 20 s panics with its position);
//   - no answer is a changed value: each is the undamaged store's answer,
//     or a refusal (an error, or a record no longer found), or, for a flip
//     in the newest meta page, the answer of the store as of the
//     transaction before (bbolt then reads the other meta page, as after
//     a commit torn by a crash);
//   - when any answer changed, the audit reports a finding (or the store
//     does not open at all).
//
// By default a sample of the bytes is flipped (every byte of the page
// headers, element arrays, bucket headers and meta pages, and a random 1
// in 24 of the other non-zero bytes),
// one bit each; -flip-all flips every byte of the file, and -flip-bits=8
// each of its 8 bits.
var (
	flipAll  = flag.Bool("flip-all", os.Getenv("EVIDENCE_FLIP_ALL") != "", "byte-flip sweep: flip every byte of the store (also EVIDENCE_FLIP_ALL=1)")
	flipBits = flag.Int("flip-bits", 1, "byte-flip sweep: bits flipped per byte, one at a time (1 to 8)")
	flipAt   = flag.Int("flip-at", -1, "byte-flip sweep: flip only the byte at this offset (to look into one)")
)

const flipPrincipal = "analyst@example.com"

// flipStore writes the store the sweep damages and returns its bytes and
// what to ask of it.
func flipStore(t *testing.T) (raw []byte, q *flipQuestions) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "evidence.db")
	db, err := store.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	q = &flipQuestions{}
	add := func(nv *store.NewVersion) {
		t.Helper()
		if _, err := db.PutVersion(nv); err != nil {
			t.Fatal(err)
		}
		q.versions = append(q.versions, nv.Version.ID)
		q.chunks = append(q.chunks, len(nv.Chunks))
	}
	md := "# Expenses\n\nSubmit all expense reports within 14 calendar days.\n\n## Travel\n\nTrains in second class; flights over 6 hours in economy plus.\n"
	v1 := storetest.NewVersion("policy.md", md, 40)
	v1.Version.MediaType, v1.Version.SourceURL = "text/markdown", "https://example.com/policy.md"
	v1.Layout.Sections = []store.Section{{Start: 0, End: len([]rune(md)), Path: []string{"Expenses"}}}
	for i := range v1.Chunks {
		v1.Chunks[i].SectionPath = v1.Layout.SectionAt(v1.Chunks[i].Start)
	}
	v1.ACL = []string{flipPrincipal}
	add(v1)
	v2 := storetest.NewVersion("policy.md", strings.Replace(md, "14", "10", 1), 40)
	v2.Version.MediaType, v2.Version.SourceURL = v1.Version.MediaType, v1.Version.SourceURL
	v2.Layout.Sections = v1.Layout.Sections
	for i := range v2.Chunks {
		v2.Chunks[i].SectionPath = v2.Layout.SectionAt(v2.Chunks[i].Start)
	}
	v2.ACL = v1.ACL
	add(v2)

	pdf := storetest.NewVersion("report.pdf", "Annual report 2024.\fRevenue grew 12% to 3,25 million.\fAppendix: café 東京 ☕.", 16)
	pdf.Version.MediaType, pdf.Version.SourceURL = "application/pdf", "https://example.com/report.pdf"
	pdf.Layout.PageLabels = []string{"i", "1", "A-1"}
	pdf.Layout.LowConfidence = []store.PageFlag{{Page: 3, Reason: "mixed_script"}}
	for i := range pdf.Chunks {
		pdf.Chunks[i].PageLabel = pdf.Layout.PageLabel(pdf.Chunks[i].Page)
	}
	pdf.Chunks[1].Quarantine = &store.Quarantine{Reason: "text_mismatch", Want: "Revenue", Got: "Revenne", ClaimedStart: 16, ClaimedEnd: 32, ClaimedText: "Revenne grew"}
	pdf.Chunks[2].Repair = &store.Repair{Reason: "text_mismatch", Method: "fuzzy", Distance: 1, ClaimedStart: 30, ClaimedEnd: 46, ClaimedPage: 2, ClaimedPageLabel: "1"}
	add(pdf)

	html := storetest.NewVersion("faq.html", "Security FAQ\n\nPasswords rotate every 90 days.\nKeys never leave the HSM.", 30)
	html.Version.MediaType, html.Version.SourceURL = "text/html", "https://example.com/faq.html"
	add(html)

	gone := storetest.NewVersion("old.txt", "Withdrawn notes.", 0)
	add(gone)
	if _, err := db.Delete("old.txt", ""); err != nil {
		t.Fatal(err)
	}
	if err := db.PutFailure(&store.Failure{Path: "in/scan.pdf", DocumentID: "scan.pdf", Reason: "no_text", Error: "pdf: no text", Time: time.Unix(1700000000, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	q.trace = "0190f3a2b4c5-flip"
	if err := db.PutTraceRecord(store.TraceRecord{ID: q.trace, Trace: []byte(`{"trace_id":"0190f3a2b4c5-flip","request":{"principal":"analyst@example.com"},"report":{"disposition":"accept"}}`),
		Summary: []byte(storedSummary)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutReviews([]store.Review{{TraceID: q.trace, ClaimID: "c1", Judge: "j", JudgeLabel: "supported", HumanLabel: "supported", Recorded: time.Unix(1700000001, 0).UTC()}}); err != nil {
		t.Fatal(err)
	}
	q.evalRun = "0190f3a2b4c6-run"
	if err := db.PutEvalRun(q.evalRun, []byte(`{"run_id":"0190f3a2b4c6-run","questions":3}`)); err != nil {
		t.Fatal(err)
	}
	if findings, err := db.Check(); err != nil || len(findings) > 0 {
		t.Fatalf("the undamaged store: Check %v %v", findings, err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw, q
}

// flipQuestions are what the sweep asks of each damaged copy.
type flipQuestions struct {
	versions []string
	chunks   []int // chunks of each version, as stored
	trace    string
	evalRun  string
}

// Answer values that are not a value.
const (
	refused = "<refused>" // an error: the store refused to serve
	absent  = "<absent>"  // not found (a resolution with status not_found included)
)

// answers asks db everything the sweep compares. Each answer is its JSON,
// refused or absent.
func (q *flipQuestions) answers(db *store.DB) map[string]string {
	out := map[string]string{}
	set := func(name string, v any, err error) {
		switch {
		case errors.Is(err, store.ErrNotFound):
			out[name] = absent
		case err != nil:
			out[name] = refused
		default:
			b, err := json.Marshal(v)
			if err != nil {
				panic(err)
			}
			out[name] = string(b)
		}
	}
	// docs: the listing, one answer a document, so that a missing one is
	// a refusal and an extra one a changed value.
	err := db.View(func(tx *store.Tx) error {
		return tx.ForEachDocument(func(d *store.Document) error {
			set("doc "+d.ID, d, nil)
			return nil
		})
	})
	if err != nil {
		set("docs", nil, err)
	}
	for i, id := range q.versions {
		var v *store.Version
		err := db.View(func(tx *store.Tx) (err error) { v, err = tx.Version(id); return err })
		set("version "+id, v, err)
		// chunks: the export of a version's servable chunks.
		var rows []*resolve.ChunkRecord
		err = db.View(func(tx *store.Tx) error {
			v, err := tx.Version(id)
			if err != nil {
				return err
			}
			if v.Status == store.StatusDeleted {
				return nil
			}
			doc, err := tx.Document(v.DocumentID)
			if err != nil {
				return err
			}
			return resolve.Export(tx, v, doc, func(r *resolve.ChunkRecord) error { rows = append(rows, r); return nil })
		})
		set("chunks "+id, rows, err)
		// resolve: every chunk, linked, as the service answers it.
		for ord := range q.chunks[i] {
			cid := store.ChunkID(id, uint32(ord))
			c, err := resolve.ChunkCited(db, cid, flipPrincipal)
			if err == nil && c.Status == resolve.StatusNotFound {
				err = store.ErrNotFound
			}
			set("resolve "+cid, c, err)
		}
		// text: a range and the whole text.
		for _, r := range [][2]int{{3, 17}, {0, -1}} {
			end := r[1]
			if end < 0 && v != nil {
				end = v.TextLen
			}
			c, err := resolve.RangeCited(db, id, r[0], max(end, 0), flipPrincipal)
			if errors.Is(err, resolve.ErrInvalidRange) {
				err = store.ErrNotFound // the text's length was not found
			}
			if err == nil && c.Status == resolve.StatusNotFound {
				err = store.ErrNotFound
			}
			set(fmt.Sprintf("text %s %v", id, r), c, err)
		}
	}
	// Listings, one answer an item: a missing item is a refusal, an extra
	// or changed one a changed value.
	list := func(name string, scan func(tx *store.Tx, item func(key string, v any)) error) {
		if err := db.View(func(tx *store.Tx) error {
			return scan(tx, func(key string, v any) { set(name+" "+key, v, nil) })
		}); err != nil {
			set(name, nil, err)
		}
	}
	list("quarantine", func(tx *store.Tx, item func(string, any)) error {
		return tx.ForEachQuarantined(func(v *store.Version, c *store.Chunk) error { item(c.ID(), c); return nil })
	})
	list("repaired", func(tx *store.Tx, item func(string, any)) error {
		return tx.ForEachRepaired(func(v *store.Version, c *store.Chunk) error { item(c.ID(), c); return nil })
	})
	list("failure", func(tx *store.Tx, item func(string, any)) error {
		return tx.ForEachFailure(func(f *store.Failure) error { item(f.DocumentID, f); return nil })
	})
	list("trace", func(tx *store.Tx, item func(string, any)) error {
		return tx.ForEachTrace("", func(id, t []byte) error { item(string(id), string(t)); return nil })
	})
	list("trace summary", func(tx *store.Tx, item func(string, any)) error {
		return tx.ForEachTraceSummary("", func(id, summary []byte, trace func() ([]byte, error)) error {
			t, err := trace()
			if err != nil {
				return err
			}
			// A summary lost to damage (its key changed) is no wrong
			// answer: listings then read the trace itself. A summary that
			// is served must be the one stored.
			if summary != nil && string(summary) != storedSummary {
				t = append(append([]byte(nil), t...), summary...)
			}
			item(string(id), string(t))
			return nil
		})
	})
	list("review", func(tx *store.Tx, item func(string, any)) error {
		return tx.ForEachReview(func(r *store.Review) error { item(r.TraceID+" "+r.ClaimID, r); return nil })
	})
	var trace, run []byte
	err = db.View(func(tx *store.Tx) (err error) { trace, err = tx.Trace(q.trace); return err })
	set("trace "+q.trace+" by id", string(trace), err)
	err = db.View(func(tx *store.Tx) (err error) { run, err = tx.EvalRun(q.evalRun); return err })
	set("evalrun", string(run), err)
	return out
}

// storedSummary is the sweep store's one trace summary.
const storedSummary = `{"v":1,"principal":"analyst@example.com","disposition":"accept"}`

// flipOutcome is what one damaged copy did.
type flipOutcome struct {
	opened   bool
	findings []store.Finding
	answers  map[string]string
}

func flipRun(t *testing.T, path string, raw []byte, q *flipQuestions) flipOutcome {
	t.Helper()
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	resolve.ResetLinkCache()
	db, err := store.Open(path, &store.Options{ReadOnly: true})
	if err != nil {
		if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, store.ErrNotStore) && !errors.Is(err, store.ErrFormat) {
			t.Errorf("open: %v, want ErrCorrupt, ErrNotStore or ErrFormat", err)
		}
		return flipOutcome{}
	}
	defer db.Close()
	out := flipOutcome{opened: true}
	rep, err := resolve.AuditWith(db, store.CheckOptions{})
	switch {
	case errors.Is(err, store.ErrCorrupt):
		out.findings = []store.Finding{{Kind: "audit", Detail: err.Error()}}
	case err != nil:
		t.Errorf("audit: %v", err)
	default:
		out.findings = rep.Findings
	}
	out.answers = q.answers(db)
	return out
}

// newestMeta returns the offset of the meta page bbolt reads.
func newestMeta(raw []byte, pageSize int) int {
	txid := func(off int) uint64 {
		return uint64(raw[off+64]) | uint64(raw[off+65])<<8 | uint64(raw[off+66])<<16 | uint64(raw[off+67])<<24 |
			uint64(raw[off+68])<<32 | uint64(raw[off+69])<<40 | uint64(raw[off+70])<<48 | uint64(raw[off+71])<<56
	}
	if txid(pageSize) > txid(0) {
		return pageSize
	}
	return 0
}

// flipPositions returns the byte offsets the sweep flips.
func flipPositions(raw []byte, pageSize int) []int {
	if *flipAt >= 0 {
		return []int{*flipAt}
	}
	if *flipAll {
		out := make([]int, len(raw))
		for i := range out {
			out[i] = i
		}
		return out
	}
	le := func(b []byte) int {
		v := 0
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | int(b[i])
		}
		return v
	}
	pick := map[int]bool{}
	for p := 0; p+pageSize <= len(raw); p += pageSize {
		for i := range 96 { // the page header and first elements; all of a meta page that counts
			pick[p+i] = true
		}
		if flags := le(raw[p+8 : p+10]); flags == 0x01 || flags == 0x02 {
			n := le(raw[p+10 : p+12])
			for i := range min(16*n, pageSize-16) {
				pick[p+16+i] = true
			}
			// The header of each bucket a leaf holds (root page, sequence)
			// and of an inline bucket's page.
			for e := range min(n, (pageSize-16)/16) {
				eo := p + 16 + 16*e
				if flags != 0x02 || le(raw[eo:eo+4])&1 == 0 {
					continue
				}
				v := eo + le(raw[eo+4:eo+8]) + le(raw[eo+8:eo+12])
				for i := range 32 {
					if v+i < len(raw) {
						pick[v+i] = true
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(16, 2))
	for i := range raw {
		if raw[i] != 0 && rng.IntN(24) == 0 || rng.IntN(400) == 0 {
			pick[i] = true
		}
	}
	return slices.Sorted(func(yield func(int) bool) {
		for i := range pick {
			if !yield(i) {
				return
			}
		}
	})
}

func TestByteFlipSweep(t *testing.T) {
	if raceOn {
		// -race turns on checkptr, which stops the process ("unsafe.Slice
		// result straddles multiple allocations") where bbolt slices a
		// damaged page; a production build reads on and the store refuses
		// the bytes. The sweep is one goroutine: make test runs it.
		t.Skip("the byte-flip sweep runs without -race (make test): checkptr, on under -race, is fatal on damaged pages")
	}
	raw, q := flipStore(t)
	if p := os.Getenv("EVIDENCE_FLIP_DUMP"); p != "" {
		_ = os.WriteFile(p, raw, 0o600)
	}
	pageSize := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "damaged.db")
	base := flipRun(t, path, raw, q)
	if !base.opened || len(base.findings) > 0 {
		t.Fatalf("undamaged store: opened %v, findings %v", base.opened, base.findings)
	}
	// The store as bbolt reads it when the newest meta page is damaged: as
	// of the transaction before.
	meta := newestMeta(raw, pageSize)
	rolled := slices.Clone(raw)
	rolled[meta+16+56] ^= 0xFF // its checksum
	prev := flipRun(t, path, rolled, q)
	if !prev.opened {
		t.Fatal("the store without its newest meta page does not open")
	}
	positions := flipPositions(raw, pageSize)
	bits := max(1, min(*flipBits, 8))
	t.Logf("%d-byte store, flipping %d bytes, %d bit(s) each", len(raw), len(positions), bits)
	// A crash of the runtime names no flip: EVIDENCE_FLIP_TRACE names a
	// file that holds the flip being run.
	var trace *os.File
	if p := os.Getenv("EVIDENCE_FLIP_TRACE"); p != "" {
		var err error
		if trace, err = os.Create(p); err != nil {
			t.Fatal(err)
		}
		defer trace.Close()
	}
	var trials, refusedOpen, withFindings, unchanged, failures int
	for _, pos := range positions {
		for b := range bits {
			mask := byte(1) << ((pos + b) % 8)
			damaged := slices.Clone(raw)
			damaged[pos] ^= mask
			if trace != nil {
				_, _ = trace.WriteAt([]byte(fmt.Sprintf("%10d %#04x\n", pos, mask)), 0)
			}
			watchdog := time.AfterFunc(20*time.Second, func() {
				panic(fmt.Sprintf("byte flip at %d (mask %#x) runs past 20s", pos, mask))
			})
			got := flipRun(t, path, damaged, q)
			watchdog.Stop()
			trials++
			switch {
			case !got.opened:
				refusedOpen++
				continue
			case len(got.findings) > 0:
				withFindings++
			}
			inMeta := pos >= meta && pos < meta+pageSize
			changed := false
			for _, k := range slices.Sorted(keysOf(base.answers, got.answers)) {
				want, ok := base.answers[k]
				if !ok {
					want = absent
				}
				have, ok := got.answers[k]
				if !ok {
					have = absent
				}
				if have == want {
					continue
				}
				changed = true
				if have == refused || have == absent || inMeta && have == prev.answers[k] {
					continue
				}
				failures++
				if failures <= 20 {
					t.Errorf("flip at %d (mask %#x): %s served a changed value:\n got %s\nwant %s", pos, mask, k, diffAt(have, want), diffAt(want, have))
				}
			}
			if !changed {
				unchanged++
			} else if len(got.findings) == 0 {
				failures++
				if failures <= 20 {
					var which []string
					for k, v := range got.answers {
						if base.answers[k] != v {
							which = append(which, k+"="+v[:min(len(v), 80)])
						}
					}
					for k := range base.answers {
						if _, ok := got.answers[k]; !ok {
							which = append(which, k+" missing")
						}
					}
					slices.Sort(which)
					t.Errorf("flip at %d (mask %#x): answers changed, audit found nothing: %q", pos, mask, which)
				}
			}
		}
	}
	t.Logf("%d flips: %d refused on open, %d with audit findings, %d changed no answer", trials, refusedOpen, withFindings, unchanged)
}

// diffAt returns a up to 200 bytes around where it first differs from b.
func diffAt(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-60)
	return fmt.Sprintf("…%.200s", a[from:])
}

func keysOf(ms ...map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// TestMain runs the tests with GODEBUG=invalidptr=0, as cmd/evidence runs
// (its reexec_unix.go): a damaged element offset can point a slice bbolt
// returns into the Go heap, which the garbage collector's check of
// pointers would turn into a crash no recover catches.
func TestMain(m *testing.M) {
	if godebug := os.Getenv("GODEBUG"); !strings.Contains(godebug, "invalidptr=") {
		if exe, err := os.Executable(); err == nil {
			env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GODEBUG=") })
			env = append(env, "GODEBUG="+strings.TrimPrefix(godebug+",invalidptr=0", ","))
			_ = syscall.Exec(exe, os.Args, env)
		}
	}
	os.Exit(m.Run())
}
