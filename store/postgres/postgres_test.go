package postgres

import (
	"os"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.WithPostgres(m).Run()) }

// migrated returns the DSN of a new database with this build's schema.
func migrated(t *testing.T) string {
	t.Helper()
	dsn := storetest.Postgres(t)
	if _, err := Migrate(dsn); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return dsn
}

// TestConformance runs the backend suite against PostgreSQL.
func TestConformance(t *testing.T) {
	storetest.Conformance(t, func(t *testing.T) *store.DB {
		db, err := Open(migrated(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		return db
	})
}
