package postgres

import (
	"errors"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/storetest"
)

// eventually retries fn every 10ms for up to 10s and returns how long it
// took to succeed.
func eventually(t *testing.T, what string, fn func() error) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		err := fn()
		if err == nil {
			return time.Since(start)
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("%s: still %v after 10s", what, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadReplica: with a streaming replica as the read DSN, read
// transactions run on the replica and write transactions on the primary;
// a version written is read on the replica once replayed, and its delete
// likewise (the freshness rule: the replica lags by its replay delay).
func TestReadReplica(t *testing.T) {
	primary, replica := storetest.PostgresReplica(t)
	if _, err := Migrate(primary); err != nil {
		t.Fatal(err)
	}
	var db *store.DB
	eventually(t, "open with the replica", func() (err error) { db, err = OpenWithReplica(primary, replica, nil); return err })
	defer db.Close()

	b, err := connect(primary, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.reads, err = connect(replica, nil); err != nil {
		t.Fatal(err)
	}
	inRecovery := func(writable bool) bool {
		btx, err := b.Begin(writable)
		if err != nil {
			t.Fatal(err)
		}
		defer btx.Rollback()
		var rec bool
		if err := btx.(*tx).queryRow(`SELECT pg_is_in_recovery()`).Scan(&rec); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	if !inRecovery(false) {
		t.Error("a read transaction ran on the primary, want the replica")
	}
	if inRecovery(true) {
		t.Error("a write transaction ran on the replica, want the primary")
	}

	nv := storetest.NewVersion("r.txt", "Read on the replica once replayed.", 8)
	if _, err := db.PutVersion(nv); err != nil {
		t.Fatal(err)
	}
	lag := eventually(t, "the version on the replica", func() error {
		return db.View(func(tx *store.Tx) error { _, err := tx.Version(nv.Version.ID); return err })
	})
	if _, err := db.Delete("r.txt", ""); err != nil {
		t.Fatal(err)
	}
	lagDelete := eventually(t, "the delete on the replica", func() error {
		return db.View(func(tx *store.Tx) error {
			v, err := tx.Version(nv.Version.ID)
			if err != nil {
				return err
			}
			if _, err := tx.Chunk(v, 0); !errors.Is(err, store.ErrDeleted) {
				return errors.New("not deleted yet")
			}
			return nil
		})
	})
	t.Logf("replica lag seen: version %s, delete %s", lag, lagDelete)
	if fs, err := db.Check(); err != nil || len(fs) > 0 {
		t.Errorf("Check on the replica: %v %v", fs, err)
	}
}
