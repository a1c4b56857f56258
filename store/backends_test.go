package store_test

import (
	"os"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/postgres"
	"github.com/evidence-rag/evidence/store/storetest"
)

func TestMain(m *testing.M) { os.Exit(storetest.WithPostgres(m).Run()) }

// openStore opens the store a backend-generic test runs against: a bbolt
// file, or a PostgreSQL database in TestGenericOnPostgres. The tests do
// not run in parallel, so TestGenericOnPostgres can switch it.
var openStore = func(t *testing.T) *store.DB { return storetest.Open(t) }

// openPostgres opens a store in a new migrated database, audited at the
// end of the test as storetest.Open's are.
func openPostgres(t *testing.T) *store.DB {
	t.Helper()
	dsn := storetest.Postgres(t)
	if _, err := postgres.Migrate(dsn); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.Open(dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		findings, err := db.Check()
		if err != nil {
			t.Errorf("Check: %v", err)
		}
		for _, f := range findings {
			t.Errorf("Check: %s", f)
		}
		db.Close()
	})
	return db
}

// TestGenericOnPostgres runs the store's tests that hold for any backend
// (those that open their store through openStore) against PostgreSQL.
func TestGenericOnPostgres(t *testing.T) {
	storetest.Postgres(t) // or skip, saying why
	openStore = openPostgres
	defer func() { openStore = func(t *testing.T) *store.DB { return storetest.Open(t) } }()
	for _, tc := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"ACL", TestACL},
		{"DeleteDocument", TestDeleteDocument},
		{"DeleteNotFound", TestDeleteNotFound},
		{"DeleteVersion", TestDeleteVersion},
		{"FailureClearedByUnchangedIngest", TestFailureClearedByUnchangedIngest},
		{"Failures", TestFailures},
		{"PutUnchanged", TestPutUnchanged},
		{"PutVersion", TestPutVersion},
		{"PutVersionEmptyText", TestPutVersionEmptyText},
		{"PutVersionsAtomic", TestPutVersionsAtomic},
		{"PutVersionsBatch", TestPutVersionsBatch},
		{"Quarantined", TestQuarantined},
		{"SupersedeAndRestore", TestSupersedeAndRestore},
		{"JudgmentRoundTrip", TestJudgmentRoundTrip},
		{"PutEvalRun", TestPutEvalRun},
		{"ForEachTrace", TestForEachTrace},
		{"PutReviews", TestPutReviews},
		{"LayoutCacheAfterRestore", TestLayoutCacheAfterRestore},
		{"DeletedStaysDeleted", TestDeletedStaysDeleted},
		{"VersionsOfSource", TestVersionsOfSource},
	} {
		t.Run(tc.name, tc.run)
	}
}
