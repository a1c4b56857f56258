package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/evidence-rag/evidence/ingest/pdf"
	"github.com/evidence-rag/evidence/store"
)

// The worker of these tests is this test binary, re-run with
// -test.run=^TestWorkerProcess$ (os/exec's helper-process pattern): tests
// that reach ExtractPDF, through ExtractWith or Run, name it in their
// PDFLimits (testWorker, testLimits, withWorker).
var testWorker = helperWorker("pdf", nil)

// withWorker is opts with the helper worker reading its PDFs.
func withWorker(opts Options) Options {
	opts.PDF.Worker = testWorker
	return opts
}

// extractTest is Extract with the helper worker for PDFs.
func extractTest(path string, src []byte) (*Extracted, error) {
	return ExtractWith(path, src, PDFLimits{Worker: testWorker})
}

// workerModeEnv selects how the helper worker behaves.
const workerModeEnv = "EVIDENCE_TEST_WORKER"

// helperWorker returns a WorkerCommand that starts the helper worker in
// mode, recording each command in *started when started is not nil.
func helperWorker(mode string, started *startedCmds) func() (*exec.Cmd, error) {
	return func() (*exec.Cmd, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(exe, "-test.run=^TestWorkerProcess$", "--")
		// The race detector would hold every exit for a second.
		cmd.Env = append(os.Environ(), workerModeEnv+"="+mode, "GORACE=atexit_sleep_ms=0")
		if started != nil {
			started.add(cmd)
		}
		return cmd, nil
	}
}

type startedCmds struct {
	mu   sync.Mutex
	cmds []*exec.Cmd
}

func (s *startedCmds) add(c *exec.Cmd) { s.mu.Lock(); s.cmds = append(s.cmds, c); s.mu.Unlock() }

// useWorker returns lim with the helper worker in mode, recording the
// commands it starts.
func useWorker(lim PDFLimits, mode string) (PDFLimits, *startedCmds) {
	started := &startedCmds{}
	lim.Worker = helperWorker(mode, started)
	return lim, started
}

