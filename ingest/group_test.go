package ingest

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store"
)

// commitCounter counts the write transactions of versions.
type commitCounter struct {
	*store.DB
	commits atomic.Int64
}

func (c *commitCounter) PutVersions(nvs []*store.NewVersion) ([]store.PutResult, error) {
	c.commits.Add(1)
	return c.DB.PutVersions(nvs)
}

// TestCommitsGrouped: with one worker the writer used to commit each
// version as it came (the queue is rarely more than one deep), an fsync or
// two per small file; it now waits a few milliseconds for more, so a batch
// of small files takes a few commits.
func TestCommitsGrouped(t *testing.T) {
	dir := t.TempDir()
	const files = 120
	if _, err := corpus.WriteMarkdown(filepath.Join(dir, "src"), files, 2<<10, 3); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(dir, "e.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := &commitCounter{DB: db}
	sum, err := Run(context.Background(), c, []string{filepath.Join(dir, "src")}, Options{Workers: 1, Base: dir})
	if err != nil || sum.Ingested != files {
		t.Fatalf("Run: %v, %+v", err, sum)
	}
	if n := c.commits.Load(); n > files/4 {
		t.Errorf("%d commits for %d files, want at most %d", n, files, files/4)
	}
	// The summary counts the same commits, and bbolt's two fdatasync each.
	if n := c.commits.Load(); int64(sum.Commits) != n || sum.Fsyncs != 2*sum.Commits {
		t.Errorf("summary: %d commits, %d fsyncs; want %d and %d", sum.Commits, sum.Fsyncs, n, 2*n)
	}
	if sum.Seconds <= 0 || sum.MBPerSecond <= 0 || sum.MBPerSecond*sum.Seconds*1e6 > float64(sum.SourceBytes)*1.0001 {
		t.Errorf("summary: %g s, %g MB/s for %d bytes, want both positive and consistent", sum.Seconds, sum.MBPerSecond, sum.SourceBytes)
	}
	// Again: everything unchanged, nothing committed.
	again, err := Run(context.Background(), c, []string{filepath.Join(dir, "src")}, Options{Workers: 1, Base: dir})
	if err != nil || again.Unchanged != files || again.Commits != 0 || again.Fsyncs != 0 {
		t.Errorf("re-ingest: %v, %d unchanged, %d commits, %d fsyncs; want %d unchanged and no commit", err, again.Unchanged, again.Commits, again.Fsyncs, files)
	}
}
