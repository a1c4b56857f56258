package ingest

// Contained PDF extraction. The PDF reader can hang (xref /Prev loops,
// page-tree and outline loops) or die with errors recover cannot catch
// (out of memory from an unchecked xref size, stack overflow from a cyclic
// outline), so it runs in a child process, one document each: the parent
// enforces the wall-clock limit and classifies how the child ended; the
// child lowers its own address-space limit before it parses anything.
//
// The child protocol. The parent starts "evidence extract-worker" with
// the limit flags and --size=N, writes the N bytes of the PDF to its stdin
// and keeps stdin open until the child has ended: EOF on stdin after the
// PDF tells the child its parent is gone, so it never lives on as an
// orphan. The child answers on stdout in JSON Lines:
//
//	{"page":{...pdf.Page...}}                                one per page, in order, flushed when finished
//	{"done":{"doc":{...pdf.Doc...},"reason":"","error":""}}  last; reason and error set when extraction failed
//
// Anything else the child says goes to stderr, which the parent reads only
// to classify a crash. A child that ends without a "done" line was killed
// or crashed; the pages it finished are counted in the error, not stored
// (see ExtractPDF).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/evidence-rag/evidence/ingest/pdf"
	"github.com/evidence-rag/evidence/store"
)

// Reason codes of PDF extraction failures, in addition to those of
// errors.go. ReasonTooLarge is shared, and ReasonMalformed (manifest.go)
// also names a PDF that is not one, is damaged beyond repair, or crashed
// the worker.
const (
	ReasonEncrypted   = "encrypted"    // needs a password we do not have, or decrypts to garbage
	ReasonNoText      = "no_text"      // no extractable text: a scan (OCR is out of scope)
	ReasonTimeout     = "timeout"      // over PDFLimits.Timeout; the worker was killed
	ReasonMemoryLimit = "memory_limit" // over PDFLimits.MemoryBytes; the worker died of it
)

// Sentinel causes of the failures the parent itself detects.
var (
	// ErrTimeout is returned when a PDF worker runs past PDFLimits.Timeout.
	ErrTimeout = errors.New("ingest: extraction timed out")
	// ErrMemoryLimit is returned when a PDF worker dies of its address-space
	// limit or is killed by the kernel's out-of-memory killer.
	ErrMemoryLimit = errors.New("ingest: extraction over the memory limit")
	// ErrWorker is returned when a PDF worker crashes, cannot start, or
	// breaks the protocol.
	ErrWorker = errors.New("ingest: extraction worker failed")
)

// PDFLimits bound the extraction of one PDF, and say which worker process
// runs it. Zero fields take the defaults.
type PDFLimits struct {
	Timeout        time.Duration // wall clock per document, process start included; default 60s
	MemoryBytes    uint64        // address space the worker may add to what it holds at start (RLIMIT_AS); default 2 GiB
	MaxPages       int           // physical pages; default 20,000
	MaxTextBytes   int           // extracted text, UTF-8 bytes; default 64 MiB
	MaxStreamBytes int64         // decompressed bytes of one stream; default 64 MiB
	// Worker returns the command that starts a PDF worker; ExtractPDF
	// appends the limit flags. A program that ingests PDFs sets it: the
	// evidence command to SelfWorker, tests (as os/exec's do) to the test
	// binary and a helper test that calls RunWorker. Nil, the default, is
	// no worker: a PDF then fails with ErrNoWorker. No default runs this
	// executable, since a test binary run as "extract-worker" would run its
	// tests again, and each of them might start more workers.
	Worker func() (*exec.Cmd, error)
}

// Defaults of PDFLimits.
const (
	DefaultPDFTimeout        = 60 * time.Second
	DefaultPDFMemoryBytes    = 2 << 30
	DefaultPDFMaxPages       = pdf.DefaultMaxPages
	DefaultPDFMaxTextBytes   = pdf.DefaultMaxTextBytes
	DefaultPDFMaxStreamBytes = pdf.DefaultMaxStreamBytes
)

func (l PDFLimits) withDefaults() PDFLimits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultPDFTimeout
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultPDFMemoryBytes
	}
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultPDFMaxPages
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultPDFMaxTextBytes
	}
	if l.MaxStreamBytes <= 0 {
		l.MaxStreamBytes = DefaultPDFMaxStreamBytes
	}
	return l
}