// TestWorkerProcess is the helper worker: not a test of its own. In the
// modes other than "pdf" the extraction misbehaves as a hostile PDF makes
// the reader misbehave, after RunWorker has set its limits.
func TestWorkerProcess(t *testing.T) {
	mode := os.Getenv(workerModeEnv)
	if mode == "" {
		t.Skip("helper process of the PDF worker tests")
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	twoPages := func(page func(pdf.Page) error) {
		_ = page(pdf.Page{Number: 1, Text: "first"})
		_ = page(pdf.Page{Number: 2, Text: "second"})
	}
	var extract extractFunc = pdf.Extract
	switch mode {
	case "pdf": // the real reader
	case "hang": // an xref /Prev loop
		extract = func(_ []byte, _ pdf.Limits, page func(pdf.Page) error) (*pdf.Doc, error) {
			twoPages(page)
			time.Sleep(time.Hour)
			return nil, nil
		}
	case "alloc": // an unchecked xref size
		extract = func([]byte, pdf.Limits, func(pdf.Page) error) (*pdf.Doc, error) {
			for {
				hoard = append(hoard, make([]byte, 32<<20))
			}
		}
	case "recurse": // a cyclic outline walked recursively
		extract = func([]byte, pdf.Limits, func(pdf.Page) error) (*pdf.Doc, error) {
			return nil, fmt.Errorf("%d", recurse(1))
		}
	case "goroutine-panic": // a panic recover cannot reach
		extract = func(_ []byte, _ pdf.Limits, page func(pdf.Page) error) (*pdf.Doc, error) {
			twoPages(page)
			go func() { panic("boom in a goroutine") }()
			time.Sleep(time.Hour)
			return nil, nil
		}
	case "panic": // a panic the worker's recover catches
		extract = func([]byte, pdf.Limits, func(pdf.Page) error) (*pdf.Doc, error) {
			panic("boom")
		}
	case "exit": // a crash with a message
		extract = func(_ []byte, _ pdf.Limits, page func(pdf.Page) error) (*pdf.Doc, error) {
			twoPages(page)
			fmt.Fprintln(os.Stderr, "something broke\nmore detail")
			os.Exit(5)
			return nil, nil
		}
	case "garbage": // not the protocol
		extract = func([]byte, pdf.Limits, func(pdf.Page) error) (*pdf.Doc, error) {
			fmt.Println("hello")
			return nil, nil
		}
	case "spawn": // a parent that dies and leaves a hanging worker behind
		// As runWorker starts a worker, minus the waiting.
		cmd, _ := helperWorker("hang", nil)()
		src := "%PDF-1.4"
		cmd.Args = append(cmd.Args, testLimits.withDefaults().args(len(src))...)
		in, _ := cmd.StdinPipe()
		if err := cmd.Start(); err != nil {
			os.Exit(9)
		}
		_, _ = in.Write([]byte(src))
		fmt.Println(cmd.Process.Pid)
		os.Exit(0)
	default:
		os.Exit(8)
	}
	os.Exit(runWorkerWith(os.Stdin, os.Stdout, args, extract))
}

// hoard keeps what the "alloc" worker allocates.
var hoard [][]byte

// recurse never returns: a stack overflow is the point.
func recurse(n int) int {
	var pad [64]byte
	pad[n%64] = byte(n)
	//lint:ignore SA5007 a runaway recursion is what this worker simulates
	return recurse(n+1) + int(pad[0])
}

// testLimits keep failing tests short.
var testLimits = PDFLimits{Timeout: 10 * time.Second, MemoryBytes: 1 << 30, Worker: testWorker}

func TestExtractPDF(t *testing.T) {
	src := (&testPDF{
		pages: [][]string{
			{"Introduction", "R\xe9sum\xe9 of the first page."},
			nil, // an empty page keeps its number
			{"Running header", "2 Methods", "Text of page three.", "2.1 Details", "More text."},
		},
		labels:  "/Nums [0 << /S /r >> 2 << /S /D /St 1 >>]",
		outline: []outlineItem{{"Introduction", 1, nil}, {"No destination", 0, nil}, {"2 Methods", 3, []outlineItem{{"Not on the page", 3, nil}, {"2.1 details", 3, nil}}}},
	}).bytes()
	x, err := ExtractPDF("t.pdf", src, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	pages := strings.Split(x.Text, "\f")
	if len(pages) != 3 {
		t.Fatalf("got %d pages, want 3: %q", len(pages), x.Text)
	}
	for i, want := range []string{"Introduction\nRésumé of the first page.", "", "Running header\n2 Methods\nText of page three.\n2.1 Details\nMore text."} {
		if got := strings.Join(strings.Fields(pages[i]), " "); got != strings.Join(strings.Fields(want), " ") {
			t.Errorf("page %d: got %q, want %q", i+1, pages[i], want)
		}
	}
	var starts []int
	cp := 0
	for _, p := range pages {
		starts = append(starts, cp)
		cp += utf8.RuneCountInString(p) + 1
	}
	if diff := cmp.Diff(starts, x.Layout.PageStarts); diff != "" {
		t.Errorf("page starts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"i", "ii", "1"}, x.Layout.PageLabels); diff != "" {
		t.Errorf("page labels (-want +got):\n%s", diff)
	}
	at := func(page int, s string) int {
		i := strings.Index(pages[page-1], s)
		if i < 0 {
			t.Fatalf("%q not on page %d", s, page)
		}
		return starts[page-1] + utf8.RuneCountInString(pages[page-1][:i])
	}
	end := utf8.RuneCountInString(x.Text)
	// "Not on the page" is not found on its page: it starts where the
	// bookmark before it on that page does, and keeps its place under it.
	want := []store.Section{
		{Start: 0, End: at(3, "2 Methods"), Path: []string{"Introduction"}},
		{Start: at(3, "2 Methods"), End: end, Path: []string{"2 Methods"}},
		{Start: at(3, "2 Methods"), End: at(3, "2.1 Details"), Path: []string{"2 Methods", "Not on the page"}},
		{Start: at(3, "2.1 Details"), End: end, Path: []string{"2 Methods", "2.1 details"}},
	}
	if diff := cmp.Diff(want, x.Layout.Sections); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	if x.MediaType != "application/pdf" || x.Extractor != "pdf/1" {
		t.Errorf("got %s %s, want application/pdf pdf/1", x.MediaType, x.Extractor)
	}
	checkLayout(t, "t.pdf", x)
}

// checkLayout checks what every extracted PDF must satisfy: normalized
// text, a page start after each form feed and nowhere else, labels for
// every page or none, sections in order and in range, flags on pages.
func checkLayout(t *testing.T, name string, x *Extracted) {
	t.Helper()
	if n, err := Normalize([]byte(x.Text)); err != nil || n != x.Text {
		t.Errorf("%s: canonical text is not normalized (%v)", name, err)
	}
	if diff := cmp.Diff(pageStarts(x.Text), x.Layout.PageStarts); diff != "" {
		t.Errorf("%s: page starts (-form feeds +got):\n%s", name, diff)
	}
	if n := len(x.Layout.PageLabels); n != 0 && n != len(x.Layout.PageStarts) {
		t.Errorf("%s: %d labels for %d pages", name, n, len(x.Layout.PageStarts))
	}
	length := utf8.RuneCountInString(x.Text)
	for i, s := range x.Layout.Sections {
		if s.Start < 0 || s.Start > s.End || s.End > length || len(s.Path) == 0 ||
			i > 0 && s.Start < x.Layout.Sections[i-1].Start {
			t.Errorf("%s: section %d %+v out of order or range (text length %d)", name, i, s, length)
			break
		}
	}
	for _, f := range x.Layout.LowConfidence {
		if f.Page < 1 || f.Page > len(x.Layout.PageStarts) || f.Reason == "" {
			t.Errorf("%s: bad page flag %+v", name, f)
		}
	}
}

func TestExtractPDFFailures(t *testing.T) {
	empty := (&testPDF{pages: [][]string{nil, nil}}).bytes()
	for _, tc := range []struct {
		name, mode string
		src        []byte
		lim        PDFLimits
		reason     string
		is         error  // errors.Is target, when set
		contains   string // in the message
		within     time.Duration
	}{
		{name: "not a PDF", mode: "pdf", src: []byte("hello, world"), reason: ReasonMalformed, is: pdf.ErrNotPDF},
		{name: "scan", mode: "pdf", src: empty, reason: ReasonNoText, is: pdf.ErrNoText},
		{name: "hang", mode: "hang", lim: PDFLimits{Timeout: 500 * time.Millisecond}, reason: ReasonTimeout, is: ErrTimeout,
			contains: "2 pages read before it ended", within: 3 * time.Second},
		{name: "alloc", mode: "alloc", lim: PDFLimits{MemoryBytes: 512 << 20}, reason: ReasonMemoryLimit, is: ErrMemoryLimit},
		{name: "recursion", mode: "recurse", reason: ReasonMalformed, is: ErrWorker, contains: "stack overflow"},
		{name: "goroutine panic", mode: "goroutine-panic", reason: ReasonMalformed, is: ErrWorker, contains: "panic: boom in a goroutine"},
		{name: "panic", mode: "panic", reason: ReasonMalformed, contains: "panic: boom"},
		{name: "exit", mode: "exit", reason: ReasonMalformed, is: ErrWorker, contains: "something broke; 2 pages read"},
		{name: "garbage", mode: "garbage", reason: ReasonMalformed, is: ErrWorker, contains: "bad line 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lim, started := useWorker(tc.lim, tc.mode)
			if lim.Timeout == 0 {
				lim.Timeout = testLimits.Timeout
			}
			if lim.MemoryBytes == 0 {
				lim.MemoryBytes = testLimits.MemoryBytes
			}
			src := tc.src
			if src == nil {
				src = []byte("%PDF-1.4\n")
			}
			begin := time.Now()
			x, err := ExtractPDF("f.pdf", src, lim)
			took := time.Since(begin)
			var ee *ExtractError
			if !errors.As(err, &ee) {
				t.Fatalf("got %v, %v; want an *ExtractError", x, err)
			}
			if ee.Reason != tc.reason || ee.Path != "f.pdf" {
				t.Errorf("got reason %s for %s, want %s: %v", ee.Reason, ee.Path, tc.reason, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("got %v, want it to wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("got %q, want it to contain %q", err, tc.contains)
			}
			if tc.within > 0 && took > tc.within {
				t.Errorf("took %v, want at most %v", took, tc.within)
			}
			for _, c := range started.cmds {
				if c.ProcessState == nil {
					t.Errorf("worker %d not waited for: a zombie", c.Process.Pid)
				}
				if alive(c.Process.Pid) {
					t.Errorf("worker %d still running", c.Process.Pid)
				}
			}
			t.Logf("%v in %v", err, took.Round(time.Millisecond))
		})
	}
}

// TestExtractPDFConcurrent runs workers from several goroutines at once,
// as the batch pipeline's extractors do.
func TestExtractPDFConcurrent(t *testing.T) {
	src := (&testPDF{pages: [][]string{{"one"}, {"two"}, {"three"}}}).bytes()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			x, err := ExtractPDF("c.pdf", src, testLimits)
			if err != nil {
				t.Error(err)
				return
			}
			if got, want := strings.Join(strings.Fields(x.Text), " "), "one \f two \f three"; got != strings.Join(strings.Fields(want), " ") {
				t.Errorf("got %q, want %q", x.Text, want)
			}
		})
	}
	wg.Wait()
}

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// TestWorkerOutlivesNoParent starts a worker from a helper that exits at
// once: the hanging worker must notice and exit, not linger as an orphan.
func TestWorkerOutlivesNoParent(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	cmd, _ := helperWorker("spawn", nil)()
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("helper said %q", out)
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
			t.Fatalf("orphaned worker %d still running after 3s", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie has ended).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z'
}

func TestRunWorkerUsage(t *testing.T) {
	var out bytes.Buffer
	if code := RunWorker(strings.NewReader(""), &out, []string{"--bogus"}); code != 2 {
		t.Errorf("got exit code %d, want 2", code)
	}
	if !strings.Contains(out.String(), `"reason":"usage"`) || !strings.Contains(out.String(), "bogus") {
		t.Errorf("got %q, want a done line with reason usage", out.String())
	}
}

// TestRunWorkerProtocol runs the worker in process, without a memory
// limit, and reads its answer back as the parent does.
func TestRunWorkerProtocol(t *testing.T) {
	src := (&testPDF{pages: [][]string{{"one"}, {"two"}}}).bytes()
	var out bytes.Buffer
	if code := RunWorker(bytes.NewReader(src), &out, []string{"--memory-bytes=0"}); code != 0 {
		t.Fatalf("exit code %d: %s", code, out.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("got %d lines, want 3 (two pages, done):\n%s", n, out.String())
	}
	res, err := readWorker(&out, testLimits.withDefaults())
	if err != nil || res.doc == nil || len(res.pages) != 2 || res.reason != "" {
		t.Fatalf("got %+v, %v", res, err)
	}
	// A line over the output budget is refused without being held whole.
	_, err = readWorker(strings.NewReader(strings.Repeat("x", 5<<20)), PDFLimits{MaxTextBytes: 1, MaxPages: 1})
	if err == nil || !strings.Contains(err.Error(), "output over") {
		t.Errorf("got %v, want output over the budget", err)
	}
}

func TestAssemblePDF(t *testing.T) {
	pages := []pdf.Page{
		{Number: 1, Label: "", Text: "Title\u000c page\x01\r\nCafe\u0301", LowConfidence: ""},
		{Number: 2, Text: "", Err: "pdf: stream too large"},
		{Number: 3, Text: "\ufffd\ufffd", LowConfidence: "replacement_chars",
			Headings: []pdf.Heading{{Text: "Big   heading", Level: 1, Offset: 0}}},
		{Number: 4, Text: "Intro\nbig heading here\nSmall one\ntext", Headings: []pdf.Heading{
			{Text: "big heading", Level: 1, Offset: 6}, {Text: "Small one", Level: 2, Offset: 23}}},
	}
	x := assemblePDF(pages, &pdf.Doc{Pages: 4})
	wantText := "Title\n page\nCafé\f\f\ufffd\ufffd\fIntro\nbig heading here\nSmall one\ntext"
	if x.Text != wantText {
		t.Errorf("text: got %q, want %q", x.Text, wantText)
	}
	want := store.Layout{
		PageStarts:    []int{0, 17, 18, 21},
		LowConfidence: []store.PageFlag{{Page: 2, Reason: "page_error"}, {Page: 3, Reason: "replacement_chars"}},
		// From the font-size headings, as there is no outline; the one on
		// page 3 is not in the text, so it stays at its offset.
		Sections: []store.Section{
			{Start: 18, End: 27, Path: []string{"Big heading"}},
			{Start: 27, End: 58, Path: []string{"big heading"}},
			{Start: 44, End: 58, Path: []string{"big heading", "Small one"}},
		},
	}
	if diff := cmp.Diff(want, x.Layout); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}

	// An outline wins over font sizes; bookmarks without a page or title,
	// or past the last page, are dropped; labels come through.
	pages[0].Label, pages[1].Label = "i", "ii"
	x = assemblePDF(pages, &pdf.Doc{Pages: 4, Outline: []pdf.OutlineEntry{
		{Title: "SMALL  ONE", Level: 1, Page: 4}, {Title: "x", Level: 1, Page: 0}, {Title: " ", Level: 1, Page: 1},
		{Title: "y", Level: 1, Page: 9}, {Title: "Café", Level: 1, Page: 1}, {Title: "page", Level: 2, Page: 1},
	}})
	if diff := cmp.Diff([]string{"i", "ii", "", ""}, x.Layout.PageLabels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	// "page" is searched after "Café" on its page, not found there, and
	// so starts with it, nested under it.
	wantSecs := []store.Section{
		{Start: 12, End: 44, Path: []string{"Café"}},
		{Start: 12, End: 44, Path: []string{"Café", "page"}},
		{Start: 44, End: 58, Path: []string{"SMALL ONE"}},
	}
	if diff := cmp.Diff(wantSecs, x.Layout.Sections); diff != "" {
		t.Errorf("outline sections (-want +got):\n%s", diff)
	}
}

// TestAssemblePDFManyBookmarks: a hostile outline, thousands of bookmarks
// whose titles are nowhere on a large page, must not hold the parent.
func TestAssemblePDFManyBookmarks(t *testing.T) {
	page := strings.Repeat("lorem ipsum ", 200_000) // 2.4 MB
	outline := make([]pdf.OutlineEntry, 5000)
	for i := range outline {
		outline[i] = pdf.OutlineEntry{Title: "missing " + strconv.Itoa(i), Level: 1, Page: 1}
	}
	begin := time.Now()
	x := assemblePDF([]pdf.Page{{Number: 1, Text: page}}, &pdf.Doc{Pages: 1, Outline: outline})
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	if len(x.Layout.Sections) != len(outline) {
		t.Errorf("got %d sections, want %d", len(x.Layout.Sections), len(outline))
	}
}

// FuzzAssemblePDF: whatever a worker reports, the layout is consistent.
func FuzzAssemblePDF(f *testing.F) {
	f.Add("Intro\nbody", "", "Intro", 1, 1, "body\f\x00\r\n", "Big", 0)
	f.Add("\xff\xfe", "iv", "x", 3, 2, "Cafe\u0301 CAFÉ", "café", 9)
	f.Add("0", "0", "0", 1, 1, "1", "0", 61) // a heading offset past the page's end
	f.Fuzz(func(t *testing.T, text1, label1, title string, level, page int, text2, heading string, offset int) {
		pages := []pdf.Page{
			{Number: 1, Text: text1, Label: label1},
			{Number: 2, Text: text2, Headings: []pdf.Heading{{Text: heading, Level: level, Offset: offset}}},
		}
		for _, doc := range []*pdf.Doc{{Pages: 2, Outline: []pdf.OutlineEntry{{Title: title, Level: level, Page: page}}}, {Pages: 2}} {
			checkLayout(t, "fuzz", assemblePDF(pages, doc))
		}
	})
}

func TestFindTitle(t *testing.T) {
	for _, tc := range []struct {
		page, title string
		from, want  int
	}{
		{"1 Introduction\ntext", "1 introduction", 0, 0},
		{"see Introduction\n\nIntroduction", "Introduction", 5, 18},
		{"Reintroduction\nIntroduction", "Introduction", 0, 15},
		{"Chapter\n  One here", "chapter one", 0, 0},
		{"Chapter Ones", "chapter one", 0, -1},
		{"ÉTAT des lieux", "état", 0, 0},
		{"abc", "", 0, -1},
	} {
		if got := findTitle(tc.page, tc.title, tc.from); got != tc.want {
			t.Errorf("findTitle(%q, %q, %d) = %d, want %d", tc.page, tc.title, tc.from, got, tc.want)
		}
	}
}

// sharedCorpus returns a folder of ../shared/corpus, or skips. The
// reader is five to ten times slower under the race detector, so the
// corpora are skipped there; TestExtractPDFConcurrent covers the parent.
func sharedCorpus(t *testing.T, sub string) string {
	t.Helper()
	if raceEnabled() {
		t.Skip("the race detector makes the corpus runs slow")
	}
	dir := filepath.Join("..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared corpus not found at %s (it sits beside the repository as ../shared/corpus): %v", dir, err)
	}
	return dir
}

// TestPDFHardCorpus runs every file of ../shared/corpus/pdf-hard through
// the worker, two at a time: each either extracts or fails with a
// classified reason, none past its timeout, and the parent never crashes.
func TestPDFHardCorpus(t *testing.T) {
	dir := sharedCorpus(t, "pdf-hard")
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	lim := PDFLimits{Timeout: 2 * time.Second, MemoryBytes: 1 << 30, Worker: testWorker}
	type outcome struct {
		file, reason string
		pages        int
		took         time.Duration
		err          error
	}
	outcomes := make([]outcome, len(files))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			src, err := os.ReadFile(f)
			if err != nil {
				t.Error(err)
				return
			}
			begin := time.Now()
			x, err := ExtractPDF(f, src, lim)
			o := outcome{file: filepath.Base(f), took: time.Since(begin), err: err, reason: "ok"}
			if err != nil {
				var ee *ExtractError
				if !errors.As(err, &ee) {
					t.Errorf("%s: got %v, want an *ExtractError", o.file, err)
				} else {
					o.reason = ee.Reason
				}
			} else {
				o.pages = len(x.Layout.PageStarts)
				checkLayout(t, o.file, x)
			}
			outcomes[i] = o
		}()
	}
	wg.Wait()
	tally := map[string]int{}
	for _, o := range outcomes {
		tally[o.reason]++
		switch o.reason {
		case "ok", ReasonEncrypted, ReasonMalformed, ReasonNoText, ReasonTimeout, ReasonMemoryLimit, ReasonTooLarge:
		default:
			t.Errorf("%s: unclassified reason %q: %v", o.file, o.reason, o.err)
		}
		if o.took > lim.Timeout+3*time.Second { // slack for process start on a loaded machine
			t.Errorf("%s: took %v, over the %v timeout", o.file, o.took, lim.Timeout)
		}
		if testing.Verbose() && o.err != nil {
			t.Logf("%-60s %-12s %v", o.file, o.reason, o.err)
		}
	}
	var keys []string
	for k := range tally {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, tally[k])
	}
	t.Logf("pdf-hard, %d files:%s", len(files), b.String())
}

