package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// Store is the part of *store.DB that ingest writes through.
type Store interface {
	View(func(*store.Tx) error) error
	PutVersions([]*store.NewVersion) ([]store.PutResult, error)
	PutFailure(*store.Failure) error
}

// Options configure a batch ingest.
type Options struct {
	ID       string   // document id; only with a single file
	URL      string   // source URL of a single file, or base URL a directory's relative paths join
	ACL      []string // principals allowed to read; nil keeps the stored list
	Chunk    ChunkOptions
	Workers  int   // parallel extractors; <= 0 means the number of CPUs
	MaxBytes int64 // sources larger than this fail with too_large; <= 0 means DefaultMaxBytes
	// Chunks, when set, names a chunk manifest (JSON Lines) of another
	// pipeline for the single source: its chunks are validated and stored
	// instead of cutting our own. ChunksFormat is its shape (FormatAuto).
	Chunks       string
	ChunksFormat string
	// TextFile, when set with Chunks, is the canonical text the other
	// pipeline used (pages separated by form feeds), taken as is instead of
	// extracting the source; the source bytes are still hashed for the id.
	TextFile string
	// Repair re-anchors imported chunks whose claims do not resolve, and
	// records each repair; without it they are quarantined.
	Repair bool
	// PDF bounds the extraction of each PDF (its worker process).
	PDF PDFLimits
	// Progress, when set, is called from the writer goroutine after each file.
	Progress func(done, total int, r *Result)
}

// Reason codes of batch failures that are not extraction failures.
const (
	ReasonDuplicateID = "duplicate_id" // two files of one batch would get the same document id
	ReasonStore       = "store"        // the store refused the write; nothing of the version was written
)

// ErrOptions is returned when batch options contradict each other.
var ErrOptions = errors.New("ingest: invalid options")

// DefaultMaxBytes caps one source file.
const DefaultMaxBytes = 256 << 20

// Result statuses of one file.
const (
	Ingested  = "ingested"
	Unchanged = "unchanged"
	Failed    = "failed"
	Skipped   = "skipped" // met in a directory walk and not ingested (Reason says why); not a failure
)

// Reason codes of skipped files.
const (
	ReasonNotRegular = "not_regular" // a symbolic link, device, socket or pipe: walks do not follow them
)

// Result is the outcome for one source file.
type Result struct {
	Path            string `json:"path"`
	DocumentID      string `json:"document_id"`
	DocumentVersion string `json:"document_version,omitempty"`
	Status          string `json:"status"` // ingested, unchanged, failed or skipped
	Restored        bool   `json:"restored,omitempty"`
	Superseded      string `json:"superseded,omitempty"` // the version this one replaced as current
	MediaType       string `json:"media_type,omitempty"`
	Chunks          int    `json:"chunks"`
	Quarantined     int    `json:"quarantined"`
	Repaired        int    `json:"repaired,omitempty"`
	Pages           int    `json:"pages"`
	ChunksFormat    string `json:"chunks_format,omitempty"` // shape of an imported manifest
	SourceBytes     int64  `json:"source_bytes"`
	Reason          string `json:"reason,omitempty"` // failure reason code
	Error           string `json:"error,omitempty"`
}

// Summary totals a batch.
type Summary struct {
	Results     []*Result `json:"files"`
	Ingested    int       `json:"ingested"`
	Unchanged   int       `json:"unchanged"`
	Failed      int       `json:"failed"`
	Skipped     int       `json:"skipped"`
	Chunks      int       `json:"chunks"`
	Quarantined int       `json:"quarantined"`
	SourceBytes int64     `json:"source_bytes"`
}

// total adds up the results.
func (sum *Summary) total() {
	for _, r := range sum.Results {
		switch r.Status {
		case Ingested:
			sum.Ingested++
		case Unchanged:
			sum.Unchanged++
		case Failed:
			sum.Failed++
		case Skipped:
			sum.Skipped++
		}
		sum.Chunks += r.Chunks
		sum.Quarantined += r.Quarantined
		sum.SourceBytes += r.SourceBytes
	}
}

