package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/evidence-rag/evidence/ingest"
)

// defaultProgressEvery is how often a batch ingest whose stderr is not a
// terminal (CI, a log file) writes a progress line.
const defaultProgressEvery = 5 * time.Second

// progressFor returns the progress callback of a batch ingest and the
// function that ends it (call it before writing the summary): a redrawn
// bar on a terminal (none with --json), else a line every interval on
// stderr, so a long job in CI shows it is alive and how fast it goes.
func progressFor(o *options, every time.Duration) (func(done, total int, r *ingest.Result), func()) {
	if f, ok := o.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if o.json {
			return nil, func() {}
		}
		return progressBar(o), func() {}
	}
	if every <= 0 {
		return nil, func() {}
	}
	return progressLog(o.stderr, every, time.Now())
}

// progressLog writes a line to w every interval until stopped: files done
// of the batch's, pages and chunks done, the time taken and the rates. The
// writer goroutine of the batch updates the counts; a ticker writes them,
// also while one long file is extracted.
func progressLog(w io.Writer, every time.Duration, start time.Time) (func(int, int, *ingest.Result), func()) {
	var (
		mu                         sync.Mutex
		done, total, pages, chunks int
	)
	observe := func(d, t int, r *ingest.Result) {
		mu.Lock()
		done, total = d, t
		pages += r.Pages
		chunks += r.Chunks
		mu.Unlock()
	}
	quit, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case now := <-tick.C:
				mu.Lock()
				d, t, p, c := done, total, pages, chunks
				mu.Unlock()
				took := now.Sub(start)
				secs := max(took.Seconds(), 1e-9)
				round := time.Second
				if took < time.Second {
					round = time.Millisecond
				}
				files := plural(d, "file") + " done"
				if t > 0 {
					files = fmt.Sprintf("%d of %s", d, plural(t, "file"))
				}
				fmt.Fprintf(w, "progress: %s, %s, %s in %s; %.1f files/s, %.1f pages/s\n",
					files, plural(p, "page"), plural(c, "chunk"), took.Round(round), float64(d)/secs, float64(p)/secs)
			}
		}
	}()
	var once sync.Once
	return observe, func() { once.Do(func() { close(quit); <-finished }) }
}

// reportEmpty says so, on stderr, for each directory given that held no
// file to ingest: empty, or only files of unsupported types (listed as
// skipped) and hidden ones.
func reportEmpty(o *options, paths []string, sum *ingest.Summary) {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			continue
		}
		found, skipped := 0, 0
		for _, r := range sum.Results {
			if !under(p, r.Path) {
				continue
			}
			if r.Status == ingest.Skipped {
				skipped++
			} else {
				found++
			}
		}
		switch {
		case found > 0:
		case skipped > 0:
			fmt.Fprintf(o.stderr, "evidence: %s: nothing to ingest: no file of a supported type (%s), %s\n", p, strings.Join(ingest.Extensions(), " "), plural(skipped, "file")+" skipped")
		default:
			fmt.Fprintf(o.stderr, "evidence: %s: nothing to ingest: the directory holds no files\n", p)
		}
	}
}

// under reports whether path, as a directory walk from root names it, is
// inside root.
func under(root, path string) bool {
	root = filepath.Clean(root)
	if root == "." {
		return !filepath.IsAbs(path) && path != ".." && !strings.HasPrefix(path, ".."+string(filepath.Separator))
	}
	path = filepath.Clean(path)
	return path == root || strings.HasPrefix(path, root+string(filepath.Separator)) || root == string(filepath.Separator)
}