// args are the worker flags for l and a PDF of size bytes; RunWorker
// parses them.
func (l PDFLimits) args(size int) []string {
	return []string{
		"--size=" + strconv.Itoa(size),
		"--max-pages=" + strconv.Itoa(l.MaxPages),
		"--max-text-bytes=" + strconv.Itoa(l.MaxTextBytes),
		"--max-stream-bytes=" + strconv.FormatInt(l.MaxStreamBytes, 10),
		"--memory-bytes=" + strconv.FormatUint(l.MemoryBytes, 10),
	}
}

// outputBudget bounds what the parent reads from a worker: the text at
// worst JSON-escaped six times over, twice (page text and heading lines),
// plus room for each page's envelope. The worker itself caps the text, so
// only a broken worker comes near it.
func (l PDFLimits) outputBudget() int64 {
	return 12*int64(l.MaxTextBytes) + 4096*int64(l.MaxPages) + 1<<20
}

// ErrNoWorker is returned for a PDF when PDFLimits.Worker is not set.
var ErrNoWorker = errors.New("ingest: no PDF worker: set PDFLimits.Worker (ingest.SelfWorker in a program with an extract-worker command)")

// SelfWorker starts this executable with the argument "extract-worker":
// the worker of a program whose command line has that hidden command,
// which calls RunWorker.
func SelfWorker() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return exec.Command(exe, "extract-worker"), nil
}

// ExtractPDF extracts a PDF in a worker process (see PDFLimits.Worker and
// RunWorker) and maps the result to canonical text: the pages' text, each
// normalized (see Normalize; a form feed inside a page becomes a line
// break), joined by "\f", empty pages kept so numbering never shifts.
// Layout.PageStarts are in code points; PageLabels are the printed labels
// (nil when the document defines none); LowConfidence lists the pages that
// failed the quality gate, and pages the reader could extract only in part
// (reason "page_error"). Sections come from the outline: each bookmark
// starts at its heading's text on its page when found there, else at the
// page start, and nests by outline level; bookmarks without a page or a
// title are dropped. A document without a usable outline gets its sections
// from the font-size headings the reader reports (levels as it ranks them
// on each page).
//
// Every error is an *ExtractError with the reason encrypted, malformed,
// no_text, timeout, memory_limit or too_large (unreadable when the worker
// cannot be started at all). A document is stored whole or not at all: a
// worker killed or crashed after some pages fails the document, and the
// error counts the pages read. Storing the rest would be silent loss, and
// since a version id depends only on the source and the pipeline, a
// partial version would also be "unchanged" when ingested again with
// larger limits.
func ExtractPDF(path string, src []byte, lim PDFLimits) (*Extracted, error) {
	lim = lim.withDefaults()
	res, err := runWorker(src, lim)
	if err != nil {
		return nil, &ExtractError{Path: path, Reason: ReasonUnreadable, Err: err}
	}
	if res.reason != "" {
		return nil, &ExtractError{Path: path, Reason: res.reason, Err: res.err}
	}
	x := assemblePDF(res.pages, res.doc)
	if strings.TrimFunc(x.Text, isBlankRune) == "" {
		return nil, &ExtractError{Path: path, Reason: ReasonNoText, Err: pdf.ErrNoText}
	}
	return x, nil
}

// workerMsg is one line of the child protocol.
type workerMsg struct {
	Page *pdf.Page   `json:"page,omitempty"`
	Done *workerDone `json:"done,omitempty"`
}

