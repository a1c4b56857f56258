package main

import (
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/evidence-rag/evidence/store/storetest"
)

// TestScriptsPostgres runs the scripts of testdata/pgscript against a
// real PostgreSQL, each in a new database named by $PGDSN ($PGDSN_PW is
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
			env.Setenv("PGDSN_PW", "postgres://postgres:Sup3rSecretPw@"+dsn[len("postgres://postgres@"):])
			return nil
		},
	})
}
