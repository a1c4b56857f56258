package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/evidence-rag/evidence/store/storetest"
)

// TestScriptsPostgres runs the scripts of testdata/pgscript against a
// real PostgreSQL, each in new databases named by $PGDSN and $PGDSN2 ($PGDSN_PW is
// the same database with a password in the URL, which the server's trust
// authentication ignores and no message may show). Skipped without
// PostgreSQL unless PG_REQUIRED=1.
func TestScriptsPostgres(t *testing.T) {
	storetest.Postgres(t) // starts the server, or skips
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "pgscript"),
		Setup: func(env *testscript.Env) error {
			dsn, err := storetest.NewPostgresDB()
			if err != nil {
				return err
			}
			env.Setenv("PGDSN", dsn)
			dsn2, err := storetest.NewPostgresDB()
			if err != nil {
				return err
			}
			env.Setenv("PGDSN2", dsn2)
			env.Setenv("PGDSN_PW", "postgres://postgres:Sup3rSecretPw@"+dsn[len("postgres://postgres@"):])
			return nil
		},
	})
}

// TestPostgresExitCodes: a database that cannot be reached exits 8 and
// names it without its password; one without the schema exits 7 and
// names evidence migrate.
func TestPostgresExitCodes(t *testing.T) {
	dsn := storetest.Postgres(t)
	code, _, errs := runCLI(t, "--db", "postgres://u:Pw-n0t-shown@127.0.0.1:1/db?connect_timeout=2", "docs")
	if code != exitNoDB || strings.Contains(errs, "Pw-n0t-shown") || !strings.Contains(errs, "postgres://u:xxxxx@127.0.0.1:1/db") {
		t.Errorf("unreachable database: exit %d, stderr %q; want %d naming the database without its password", code, errs, exitNoDB)
	}
	code, _, errs = runCLI(t, "--db", dsn, "ingest", t.TempDir())
	if code != exitDamaged || !strings.Contains(errs, "evidence migrate") {
		t.Errorf("unmigrated database: exit %d, stderr %q; want %d naming evidence migrate", code, errs, exitDamaged)
	}
}

// TestPostgresDBRead: --db-read sends the reads of a command to a
// streaming replica; the replica shows an ingest once it has replayed it.
// --db-read beside a store file is a usage error.
func TestPostgresDBRead(t *testing.T) {
	primary, replica := storetest.PostgresReplica(t)
	if code, _, errs := runCLI(t, "--db", primary, "migrate"); code != exitOK {
		t.Fatalf("migrate: exit %d: %s", code, errs)
	}
	waitFor := func(what string, ok func(code int, out string) bool, args ...string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			code, out, errs := runCLI(t, args...)
			if ok(code, out) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: exit %d after 10s:\n%s%s", what, code, out, errs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// The replica has the schema once it has replayed the migration.
	waitFor("docs through the replica after migrate", func(code int, _ string) bool { return code == exitOK }, "--db", primary, "--db-read", replica, "docs")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.md"), []byte("# R\n\nRead from the replica.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "--db", primary, "--db-read", replica, "ingest", "--base", dir, dir); code != exitOK {
		t.Fatalf("ingest with --db-read: exit %d: %s", code, errs)
	}
	waitFor("docs through the replica after ingest", func(code int, out string) bool { return code == exitOK && strings.Contains(out, "r.md") }, "--db", primary, "--db-read", replica, "docs")
	if code, _, errs := runCLI(t, "--db", filepath.Join(dir, "e.db"), "--db-read", replica, "docs"); code != exitUsage || !strings.Contains(errs, "--db-read") {
		t.Errorf("--db-read beside a file: exit %d %s, want %d", code, errs, exitUsage)
	}
}