// TestPDFCorpusPages checks, over ../shared/corpus/pdf, that every file
// the worker reads has the page count of the manifest (pdfinfo's) and a
// consistent layout. About 4 s on two cores; -short skips it.
func TestPDFCorpusPages(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: not running over ../shared/corpus/pdf")
	}
	dir := sharedCorpus(t, "pdf")
	want := map[string]int{}
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if n, err := strconv.Atoi(cols[min(3, len(cols)-1)]); err == nil {
			want[cols[0]] = n
		}
	}
	f.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	tally := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for _, file := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			src, err := os.ReadFile(file)
			if err != nil {
				t.Error(err)
				return
			}
			x, err := ExtractPDF(file, src, PDFLimits{Timeout: 30 * time.Second, Worker: testWorker})
			reason := "ok"
			var ee *ExtractError
			switch {
			case errors.As(err, &ee):
				reason = ee.Reason
				t.Logf("%s: %v", filepath.Base(file), err)
			case err != nil:
				t.Errorf("%s: got %v, want an *ExtractError", file, err)
			default:
				if n, ok := want[filepath.Base(file)]; ok && len(x.Layout.PageStarts) != n {
					t.Errorf("%s: got %d pages, want %d", filepath.Base(file), len(x.Layout.PageStarts), n)
				}
				checkLayout(t, filepath.Base(file), x)
			}
			mu.Lock()
			tally[reason]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("pdf, %d files: %v", len(files), tally)
}

