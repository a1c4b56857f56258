package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateCommand: a store of format 1 (the kept fixture) is read as it
// is, refused by a writing command with advice to migrate, migrated by
// `evidence migrate`, then written and audited clean; a second migrate has
// nothing to do.
func TestMigrateCommand(t *testing.T) {
	b, err := os.ReadFile("../../store/testdata/format1.db")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "old.db")
	if err := os.WriteFile(db, b, 0o600); err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(dir, "gamma.md")
	if err := os.WriteFile(doc, []byte("# Gamma\n\nThe limit is 40 units.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "--db", db, "docs"); code != exitOK || !strings.Contains(out, "alpha") {
		t.Fatalf("docs on format 1: exit %d\n%s%s", code, out, errs)
	}
	code, _, errs := runCLI(t, "--db", db, "ingest", "--base", dir, doc)
	if code != exitDamaged || !strings.Contains(errs, "evidence migrate --db "+db) {
		t.Fatalf("ingest into format 1: exit %d, want %d naming evidence migrate\n%s", code, exitDamaged, errs)
	}
	code, out, errs := runCLI(t, "--db", db, "migrate")
	if code != exitOK || !strings.Contains(out, "from format 1 to 2: sealed 18 chunks, 2 docs, 1 failures, 3 layouts, 4 versions and 3 text indexes") {
		t.Fatalf("migrate: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "--db", db, "ingest", "--base", dir, doc); code != exitOK {
		t.Fatalf("ingest after migrate: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "--db", db, "audit"); code != exitOK || !strings.Contains(out, " 0 findings") {
		t.Fatalf("audit after migrate: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCLI(t, "--db", db, "--json", "migrate"); code != exitOK || !strings.Contains(out, `"from_format": 2`) {
		t.Fatalf("second migrate: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "--db", filepath.Join(dir, "none.db"), "migrate"); code != exitNotFound || !strings.Contains(errs, "no store at") {
		t.Fatalf("migrate of no store: exit %d\n%s", code, errs)
	}
}