// source is one file to ingest and the document id it gets.
type source struct {
	path, id, url string
}

// Fingerprint returns the pipeline fingerprint for an extractor and chunk
// settings: everything that, changed, must change the version id.
func Fingerprint(extractor string, opts ChunkOptions) string {
	return recipe{extractor: extractor, chunk: opts}.fingerprint()
}

// recipe is everything besides the source bytes that decides a version's
// content: how the canonical text was made and where the chunks come from.
// A rebuild from stored text follows the same recipe type as an ingest, so
// both give the same version id for the same settings.
type recipe struct {
	extractor string       // name/version of the canonical text's maker, "external/1:<hash>" for --text
	chunk     ChunkOptions // our chunker's settings, when imp is nil
	imp       *importInput // imported chunks
	repair    bool
}

func (rc recipe) fingerprint() string {
	fp := "evidence/1;" + NormalizeFingerprint + ";" + rc.extractor + ";"
	if rc.imp == nil {
		return fp + ChunkerVersion + ":size=" + strconv.Itoa(rc.chunk.Size) + ",overlap=" + strconv.Itoa(rc.chunk.Overlap)
	}
	fp += "import:" + rc.imp.format + ":" + rc.imp.manifestHash.String()[:32]
	if rc.repair {
		fp += ";repair/1"
	}
	return fp
}

// newVersion cuts or imports the chunks of an extracted text and builds
// the version to write; the caller sets the source fields.
func (rc recipe) newVersion(documentID, versionID string, ex *Extracted, acl []string) *store.NewVersion {
	txt := store.NewText([]byte(ex.Text))
	var chunks []store.Chunk
	if rc.imp != nil {
		chunks = ImportChunks(versionID, ex.Text, txt, &ex.Layout, rc.imp.chunks, rc.repair)
	} else {
		spans := Chunk(ex.Text, &ex.Layout, rc.chunk)
		chunks = BuildChunks(versionID, txt, &ex.Layout, OwnClaims(txt, &ex.Layout, spans))
	}
	return &store.NewVersion{
		Version: store.Version{
			ID:          versionID,
			DocumentID:  documentID,
			TextHash:    store.Hash(txt.Bytes()),
			Fingerprint: rc.fingerprint(),
			Extractor:   rc.extractor,
			MediaType:   ex.MediaType,
			TextLen:     txt.Len(),
			TextBytes:   len(txt.Bytes()),
			Pages:       len(ex.Layout.PageStarts),
		},
		Text:   txt,
		Layout: ex.Layout,
		Chunks: chunks,
		ACL:    acl,
	}
}

// count fills a result's chunk counts from a version about to be written.
func (r *Result) count(nv *store.NewVersion) {
	r.Chunks, r.Quarantined, r.Repaired = 0, 0, 0
	for i := range nv.Chunks {
		switch {
		case nv.Chunks[i].Quarantine != nil:
			r.Quarantined++
		case nv.Chunks[i].Repair != nil:
			r.Repaired++
			r.Chunks++
		default:
			r.Chunks++
		}
	}
	r.DocumentVersion, r.MediaType, r.Pages = nv.Version.ID, nv.Version.MediaType, nv.Version.Pages
}

// unchanged reports the stored version when it is already current with
// the access list asked for: then nothing needs extracting or writing.
func unchanged(db Store, documentID, versionID string, acl []string) *store.Version {
	var current *store.Version
	_ = db.View(func(tx *store.Tx) error {
		v, err := tx.Version(versionID)
		if err != nil || v.Status != store.StatusCurrent {
			return nil
		}
		if acl != nil && !slices.Equal(v.ACL, acl) {
			return nil // the access list changes: let the writer record it
		}
		current = v
		return nil
	})
	return current
}

// Run ingests the files and directories in paths (directories recursively,
// hidden entries skipped) with opts.Workers extractors and one writer. It
// goes on past files that fail and reports each; err is set only when the
// batch could not run at all (bad options, a store that fails to write).
func Run(ctx context.Context, db Store, paths []string, opts Options) (*Summary, error) {
	if opts.Chunk.Size <= 0 {
		opts.Chunk = DefaultChunkOptions
	}
	if opts.Chunk.Overlap < 0 || opts.Chunk.Overlap >= opts.Chunk.Size {
		return nil, fmt.Errorf("%w: overlap %d must be at least 0 and less than the chunk size %d", ErrOptions, opts.Chunk.Overlap, opts.Chunk.Size)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	sources, failed, err := collect(paths, opts)
	if err != nil {
		return nil, err
	}
	total := len(sources) + len(failed)
	sum := &Summary{}
	done := 0
	report := func(r *Result) {
		sum.Results = append(sum.Results, r)
		done++
		if opts.Progress != nil {
			opts.Progress(done, total, r)
		}
	}
	for _, r := range failed {
		if r.Status == Failed {
			recordFailure(db, r)
		}
		report(r)
	}

	jobs := make(chan source)
	prepared := make(chan *prepared, opts.Workers)
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				prepared <- prepare(db, s, opts)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, s := range sources {
			select {
			case jobs <- s:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(prepared) }()

	write(db, prepared, report)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.Slice(sum.Results, func(i, j int) bool { return sum.Results[i].Path < sum.Results[j].Path })
	sum.total()
	return sum, nil
}

// collect expands paths into sources with their document ids. Inputs that
// cannot be walked become failed results; duplicate ids fail the later file.
// Files of a walk that are not ingested (unsupported types, links, devices)
// come last, as skipped results; hidden entries are left out unreported.
func collect(paths []string, opts Options) ([]source, []*Result, error) {
	var sources []source
	var failed, skipped []*Result
	fail := func(p, id, reason string, err error) {
		failed = append(failed, &Result{Path: p, DocumentID: id, Status: Failed, Reason: reason, Error: err.Error()})
	}
	skip := func(p string, err *ExtractError) {
		skipped = append(skipped, &Result{Path: p, Status: Skipped, Reason: err.Reason, Error: err.Error()})
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			fail(p, "", ReasonUnreadable, err)
			continue
		}
		if !fi.IsDir() {
			if !Supported(p) && opts.TextFile == "" { // with --text, nothing is extracted from the source
				fail(p, "", ReasonUnsupported, &ExtractError{Path: p, Reason: ReasonUnsupported, Err: ErrUnsupported})
				continue
			}
			sources = append(sources, source{path: p, id: filepath.ToSlash(filepath.Base(p)), url: opts.URL})
			continue
		}
		err = filepath.WalkDir(p, func(fp string, d fs.DirEntry, err error) error {
			if err != nil {
				fail(fp, "", ReasonUnreadable, err)
				return nil
			}
			if fp != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case d.IsDir():
				return nil
			case !d.Type().IsRegular():
				skip(fp, &ExtractError{Path: fp, Reason: ReasonNotRegular, Err: errors.New(notRegular(d.Type()))})
				return nil
			case !Supported(fp):
				skip(fp, &ExtractError{Path: fp, Reason: ReasonUnsupported, Err: ErrUnsupported})
				return nil
			}
			rel, err := filepath.Rel(p, fp)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			u := ""
			if opts.URL != "" {
				u = strings.TrimSuffix(opts.URL, "/") + "/" + (&url.URL{Path: rel}).EscapedPath()
			}
			sources = append(sources, source{path: fp, id: rel, url: u})
			return nil
		})
		if err != nil {
			return nil, nil, fmt.Errorf("ingest: walk %s: %w", p, err)
		}
	}
	if (opts.Chunks != "" || opts.TextFile != "") && len(sources)+len(failed) != 1 {
		return nil, nil, fmt.Errorf("%w: --chunks and --text belong to one source file, but %d files were given", ErrOptions, len(sources)+len(failed))
	}
	if opts.TextFile != "" && opts.Chunks == "" {
		return nil, nil, fmt.Errorf("%w: --text needs --chunks", ErrOptions)
	}
	if opts.ID != "" {
		if len(sources)+len(failed) != 1 {
			return nil, nil, fmt.Errorf("%w: --id names one document, but %d files were given", ErrOptions, len(sources)+len(failed))
		}
		for i := range sources {
			sources[i].id = opts.ID
		}
	}
	seen := map[string]string{}
	kept := sources[:0]
	for _, s := range sources {
		if prev, dup := seen[s.id]; dup {
			fail(s.path, s.id, ReasonDuplicateID, fmt.Errorf("ingest: %s: document id %q is also given to %s in this batch", s.path, s.id, prev))
			continue
		}
		seen[s.id] = s.path
		if s.url == "" {
			if abs, err := filepath.Abs(s.path); err == nil {
				s.url = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
			}
		}
		kept = append(kept, s)
	}
	return kept, append(failed, skipped...), nil
}

// notRegular says what kind of file a walk skipped.
func notRegular(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link (walks do not follow links; give its target)"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// prepared is a source ready for the writer: a new version, or a result
// that needs no write (unchanged, failed).
type prepared struct {
	result  *Result
	version *store.NewVersion
}

// prepare reads, hashes, extracts, chunks and validates one source. It runs
// in a worker and only reads the store.
func prepare(db Store, s source, opts Options) *prepared {
	r := &Result{Path: s.path, DocumentID: s.id}
	p := &prepared{result: r}
	fail := func(err error) *prepared {
		r.Status, r.Error = Failed, err.Error()
		var ee *ExtractError
		if errors.As(err, &ee) {
			r.Reason = ee.Reason
		} else {
			r.Reason = ReasonUnreadable
		}
		return p
	}
	src, err := readSource(s.path, opts.MaxBytes)
	if err != nil {
		return fail(err)
	}
	r.SourceBytes = int64(len(src))
	sourceHash := store.Hash(src)
	rc := recipe{extractor: ExtractorFor(s.path), chunk: opts.Chunk, repair: opts.Repair}
	if opts.Chunks != "" {
		if rc.imp, err = readImport(s.path, opts); err != nil {
			return fail(err)
		}
		if rc.imp.text != nil {
			rc.extractor = rc.imp.text.Extractor
		}
		r.ChunksFormat = rc.imp.format
	}
	versionID := store.VersionID(s.id, sourceHash, rc.fingerprint())
	if v := unchanged(db, s.id, versionID, opts.ACL); v != nil {
		r.Status, r.DocumentVersion, r.MediaType = Unchanged, versionID, v.MediaType
		r.Chunks, r.Quarantined, r.Repaired, r.Pages = v.Chunks-v.Quarantined, v.Quarantined, v.Repaired, v.Pages
		return p
	}
	var ex *Extracted
	if rc.imp != nil && rc.imp.text != nil {
		ex = rc.imp.text
	} else if ex, err = ExtractWith(s.path, src, opts.PDF); err != nil {
		return fail(err)
	}
	nv := rc.newVersion(s.id, versionID, ex, opts.ACL)
	nv.Version.SourceHash = sourceHash
	nv.Version.SourceURL = s.url
	nv.Version.SourcePath = s.path
	nv.Version.SourceBytes = int64(len(src))
	r.count(nv)
	p.version = nv
	return p
}

// readSource reads a file, refusing one over max bytes before reading it.
func readSource(p string, max int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, &ExtractError{Path: p, Reason: ReasonUnreadable, Err: err}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, &ExtractError{Path: p, Reason: ReasonUnreadable, Err: err}
	}
	if fi.Size() > max {
		return nil, &ExtractError{Path: p, Reason: ReasonTooLarge, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, fi.Size(), max)}
	}
	src := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(src[len(src):cap(src)])
		src = src[:len(src)+n]
		if err != nil {
			break
		}
		if len(src) == cap(src) {
			if int64(len(src)) > max {
				return nil, &ExtractError{Path: p, Reason: ReasonTooLarge, Err: fmt.Errorf("%w: grew past %d bytes while read", ErrTooLarge, max)}
			}
			src = append(src, 0)[:len(src)]
		}
	}
	return src, nil
}

