package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/evidence-rag/evidence/store"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one schema step: migrations/NNNN_name.sql, applied in
// order, each once, recorded in evidence_schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded steps in version order. Their numbers
// run from 1 without a gap: a gap is a build error that the tests catch.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("store: postgres: migration %s is not named NNNN_name.sql", base)
		}
		b, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: base, sql: string(b)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("store: postgres: migration %s: want version %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema this build reads and writes: the number of
// its last migration.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// The advisory lock keys (pg_advisory_xact_lock's bigint): one for every
// write transaction of the store, one for a schema migration. Any two
// numbers other programs are unlikely to pick.
const (
	lockWrite   int64 = 0x65766964_656e6365 // "evidence"
	lockMigrate int64 = 0x65766964_6d696772 // "evidmigr"
)

// schemaTable records the migrations applied, one row each.
const schemaTable = `CREATE TABLE IF NOT EXISTS evidence_schema (
    version integer PRIMARY KEY,
    name    text NOT NULL,
    applied timestamptz NOT NULL DEFAULT now()
)`

// appliedVersion returns the last migration applied, 0 when there is no
// schema table.
func appliedVersion(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM evidence_schema`).Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return 0, nil
	}
	return v, err
}

// checkSchema refuses a database whose schema is not this build's: none
// (run migrate), older (run migrate) or newer (a newer build's).
func checkSchema(ctx context.Context, b *backend) error {
	v, err := appliedVersion(ctx, b.pool)
	if err != nil {
		return b.unavailable(err)
	}
	want := SchemaVersion()
	switch {
	case v == 0:
		return fmt.Errorf("%w: %s has no evidence schema: run `evidence migrate --db '%s'` first", store.ErrNotStore, b.name, b.name)
	case v > want:
		return fmt.Errorf("%w: %s has schema %d, written by a newer build; this build knows schemas 1 to %d", store.ErrFormat, b.name, v, want)
	case v < want:
		return fmt.Errorf("%w: %s has schema %d and this build needs %d: run `evidence migrate --db '%s'` first", store.ErrFormat, b.name, v, want, b.name)
	}
	return nil
}

// MigrateReport is what Migrate did.
type MigrateReport struct {
	From, To int                  // schema versions
	Store    *store.MigrateReport // the store format's migration, after the schema's
}

// Migrate brings the database at dsn to this build's schema, each step in
// one transaction under an advisory lock (two migrations at once run one
// after the other), then initialises the store in it, or upgrades an
// older store format (store.MigrateWith). A database of a newer schema is
// refused and left alone.
func Migrate(dsn string) (*MigrateReport, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	b, err := connect(dsn, nil)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	rep := &MigrateReport{To: SchemaVersion()}
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockMigrate); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, schemaTable); err != nil {
			return err
		}
		v, err := appliedVersion(ctx, tx)
		if err != nil {
			return err
		}
		rep.From = v
		if v > rep.To {
			return fmt.Errorf("%w: %s has schema %d, written by a newer build; this build knows schemas 1 to %d", store.ErrFormat, b.name, v, rep.To)
		}
		for _, m := range ms[v:] {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("store: postgres: migration %s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO evidence_schema (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
				return err
			}
		}
		return nil
	})
	b.pool.Close()
	if err != nil {
		if errors.Is(err, store.ErrFormat) {
			return nil, err
		}
		return nil, b.unavailable(err)
	}
	// A writable open makes a new store in an empty database; one of an
	// older store format refuses it (ErrFormat) and is upgraded.
	db, err := Open(dsn, nil)
	if err == nil {
		rep.Store = &store.MigrateReport{From: store.FormatVersion, To: store.FormatVersion}
		return rep, db.Close()
	}
	if !errors.Is(err, store.ErrFormat) {
		return nil, err
	}
	rep.Store, err = store.MigrateWith(b.name, func(o *store.Options) (*store.DB, error) { return Open(dsn, o) }, nil)
	if err != nil {
		return nil, err
	}
	return rep, nil
}