// workerDone ends the protocol: the document description, and the reason
// and cause when extraction failed.
type workerDone struct {
	Doc    *pdf.Doc `json:"doc,omitempty"`
	Reason string   `json:"reason,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// workerResult is what the parent makes of a worker run: the pages, the
// document, or a failure (reason and err).
type workerResult struct {
	pages  []pdf.Page
	doc    *pdf.Doc
	reason string
	err    error
}

// stderrKeep is how much of a worker's stderr is kept: a Go crash names
// its cause in the first lines, then dumps goroutines.
const stderrKeep = 64 << 10

// runWorker runs one worker over src. err is set only when the worker
// could not be started; how the document fared is in the result.
func runWorker(src []byte, lim PDFLimits) (*workerResult, error) {
	if lim.Worker == nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, ErrNoWorker)
	}
	cmd, err := lim.Worker()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, err)
	}
	cmd.Args = append(cmd.Args, lim.args(len(src))...)
	// Its own process group, so a kill reaches anything it started.
	ownProcessGroup(cmd)
	// stdin stays open while the worker runs: its lifeline (see the
	// protocol). Wait closes it once the worker has ended.
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, err)
	}
	stderr := &headWriter{max: stderrKeep}
	cmd.Stderr = stderr
	// Wait must not block on a pipe some grandchild still holds.
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorker, err)
	}
	// A worker that stops reading fails this write when it is killed.
	go func() { _, _ = in.Write(src) }()

	pid := cmd.Process.Pid
	var (
		mu       sync.Mutex
		exited   bool // reaped: its pid may be reused, never signal it again
		timedOut bool
	)
	kill := func(timeout bool) {
		mu.Lock()
		defer mu.Unlock()
		if exited {
			return
		}
		timedOut = timedOut || timeout
		killProcessGroup(cmd.Process, pid)
	}
	timer := time.AfterFunc(lim.Timeout, func() { kill(true) })
	defer timer.Stop()

	// At EOF the worker has ended or is ending; one that closed stdout and
	// lingers meets the timer. Killing it here instead would make a kill
	// by the out-of-memory killer look like ours.
	res, perr := readWorker(out, lim)
	if perr != nil {
		kill(false)
	}
	werr := cmd.Wait()
	mu.Lock()
	exited = true
	tout := timedOut
	mu.Unlock()

	switch {
	case res.doc != nil || res.reason != "":
		// The worker said how it ended; a kill after that changes nothing.
		return res, nil
	case tout:
		res.reason = ReasonTimeout
		res.err = fmt.Errorf("%w after %v%s", ErrTimeout, lim.Timeout, pagesRead(len(res.pages)))
	case perr != nil:
		res.reason = ReasonMalformed
		res.err = fmt.Errorf("%w: %w%s", ErrWorker, perr, pagesRead(len(res.pages)))
	default:
		res.reason, res.err = classifyCrash(werr, stderr.Bytes(), len(res.pages))
	}
	res.pages, res.doc = nil, nil
	return res, nil
}

func pagesRead(n int) string {
	return fmt.Sprintf("; %d pages read before it ended, document not stored", n)
}

// classifyCrash names why a worker ended without its last line: the
// address-space limit (Go reports a failed mmap as out of memory, or
// cannot create a thread), the kernel's OOM killer (a SIGKILL we did not
// send), a stack overflow (a cyclic structure the reader recursed into:
// the file is malformed), or any other crash (malformed, with the first
// line of stderr).
func classifyCrash(werr error, stderr []byte, pages int) (string, error) {
	first := firstLine(stderr)
	// Causes are named before the goroutine dump, whose function names
	// and arguments could match anything.
	if i := bytes.Index(stderr, []byte("\ngoroutine ")); i >= 0 {
		stderr = stderr[:i]
	}
	var status string
	var ee *exec.ExitError
	signaled := syscall.Signal(0)
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			signaled = ws.Signal()
		}
		status = ee.Error()
	} else if werr != nil {
		status = werr.Error()
	} else {
		status = "exit status 0 without a result"
	}
	switch {
	case bytes.Contains(stderr, []byte("goroutine stack exceeds")) || bytes.Contains(stderr, []byte("fatal error: stack overflow")):
		return ReasonMalformed, fmt.Errorf("%w: stack overflow, a cyclic or too deeply nested structure (%s)%s", ErrWorker, first, pagesRead(pages))
	case outOfMemory(stderr):
		return ReasonMemoryLimit, fmt.Errorf("%w (%s)%s", ErrMemoryLimit, first, pagesRead(pages))
	case signaled == syscall.SIGKILL:
		return ReasonMemoryLimit, fmt.Errorf("%w: killed by SIGKILL, not by us: the out-of-memory killer%s", ErrMemoryLimit, pagesRead(pages))
	}
	if first == "" {
		first = status
	}
	return ReasonMalformed, fmt.Errorf("%w: %s%s", ErrWorker, first, pagesRead(pages))
}

// outOfMemory reports whether a Go crash on stderr is an allocation the
// address-space limit refused.
func outOfMemory(stderr []byte) bool {
	for _, s := range []string{
		"out of memory",                  // fatal error: runtime: out of memory
		"cannot allocate memory",         // mmap ENOMEM
		"cannot map pages",               // fatal error: runtime: cannot map pages in arena address space
		"failed to create new OS thread", // thread stacks are address space too
		"errno=12", "errno: 12",          // ENOMEM, as the runtime and the race detector's runtime say it
		"failed to allocate",       // the race detector's runtime
		"address space collisions", // the race detector's heap, out of room
	} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return false
}

func firstLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	const max = 300
	s := strings.ToValidUTF8(string(bytes.TrimSpace(b)), "\uFFFD")
	if len(s) > max {
		s = clip(s, max) + "…"
	}
	return s
}

// readWorker reads the protocol until "done" or EOF. An error means the
// worker broke the protocol; the pages read so far are in the result
// either way. A line cut short by a kill is ignored.
func readWorker(out io.Reader, lim PDFLimits) (*workerResult, error) {
	res := &workerResult{}
	budget := lim.outputBudget()
	br := bufio.NewReaderSize(out, 64<<10)
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if budget -= int64(len(frag)); budget < 0 {
			return res, fmt.Errorf("output over %d bytes", lim.outputBudget())
		}
		line = append(line, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return res, nil // EOF: the worker ended without "done"
		}
		var m workerMsg
		if err := json.Unmarshal(line, &m); err != nil {
			return res, fmt.Errorf("bad line %d: %w", len(res.pages)+1, err)
		}
		line = line[:0]
		switch {
		case m.Page != nil:
			if m.Page.Number != len(res.pages)+1 {
				return res, fmt.Errorf("page %d sent after page %d", m.Page.Number, len(res.pages))
			}
			res.pages = append(res.pages, *m.Page)
		case m.Done != nil:
			res.doc = m.Done.Doc
			if m.Done.Reason == "" && m.Done.Error == "" {
				if res.doc == nil {
					return res, errors.New(`"done" without a document or an error`)
				}
				if n := res.doc.Pages; n != len(res.pages) {
					res.doc = nil
					return res, fmt.Errorf("%d pages sent of %d", len(res.pages), n)
				}
				return res, nil
			}
			res.reason, res.err = doneError(m.Done)
			return res, nil
		default:
			return res, fmt.Errorf("line %d is neither a page nor done", len(res.pages)+1)
		}
	}
}

// workerReasons are the reasons a worker may report, as they are.
var workerReasons = []string{ReasonEncrypted, ReasonMalformed, ReasonNoText, ReasonTooLarge, ReasonTimeout, ReasonMemoryLimit, ReasonUnreadable}

// pdfSentinels are the causes a worker's message may begin with; the
// parent wraps them again, so errors.Is works across the process boundary.
var pdfSentinels = []error{pdf.ErrNotPDF, pdf.ErrPassword, pdf.ErrEncryption, pdf.ErrNoPages, pdf.ErrNoText,
	pdf.ErrTooManyPages, pdf.ErrTextTooLarge, pdf.ErrStreamTooLarge, pdf.ErrTooManyOps}

// doneError rebuilds the reason and cause a worker reported.
func doneError(d *workerDone) (string, error) {
	reason := d.Reason
	if !slices.Contains(workerReasons, reason) {
		reason = ReasonMalformed
	}
	var cause error = errors.New(d.Error)
	for _, s := range pdfSentinels {
		if rest, ok := strings.CutPrefix(d.Error, s.Error()); ok {
			cause = fmt.Errorf("%w%s", s, rest)
			break
		}
	}
	return reason, cause
}

// headWriter keeps the first max bytes written and discards the rest, so a
// child never blocks on a full stderr pipe.
type headWriter struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n := w.max - len(w.buf); n > 0 {
		w.buf = append(w.buf, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

func (w *headWriter) Bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.buf)
}

// RunWorker is the worker's side of ExtractPDF (the hidden command
// "evidence extract-worker"): it lowers its own address-space limit (Go's
// exec has no hook to set one for a child), reads the PDF from stdin or
// from the path in args, runs the reader with recover, and writes each
// page to stdout as one JSON line as soon as it is finished, then a last
// line with the document or the classified error (see the protocol at the
// top of this file). args are the flags --max-pages, --max-text-bytes,
// --max-stream-bytes, --memory-bytes (0: no limit) and --size (the PDF is
// the first that many bytes of stdin, and when stdin is a pipe, EOF after
// them ends the process with exit code 3: the parent is gone; without
// --size the PDF is all of stdin), then an optional path to read instead.
// It returns the exit code: 0 when the last line was written, 2 for bad
// arguments, 1 when stdout fails. The wall-clock limit is the parent's.
func RunWorker(stdin io.Reader, stdout io.Writer, args []string) int {
	return runWorkerWith(stdin, stdout, args, pdf.Extract)
}

// extractFunc is the extraction a worker runs: pdf.Extract, or in the
// tests' helper worker one that hangs, allocates, panics or recurses.
type extractFunc func(src []byte, lim pdf.Limits, page func(pdf.Page) error) (*pdf.Doc, error)

// runWorkerWith is RunWorker running extract.
func runWorkerWith(stdin io.Reader, stdout io.Writer, args []string, extract extractFunc) int {
	w := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	send := func(m workerMsg) error {
		if err := enc.Encode(m); err != nil {
			return err
		}
		return w.Flush()
	}
	finish := func(reason string, err error) int {
		d := &workerDone{Reason: reason}
		if err != nil {
			d.Error = err.Error()
		}
		if send(workerMsg{Done: d}) != nil {
			return 1
		}
		return 0
	}

	fs := flag.NewFlagSet("extract-worker", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // the answer, usage errors included, is the protocol's
	var lim pdf.Limits
	var mem uint64
	fs.IntVar(&lim.MaxPages, "max-pages", DefaultPDFMaxPages, "refuse documents with more pages")
	fs.IntVar(&lim.MaxTextBytes, "max-text-bytes", DefaultPDFMaxTextBytes, "refuse documents with more text, in UTF-8 bytes")
	fs.Int64Var(&lim.MaxStreamBytes, "max-stream-bytes", DefaultPDFMaxStreamBytes, "decompressed bytes of one stream")
	fs.Uint64Var(&mem, "memory-bytes", DefaultPDFMemoryBytes, "address space this process may add to what it holds at start (0: no limit)")
	size := fs.Int64("size", -1, "the PDF is the first size bytes of stdin; EOF after them means the parent is gone")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		if err == nil {
			err = fmt.Errorf("at most one path, got %d", fs.NArg())
		}
		finish("usage", fmt.Errorf("extract-worker [--max-pages N] [--max-text-bytes N] [--max-stream-bytes N] [--memory-bytes N] [--size N] [PATH]: %w", err))
		return 2
	}
	if mem > 0 {
		if err := limitMemory(mem); err != nil {
			return finish(ReasonMalformed, fmt.Errorf("set memory limit: %w", err))
		}
	}

	var src []byte
	var err error
	switch {
	case fs.NArg() == 1:
		src, err = os.ReadFile(fs.Arg(0))
	case *size >= 0:
		src = make([]byte, *size)
		if _, err = io.ReadFull(stdin, src); err == nil {
			if f, ok := stdin.(*os.File); ok {
				if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
					go lifeline(f) // a file or a buffer ends; only a pipe is a lifeline
				}
			}
		}
	default:
		src, err = io.ReadAll(stdin)
	}
	if err != nil {
		return finish(ReasonUnreadable, fmt.Errorf("read the PDF: %w", err))
	}
	var sendErr error
	doc, err := extractRecover(extract, src, lim, func(p pdf.Page) error {
		sendErr = send(workerMsg{Page: &p})
		return sendErr
	})
	if sendErr != nil {
		return 1 // the parent is gone
	}
	if err != nil {
		var pe *pdf.Error
		if errors.As(err, &pe) {
			d := &workerDone{Reason: pe.Reason, Error: pe.Reason}
			if pe.Err != nil {
				d.Error = pe.Err.Error()
			}
			if send(workerMsg{Done: d}) != nil {
				return 1
			}
			return 0
		}
		return finish(ReasonMalformed, err)
	}
	if send(workerMsg{Done: &workerDone{Doc: doc}}) != nil {
		return 1
	}
	return 0
}

// extractRecover runs the reader; a panic it lets through fails the
// document as malformed instead of ending the worker without a word.
func extractRecover(extract extractFunc, src []byte, lim pdf.Limits, page func(pdf.Page) error) (doc *pdf.Doc, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, &pdf.Error{Reason: pdf.ReasonMalformed, Err: fmt.Errorf("panic: %v", p)}
		}
	}()
	return extract(src, lim, page)
}

// addressSpace returns this process's virtual memory size in bytes, 0
// where /proc does not tell.
func addressSpace() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// lifeline ends the process when stdin, which the parent keeps open while
// it waits for this worker, reaches EOF or fails: the parent is gone, so
// nobody would read the answer, and a worker stuck in a loop would live on.
func lifeline(stdin io.Reader) {
	_, _ = io.Copy(io.Discard, stdin)
	os.Exit(3)
}

// assemblePDF builds the canonical text and layout of a document from its
// pages (see ExtractPDF).
func assemblePDF(pages []pdf.Page, doc *pdf.Doc) *Extracted {
	texts := make([]string, len(pages))
	byteStarts := make([]int, len(pages)) // of each page in the text
	lay := store.Layout{PageStarts: make([]int, len(pages))}
	labels := make([]string, len(pages))
	hasLabel := false
	var b strings.Builder
	cp := 0
	for i, p := range pages {
		if i > 0 {
			b.WriteByte('\f')
			cp++
		}
		texts[i] = pageText(p.Text)
		byteStarts[i] = b.Len()
		lay.PageStarts[i] = cp
		b.WriteString(texts[i])
		cp += utf8.RuneCountInString(texts[i])
		labels[i] = p.Label
		hasLabel = hasLabel || p.Label != ""
		switch {
		case p.LowConfidence != "":
			lay.LowConfidence = append(lay.LowConfidence, store.PageFlag{Page: i + 1, Reason: p.LowConfidence})
		case p.Err != "":
			// The reader gave up part way: what is there may lack text.
			lay.LowConfidence = append(lay.LowConfidence, store.PageFlag{Page: i + 1, Reason: "page_error"})
		}
	}
	if len(pages) == 0 {
		lay.PageStarts = []int{0}
	}
	if hasLabel {
		lay.PageLabels = labels
	}
	text := b.String()
	var hs []heading
	if doc != nil {
		hs = outlineHeadings(doc.Outline, texts, byteStarts)
	}
	if len(hs) == 0 {
		hs = fontHeadings(pages, texts, byteStarts)
	}
	lay.Sections = buildSections(text, hs)
	return &Extracted{Text: text, Layout: lay, MediaType: "application/pdf", Extractor: "pdf/1"}
}

// pageText is the canonical text of one page: valid UTF-8, no control
// characters but "\n" and "\t" (a form feed, the page separator, becomes a
// line break), then Normalize. Controls are dropped here, not left to
// Normalize, which would call a page of them binary.
func pageText(raw string) string {
	s := strings.ToValidUTF8(raw, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t' || r == '\r': // Normalize makes CR and CRLF a line break
			return r
		case r == '\f' || r == '\v' || r == '\u2028' || r == '\u2029':
			return '\n'
		case r < 0x20 || 0x7f <= r && r <= 0x9f:
			return -1
		}
		return r
	}, s)
	if n, err := Normalize([]byte(s)); err == nil {
		return n
	}
	return s
}

// titleText is a heading as a section path holds it: normalized, on one
// line, spaces collapsed.
func titleText(raw string) string {
	return strings.Join(strings.Fields(pageText(raw)), " ")
}

// outlineHeadings places the bookmarks in the text: at their title on
// their page, searched after the previous bookmark on that page, else at
// the page start, or where the previous bookmark on that page starts, so
// that the bookmarks of a page keep their outline order and nesting.
// Returned in text order (bookmarks need not be).
//
// The search reads at most a few times the text in all: a hostile file's
// tens of thousands of bookmarks on one huge page must not hold the
// parent. Past that budget, bookmarks are placed as if not found.
func outlineHeadings(outline []pdf.OutlineEntry, texts []string, byteStarts []int) []heading {
	budget := 1 << 20
	for _, t := range texts {
		budget += 4 * len(t)
	}
	var hs []heading
	type placed struct{ at, from int } // the last bookmark on a page; where to search on
	last := map[int]placed{}           // by page index
	for _, e := range outline {
		title := titleText(e.Title)
		if e.Page < 1 || e.Page > len(texts) || title == "" {
			continue
		}
		i := e.Page - 1
		p := last[i]
		if cost := len(texts[i]) - p.from; cost <= budget {
			budget -= cost
			if at := findTitle(texts[i], title, p.from); at >= 0 {
				p = placed{at: at, from: at + 1}
			}
		}
		last[i] = p
		hs = append(hs, heading{level: e.Level, off: byteStarts[i] + p.at, title: title})
	}
	slices.SortStableFunc(hs, func(a, b heading) int { return a.off - b.off })
	return hs
}

// fontHeadings places the font-size headings the reader found on each
// page. Its offsets are into the raw page text, so each heading is looked
// up in the canonical page text, after the previous one.
func fontHeadings(pages []pdf.Page, texts []string, byteStarts []int) []heading {
	var hs []heading
	for i, p := range pages {
		from := 0
		for _, h := range p.Headings {
			title := titleText(h.Text)
			if title == "" {
				continue
			}
			off := findTitle(texts[i], title, from)
			if off < 0 {
				off = min(len(pageText(p.Text[:max(0, min(h.Offset, len(p.Text)))])), len(texts[i]))
				for off > 0 && off < len(texts[i]) && !utf8.RuneStart(texts[i][off]) {
					off--
				}
			} else {
				from = off + 1
			}
			hs = append(hs, heading{level: max(h.Level, 1), off: byteStarts[i] + off, title: title})
		}
	}
	slices.SortStableFunc(hs, func(a, b heading) int { return a.off - b.off })
	return hs
}

// findTitle returns the byte offset in page, at or after from, where title
// occurs as whole words, ignoring case and with any white space between
// its words, or -1. Outline titles and page text rarely agree on case and
// line breaks.
func findTitle(page, title string, from int) int {
	words := strings.Fields(title)
	if len(words) == 0 || from > len(page) {
		return -1
	}
	for i := from; i < len(page); {
		if (i == 0 || !isWordRune(lastRune(page[:i]))) && hasPrefixFold(page[i:], words[0]) {
			if end, ok := matchWords(page, i, words); ok && (end == len(page) || !isWordRune(firstRune(page[end:]))) {
				return i
			}
		}
		_, size := utf8.DecodeRuneInString(page[i:])
		i += size
	}
	return -1
}

// matchWords matches words from page[i:], separated by white space, and
// returns the offset just past the last.
func matchWords(page string, i int, words []string) (int, bool) {
	for k, w := range words {
		if k > 0 {
			j := i
			for j < len(page) && unicode.IsSpace(firstRune(page[j:])) {
				_, size := utf8.DecodeRuneInString(page[j:])
				j += size
			}
			if j == i {
				return 0, false
			}
			i = j
		}
		n, ok := prefixFoldLen(page[i:], w)
		if !ok {
			return 0, false
		}
		i += n
	}
	return i, true
}

func hasPrefixFold(s, prefix string) bool {
	_, ok := prefixFoldLen(s, prefix)
	return ok
}

// prefixFoldLen reports whether s begins with prefix under simple case
// folding, and the length in s of the match.
func prefixFoldLen(s, prefix string) (int, bool) {
	i := 0
	for _, pr := range prefix {
		if i >= len(s) {
			return 0, false
		}
		sr, size := utf8.DecodeRuneInString(s[i:])
		if sr != pr && !equalFold(sr, pr) {
			return 0, false
		}
		i += size
	}
	return i, true
}

func equalFold(a, b rune) bool {
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }
