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
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

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
	ID  string // document id; only with a single file
	URL string // source URL of a single file, or base URL a directory's relative paths join
	// DefaultURL is the source URL of a new version when URL is empty,
	// instead of the file's file: URL; unlike URL it never replaces the
	// URL of a version stored already.
	DefaultURL string
	ACL        []string // principals allowed to read; nil keeps the stored list
	// Chunk are explicit chunk settings; Size <= 0 means none: a document
	// is cut as its current version was, else with DefaultChunkOptions
	// (lifecycle.go).
	Chunk ChunkOptions
	// Base is the directory document ids are derived relative to (ids.go);
	// empty keeps the rule of builds before it (relative to the directory
	// argument, or a file argument's base name), for library callers.
	Base string
	// Undelete stores files whose document, version or bytes were deleted;
	// without it they are skipped with status Deleted.
	Undelete bool
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
	// parts are a manifest and text in memory (RunSource's Source).
	parts *importParts
	// Repair re-anchors imported chunks whose claims do not resolve, and
	// records each repair; without it they are quarantined.
	Repair bool
	// Offsets forces the origin of the manifest's offsets (OffsetsDocument,
	// OffsetsPage); empty or OffsetsAuto detects it.
	Offsets string
	// MaxQuarantined is the import gate: an import with more quarantined
	// chunks is not stored and the current version stays. nil allows none.
	MaxQuarantined *QuarantineLimit
	// DryRun prepares and reports everything but writes nothing to the
	// store, not even failure records.
	DryRun bool
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
	Rejected  = "rejected" // an import over --max-quarantined: not stored, the current version stays
	Deleted   = "deleted"  // skipped: deleted before (Reason says what), nothing written
	Skipped   = "skipped"  // met in a directory walk and not ingested (Reason says why); not a failure
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
	Status          string `json:"status"` // ingested, unchanged, rejected, failed, deleted or skipped
	Restored        bool   `json:"restored,omitempty"`
	Superseded      string `json:"superseded,omitempty"` // the version this one replaced as current
	MediaType       string `json:"media_type,omitempty"`
	Chunks          int    `json:"chunks"`
	Quarantined     int    `json:"quarantined"`
	Repaired        int    `json:"repaired,omitempty"`
	Pages           int    `json:"pages"`
	ChunksFormat    string `json:"chunks_format,omitempty"` // shape of an imported manifest
	SourceBytes     int64  `json:"source_bytes"`
	Reason          string `json:"reason,omitempty"` // failure or skip reason code
	Error           string `json:"error,omitempty"`

	// Offsets is the origin an imported manifest's offsets were read from
	// (document or page); PageBase the number it gives the first page,
	// when it claims pages; PageStripped that page-relative offsets count
	// from the page's first non-space character (PyPDFLoader).
	Offsets           string         `json:"offsets,omitempty"`
	PageBase          *int           `json:"page_base,omitempty"`
	PageStripped      bool           `json:"page_stripped,omitempty"`
	QuarantineReasons map[string]int `json:"quarantine_reasons,omitempty"` // imports: quarantined chunks by reason
	Hint              string         `json:"hint,omitempty"`               // rejected imports: the likely cause and what to try

	// Message says why a file was skipped (status deleted).
	Message string `json:"message,omitempty"`
	// MetadataUpdated names the document metadata this ingest changed
	// without a new version: "acl", "source_url".
	MetadataUpdated []string `json:"metadata_updated,omitempty"`
	// Warnings are findings that stored the file anyway, such as its bytes
	// being stored under another document id.
	Warnings []string `json:"warnings,omitempty"`
}

// Summary totals a batch.
type Summary struct {
	Results     []*Result `json:"files"`
	DryRun      bool      `json:"dry_run,omitempty"` // nothing was written; statuses say what would have been
	Ingested    int       `json:"ingested"`
	Unchanged   int       `json:"unchanged"`
	Rejected    int       `json:"rejected"`
	Failed      int       `json:"failed"`
	Deleted     int       `json:"deleted"` // skipped as deleted before
	Skipped     int       `json:"skipped"`
	Chunks      int       `json:"chunks"`
	Quarantined int       `json:"quarantined"`
	SourceBytes int64     `json:"source_bytes"`

	// Seconds is the batch's wall-clock time, from the walk to the last
	// commit; MBPerSecond its source bytes in millions per second of it.
	// Commits counts the write transactions that stored something
	// (versions, metadata, failure records), and Fsyncs the fdatasync calls
	// they cost: bbolt makes two per commit (the pages, then the meta
	// page), and a few more when the file grows, which are not counted.
	// All four are absent where the batch ran elsewhere (--server).
	Seconds     float64 `json:"seconds,omitempty"`
	MBPerSecond float64 `json:"mb_per_s,omitempty"`
	Commits     int     `json:"commits,omitempty"`
	Fsyncs      int     `json:"fsyncs,omitempty"`
}

// syncsPerCommit is what one bbolt write transaction costs in fdatasync
// calls (tx.Commit: the dirty pages, then the meta page).
const syncsPerCommit = 2

// countingStore counts the write transactions that commit something.
type countingStore struct {
	Store
	commits int // only the writer goroutine writes
}

func (c *countingStore) PutVersions(nvs []*store.NewVersion) ([]store.PutResult, error) {
	res, err := c.Store.PutVersions(nvs)
	for _, r := range res {
		// A group of unchanged versions is rolled back: no commit.
		if r.Status == store.PutIngested || r.Status == store.PutRestored || len(r.Updated) > 0 {
			c.commits++
			break
		}
	}
	return res, err
}

func (c *countingStore) PutFailure(f *store.Failure) error {
	err := c.Store.PutFailure(f)
	if err == nil {
		c.commits++
	}
	return err
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
		case Rejected:
			sum.Rejected++
			sum.SourceBytes += r.SourceBytes
			continue // nothing of it stored
		case Deleted:
			sum.Deleted++
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
	urlSet        bool // url was named by the caller, not derived
	// inMemory says the bytes are data, not the file at path: path is then
	// only the name (RunSource).
	inMemory bool
	data     []byte
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
	// import/2: offset conventions detected per manifest.
	fp += "import/2:" + rc.imp.format + ":" + rc.imp.manifestHash.String()[:32]
	if rc.imp.offsets == OffsetsDocument || rc.imp.offsets == OffsetsPage {
		fp += ";offsets=" + rc.imp.offsets
	}
	if rc.repair {
		fp += ";repair/1"
	}
	return fp
}

// newVersion cuts or imports the chunks of an extracted text and builds
// the version to write; the caller sets the source fields. For an import
// it also returns the convention the manifest was read under.
func (rc recipe) newVersion(documentID, versionID string, ex *Extracted, acl []string) (*store.NewVersion, *Convention) {
	txt := store.NewText(stringBytes(ex.Text)) // read only: the store never writes into a Text
	var chunks []store.Chunk
	var conv *Convention
	if rc.imp != nil {
		var cv Convention
		chunks, cv = ImportChunks(versionID, ex.Text, txt, &ex.Layout, rc.imp.chunks, ImportOptions{Format: rc.imp.format, Offsets: rc.imp.offsets, Repair: rc.repair})
		conv = &cv
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
	}, conv
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

// Run ingests the files and directories in paths (directories recursively,
// hidden entries skipped) with opts.Workers extractors and one writer. It
// goes on past files that fail and reports each; err is set only when the
// batch could not run at all (bad options, a store that fails to write).
func Run(ctx context.Context, db Store, paths []string, opts Options) (*Summary, error) {
	opts, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	counted := &countingStore{Store: db}
	sources, failed, err := collect(counted, paths, opts)
	if err != nil {
		return nil, err
	}
	if sum := runSources(ctx, counted, sources, failed, opts, began); sum != nil {
		return sum, nil
	}
	return nil, ctx.Err()
}

// checkOptions fills in the defaults of opts and refuses contradictions.
func checkOptions(opts Options) (Options, error) {
	if opts.Chunk.Size <= 0 {
		opts.Chunk = ChunkOptions{} // none given: remembered settings, else the defaults
	} else if opts.Chunk.Overlap < 0 || opts.Chunk.Overlap >= opts.Chunk.Size {
		return opts, fmt.Errorf("%w: overlap %d must be at least 0 and less than the chunk size %d", ErrOptions, opts.Chunk.Overlap, opts.Chunk.Size)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if err := checkImportOptions(opts.importing(), opts.Offsets, opts.MaxQuarantined); err != nil {
		return opts, err
	}
	return opts, nil
}

// importing reports whether the options import a manifest, from a file
// (Chunks) or from memory (RunSource).
func (o *Options) importing() bool { return o.Chunks != "" || o.parts != nil }

// hasText reports whether the options give the import's canonical text.
func (o *Options) hasText() bool { return o.TextFile != "" || o.parts != nil && o.parts.text != nil }

// runSources is the pipeline of Run and RunSource: failed results are
// recorded, sources prepared by opts.Workers and written by one writer.
// It returns nil when ctx is done; then nothing more was written.
func runSources(ctx context.Context, counted *countingStore, sources []source, failed []*Result, opts Options, began time.Time) *Summary {
	var db Store = counted
	total := len(sources) + len(failed)
	sum := &Summary{DryRun: opts.DryRun}
	done := 0
	report := func(r *Result) {
		sum.Results = append(sum.Results, r)
		done++
		if opts.Progress != nil {
			opts.Progress(done, total, r)
		}
	}
	for _, r := range failed {
		if !opts.DryRun && r.Status == Failed && ctx.Err() == nil { // nothing written once ctx is done
			recordFailure(db, r)
		}
		report(r)
	}

	jobs := make(chan source)
	// Workers queue up to maxPendingBytes of text ahead of the writer, so
	// that a commit's fsyncs do not stall extraction.
	prepared := make(chan *prepared, maxGroup)
	pending := newBudget(maxPendingBytes)
	var wg sync.WaitGroup
	for range opts.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				p := prepare(db, s, opts)
				p.held = pending.take(groupBytes(p))
				prepared <- p
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

	write(ctx, db, prepared, report, opts.DryRun, map[store.ID]string{}, pending)
	if ctx.Err() != nil {
		return nil
	}
	sort.Slice(sum.Results, func(i, j int) bool { return sum.Results[i].Path < sum.Results[j].Path })
	sum.total()
	sum.Seconds = time.Since(began).Seconds()
	if sum.Seconds > 0 {
		sum.MBPerSecond = float64(sum.SourceBytes) / 1e6 / sum.Seconds
	}
	sum.Commits, sum.Fsyncs = counted.commits, counted.commits*syncsPerCommit
	return sum
}

// collect expands paths into sources with their document ids. Inputs that
// cannot be walked become failed results; duplicate ids fail the later file.
// Files of a walk that are not ingested (unsupported types, links, devices)
// come last, as skipped results; hidden entries are left out unreported.
func collect(db Store, paths []string, opts Options) ([]source, []*Result, error) {
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
	} else if opts.Base != "" {
		var outside []*Result
		var err error
		if sources, outside, err = assignIDs(db, sources, opts.Base); err != nil {
			return nil, nil, err
		}
		failed = append(failed, outside...)
	}
	seen := map[string]string{}
	kept := sources[:0]
	for _, s := range sources {
		if prev, dup := seen[s.id]; dup {
			fail(s.path, s.id, ReasonDuplicateID, fmt.Errorf("ingest: %s: document id %q is also given to %s in this batch", s.path, s.id, prev))
			continue
		}
		seen[s.id] = s.path
		s.urlSet = s.url != ""
		if s.url == "" && opts.DefaultURL != "" {
			s.url = opts.DefaultURL
		}
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
	source  store.ID // BLAKE3 of the source bytes, zero when not read
	held    int      // bytes of the pending budget it holds until written
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
	src, err := s.data, error(nil)
	if !s.inMemory {
		src, err = readSource(s.path, opts.MaxBytes)
	} else if int64(len(src)) > opts.MaxBytes {
		err = &ExtractError{Path: s.path, Reason: ReasonTooLarge, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(src), opts.MaxBytes)}
	}
	if err != nil {
		return fail(err)
	}
	r.SourceBytes = int64(len(src))
	sourceHash := store.Hash(src)
	p.source = sourceHash
	rc := recipe{extractor: ExtractorFor(s.path), chunk: opts.Chunk, repair: opts.Repair}
	if opts.importing() {
		if rc.imp, err = readImport(s.path, opts); err != nil {
			return fail(err)
		}
		if rc.imp.text != nil {
			rc.extractor = rc.imp.text.Extractor
		}
		r.ChunksFormat = rc.imp.format
	}
	pl, err := planSource(db, s, sourceHash, rc, rc.imp != nil || opts.Chunk.Size > 0, opts.Undelete)
	if err != nil {
		return fail(err)
	}
	rc, versionID := pl.rc, pl.versionID
	if len(pl.duplicate) > 0 {
		r.Warnings = append(r.Warnings, duplicateWarning(pl.duplicate))
	}
	switch {
	case pl.deleted != "":
		r.Status, r.Reason, r.Message, r.DocumentVersion = Deleted, pl.deleted, pl.message, versionID
		return p
	case pl.stored != nil:
		// Stored already: nothing to extract. Unchanged, or its metadata
		// changes, or it becomes current again.
		r.fromStored(pl.stored)
		if pl.stored.Status == store.StatusCurrent && sameMetadata(pl.stored, opts.ACL, s.url, s.urlSet) {
			r.Status = Unchanged
			return p
		}
		p.version = &store.NewVersion{Stored: true, SetURL: s.urlSet, ACL: opts.ACL, Undelete: opts.Undelete,
			Version: store.Version{ID: versionID, DocumentID: s.id, SourceHash: sourceHash, SourceURL: s.url, SourcePath: s.path}}
		return p
	}
	var ex *Extracted
	if rc.imp != nil && rc.imp.text != nil {
		ex = rc.imp.text
	} else if ex, err = extractWith(s.path, src, opts.PDF, true); err != nil { // src is read once and never written
		return fail(err)
	}
	nv, conv := rc.newVersion(s.id, versionID, ex, opts.ACL)
	nv.Version.SourceHash = sourceHash
	nv.Version.SourceURL = s.url
	nv.Version.SourcePath = s.path
	nv.Version.SourceBytes = int64(len(src))
	nv.SetURL, nv.Undelete = s.urlSet, opts.Undelete
	r.count(nv)
	text := textExtracted
	if rc.imp != nil && rc.imp.text != nil {
		text = textGiven
	}
	if conv != nil && r.gateImport(db, nv, *conv, opts.MaxQuarantined, text, opts.Repair) {
		return p // held back: the current version stays
	}
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
		claims[i] = resolve.Claim{Start: s.Start, End: s.End, Text: bytesString(b, true), HasText: true, // txt is never written
			Page: layout.PageAt(s.Start), HasPage: true, Section: layout.SectionAt(s.Start), HasSection: true}
	}
	return claims
}

