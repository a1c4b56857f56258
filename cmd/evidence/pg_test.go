package main

import (
	"path/filepath"
	"strings"
	"testing"

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