// testPDF writes a small PDF by hand: Courier text lines per page
// (WinAnsi bytes), optional /PageLabels and outline, correct xref.
type testPDF struct {
	pages   [][]string // lines of each page; nil is an empty page
	labels  string     // the /PageLabels number tree's body, or ""
	outline []outlineItem
}

type outlineItem struct {
	title string
	page  int // 1-based; 0 for no destination
	kids  []outlineItem
}

func (p *testPDF) bytes() []byte {
	var objs []string // objs[i] is object i+1
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	set := func(n int, s string) { objs[n-1] = s }
	catalog := add("")
	pagesObj := add("")
	font := add("<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>")
	var kids []string
	pageObjs := make([]int, len(p.pages))
	for i, lines := range p.pages {
		var c strings.Builder
		if len(lines) > 0 {
			c.WriteString("BT /F1 12 Tf 14 TL 72 720 Td\n")
			for j, l := range lines {
				if j > 0 {
					c.WriteString("T* ")
				}
				c.WriteString("(" + pdfEscape(l) + ") Tj\n")
			}
			c.WriteString("ET\n")
		}
		content := add(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", c.Len(), c.String()))
		pageObjs[i] = add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>",
			pagesObj, font, content))
		kids = append(kids, fmt.Sprintf("%d 0 R", pageObjs[i]))
	}
	set(pagesObj, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	cat := fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R", pagesObj)
	if p.labels != "" {
		cat += " /PageLabels << " + p.labels + " >>"
	}
	if len(p.outline) > 0 {
		root := add("")
		first, last := p.addItems(&objs, root, p.outline, pageObjs)
		set(root, fmt.Sprintf("<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>", first, last, len(p.outline)))
		cat += fmt.Sprintf(" /Outlines %d 0 R", root)
	}
	set(catalog, cat+" >>")

	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f\r\n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n\r\n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, catalog, xref)
	return b.Bytes()
}

// addItems adds a level of outline items under parent and returns the
// first and last.
func (p *testPDF) addItems(objs *[]string, parent int, items []outlineItem, pageObjs []int) (first, last int) {
	nums := make([]int, len(items))
	for i := range items {
		*objs = append(*objs, "")
		nums[i] = len(*objs)
	}
	for i, it := range items {
		d := fmt.Sprintf("<< /Title (%s) /Parent %d 0 R", pdfEscape(it.title), parent)
		if it.page > 0 {
			d += fmt.Sprintf(" /Dest [%d 0 R /XYZ 0 792 0]", pageObjs[it.page-1])
		}
		if i > 0 {
			d += fmt.Sprintf(" /Prev %d 0 R", nums[i-1])
		}
		if i+1 < len(items) {
			d += fmt.Sprintf(" /Next %d 0 R", nums[i+1])
		}
		if len(it.kids) > 0 {
			f, l := p.addItems(objs, nums[i], it.kids, pageObjs)
			d += fmt.Sprintf(" /First %d 0 R /Last %d 0 R /Count %d", f, l, len(it.kids))
		}
		(*objs)[nums[i]-1] = d + " >>"
	}
	return nums[0], nums[len(nums)-1]
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}