// BuildChunks validates each claim against the text and layout to be
// stored (docs/contract.md#validation-and-quarantine) and returns the chunk records: coordinates from the
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

// stringBytes returns the bytes of s without a copy; they must never be written.
func stringBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
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
//
// seen maps the source hash of each file stored in the batch to its
// document id, for the warning that one file's bytes went under two ids.
//
// Once ctx is done nothing more is written, failures included: what was
// prepared is drained and dropped, and Run returns ctx's error. An upload
// whose client went away is so not stored (docs/service.md).
func write(ctx context.Context, db Store, in <-chan *prepared, report func(*Result), dryRun bool, seen map[store.ID]string, pending *budget) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	release := func(group []*prepared) {
		n := 0
		for _, p := range group {
			n += p.held
		}
		pending.give(n)
	}
	for p := range in {
		if ctx.Err() != nil {
			release([]*prepared{p})
			continue // drained, so that the workers end
		}
		if dryRun {
			if p.version != nil {
				predict(db, p.result, p.version)
			}
			report(p.result)
			release([]*prepared{p})
			continue
		}
		group := []*prepared{p}
		size := groupBytes(p)
		// Wait a little for more: a commit costs an fsync or two however
		// much it holds, and the workers are still extracting. A batch that
		// is done (the channel closed) commits at once.
		timer.Reset(groupWait)
	fill:
		for len(group) < maxGroup && size < maxGroupBytes {
			select {
			case q, ok := <-in:
				if !ok {
					break fill
				}
				group = append(group, q)
				size += groupBytes(q)
			case <-timer.C:
				break fill
			}
		}
		if !timer.Stop() {
			select { // drain a fired timer, so the next Reset starts clean
			case <-timer.C:
			default:
			}
		}
		if ctx.Err() != nil {
			release(group)
			continue
		}
		commit(db, group, report, seen)
		release(group)
	}
}

// A commit holds what arrives within groupWait of its first version, up to
// maxGroup versions or maxGroupBytes of text, whichever comes first.
const (
	maxGroup      = 256
	maxGroupBytes = 16 << 20
	groupWait     = 25 * time.Millisecond
)

func groupBytes(p *prepared) int {
	if p.version == nil {
		return 0
	}
	return p.version.Version.TextBytes
}

func commit(db Store, group []*prepared, report func(*Result), seen map[store.ID]string) {
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
		r := p.result
		if r.Status == Failed || r.Status == Rejected {
			recordFailure(db, r)
		}
		if (r.Status == Ingested || r.Status == Unchanged) && p.source != (store.ID{}) {
			if other, ok := seen[p.source]; ok && other != r.DocumentID && len(r.Warnings) == 0 {
				r.Warnings = append(r.Warnings, duplicateWarning([]string{other}))
			} else if !ok {
				seen[p.source] = r.DocumentID
			}
		}
		report(r)
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
	r.MetadataUpdated = pr.Updated
	switch pr.Status {
	case store.PutDeleted:
		r.Status, r.Reason = Deleted, pr.Reason
		r.Message = "deleted before (" + pr.Reason + ")"
		r.Chunks, r.Quarantined, r.Repaired = 0, 0, 0
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