// OwnClaims turns the chunker's spans into claims carrying the text, page
// and section that the chunker saw, for validation like any imported chunk.
func OwnClaims(txt store.Text, layout *store.Layout, spans []Span) []resolve.Claim {
	claims := make([]resolve.Claim, len(spans))
	for i, s := range spans {
		b, _ := txt.Slice(s.Start, s.End)
		claims[i] = resolve.Claim{Start: s.Start, End: s.End, Text: string(b), HasText: true,
			Page: layout.PageAt(s.Start), HasPage: true, Section: layout.SectionAt(s.Start), HasSection: true}
	}
	return claims
}

// BuildChunks validates each claim against the text and layout to be
// stored (DESIGN §4) and returns the chunk records: coordinates from the
// layout for chunks that resolve, the finding for those that do not.
func BuildChunks(version string, txt store.Text, layout *store.Layout, claims []resolve.Claim) []store.Chunk {
	chunks := make([]store.Chunk, len(claims))
	for i, c := range claims {
		ord := uint32(i)
		if q := resolve.Validate(txt, layout, c); q != nil {
			chunks[i] = quarantineRecord(version, ord, c, q)
			continue
		}
		rec, _ := resolve.Record(txt, layout, version, ord, c.Start, c.End)
		chunks[i] = rec
	}
	return chunks
}

// maxClaimedText bounds the claimed text kept in a quarantine record: a
// drifted chunk of megabytes must not bloat the store.
const maxClaimedText = 4096

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// write is the single writer: it commits prepared versions in groups (one
// transaction for what is ready, up to a size bound) and falls back to one
// transaction per version when a group fails, so one bad version cannot
// take the others down.
func write(db Store, in <-chan *prepared, report func(*Result)) {
	const maxGroup, maxGroupBytes = 32, 64 << 20
	for p := range in {
		group := []*prepared{p}
		size := groupBytes(p)
	fill:
		for len(group) < maxGroup && size < maxGroupBytes {
			select {
			case q, ok := <-in:
				if !ok {
					break fill
				}
				group = append(group, q)
				size += groupBytes(q)
			default:
				break fill
			}
		}
		commit(db, group, report)
	}
}

func groupBytes(p *prepared) int {
	if p.version == nil {
		return 0
	}
	return p.version.Version.TextBytes
}

func commit(db Store, group []*prepared, report func(*Result)) {
	var nvs []*store.NewVersion
	var owners []*Result
	for _, p := range group {
		if p.version != nil {
			nvs = append(nvs, p.version)
			owners = append(owners, p.result)
		}
	}
	if len(nvs) > 0 && put(db, nvs, owners) != nil && len(nvs) > 1 {
		for i := range nvs {
			_ = put(db, nvs[i:i+1], owners[i:i+1])
		}
	}
	for _, p := range group {
		if p.result.Status == Failed {
			recordFailure(db, p.result)
		}
		report(p.result)
	}
}

// put writes versions in one transaction. A single version that fails is
// marked failed; nothing of it was written.
func put(db Store, nvs []*store.NewVersion, owners []*Result) error {
	res, err := db.PutVersions(nvs)
	if err != nil {
		if len(nvs) == 1 {
			owners[0].Status, owners[0].Reason, owners[0].Error = Failed, ReasonStore, err.Error()
			owners[0].DocumentVersion, owners[0].Chunks, owners[0].Quarantined = "", 0, 0
		}
		return err
	}
	for i, r := range res {
		applyPut(owners[i], r)
	}
	return nil
}

func applyPut(r *Result, pr store.PutResult) {
	r.Superseded = pr.Superseded
	switch pr.Status {
	case store.PutIngested:
		r.Status = Ingested
	case store.PutRestored:
		r.Status, r.Restored = Ingested, true
	case store.PutUnchanged:
		r.Status = Unchanged
	}
}

// recordFailure stores a failed ingest; a store that cannot even record it
// is reported in the result, not fatal to the batch.
func recordFailure(db Store, r *Result) {
	id := r.DocumentID
	if id == "" {
		id = path.Clean(filepath.ToSlash(r.Path))
	}
	err := db.PutFailure(&store.Failure{Path: r.Path, DocumentID: id, Reason: r.Reason, Error: r.Error, Time: time.Now().UTC()})
	if err != nil {
		r.Error += "; recording the failure also failed: " + err.Error()
	}
}
