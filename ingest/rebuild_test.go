package ingest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// TestRebuild: new chunk settings make a new current version from stored
// text; chunk ids cited before keep resolving (superseded); going back to
// the first settings restores the first version; --chunks rebuilds with an
// import manifest.
func TestRebuild(t *testing.T) {
	db := storetest.Open(t)
	src := filepath.Join(sampleDir(t), "credit-agreement-summary.txt")
	first := resultFor(t, run(t, db, []string{src}, Options{}), "credit-agreement-summary.txt")
	cited := store.ChunkID(first.DocumentVersion, 2)
	before, err := resolve.Chunk(db, cited, "")
	if err != nil || before.Status != resolve.StatusOK {
		t.Fatalf("before: %v %v", before, err)
	}

	sum, err := Rebuild(context.Background(), db, nil, RebuildOptions{Chunk: ChunkOptions{Size: 300, Overlap: 30}})
	if err != nil {
		t.Fatal(err)
	}
	r := sum.Results[0]
	if r.Status != Ingested || r.Superseded != first.DocumentVersion || r.Chunks <= first.Chunks {
		t.Fatalf("rebuild: got %+v, want a new version of more chunks superseding %s", r, first.DocumentVersion)
	}
	after, err := resolve.Chunk(db, cited, "")
	if err != nil || after.Status != resolve.StatusSuperseded || after.Text != before.Text || after.CurrentVersion != r.DocumentVersion {
		t.Errorf("cited chunk after rebuild: got %s %q current %s, want superseded, same text, current %s", after.Status, after.Text, after.CurrentVersion, r.DocumentVersion)
	}
	// A rebuild with the first settings gives the id ingest gave: restored.
	sum, err = Rebuild(context.Background(), db, []string{"credit-agreement-summary.txt"}, RebuildOptions{Chunk: DefaultChunkOptions})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Results[0]; r.Status != Ingested || !r.Restored || r.DocumentVersion != first.DocumentVersion {
		t.Errorf("rebuild back: got %+v, want the first version restored", r)
	}
	// With a manifest.
	sum, err = Rebuild(context.Background(), db, []string{"credit-agreement-summary.txt"},
		RebuildOptions{Chunks: filepath.Join("testdata", "import", "drift-langchain.jsonl"), Repair: true, MaxQuarantined: &QuarantineLimit{Count: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r := sum.Results[0]; r.Status != Ingested || r.Repaired != 4 || r.Quarantined != 1 {
		t.Errorf("rebuild with manifest: got %+v, want 4 repaired, 1 quarantined", r)
	}
	if _, err := Rebuild(context.Background(), db, []string{"nope"}, RebuildOptions{}); err != nil {
		t.Fatal(err)
	} else if sum, _ := Rebuild(context.Background(), db, []string{"nope"}, RebuildOptions{}); sum.Failed != 1 {
		t.Errorf("unknown document: got %+v, want failed", sum.Results[0])
	}
}
