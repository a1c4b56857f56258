package main

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/postgres"
)

func newMigrateCommand(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Upgrade a store written in an older format to this build's",
		Long: fmt.Sprintf(`migrate upgrades the store at --db, in place and in one transaction, to format %d, the format this
build writes (docs/store-format.md#format-versions). A store of an older format can be read by this
build as it is, but not written: ingest, serve and the other writing commands refuse it and name this
command. The store must audit clean first; a damaged one is left as it was (exit 7). A crash or a full
disk during the migration leaves the old store. An older build cannot open the migrated store: copy the
file first if you may go back.

With a postgres:// --db it brings the database to this build's schema (schema %d, docs/postgres.md), each
step in one transaction, and makes a new store in an empty database: run it once before the first ingest,
and after installing a build with a newer schema. A database of a newer schema is refused (exit 7).`, store.FormatVersion, postgres.SchemaVersion()),
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if postgres.IsDSN(o.db) {
				return migratePostgres(o)
			}
			if _, err := os.Stat(o.db); errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("%w: no store at %s (set --db)", store.ErrNotFound, o.db)
			}
			rep, err := store.Migrate(o.db, nil)
			if err != nil {
				return err
			}
			if o.json {
				return o.emit(map[string]any{"db": o.db, "from_format": rep.From, "to_format": rep.To,
					"sealed_records": rep.Sealed, "sealed_texts": rep.Texts})
			}
			if rep.From == rep.To {
				o.printf("%s is format %d already: nothing to do\n", o.db, rep.To)
				return nil
			}
			var parts []string
			for _, name := range slices.Sorted(maps.Keys(rep.Sealed)) {
				if n := rep.Sealed[name]; n > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", n, name))
				}
			}
			sealed := "no records"
			if len(parts) > 0 {
				sealed = strings.Join(parts, ", ")
			}
			o.printf("migrated %s from format %d to %d: sealed %s and %d text indexes\n", o.db, rep.From, rep.To, sealed, rep.Texts)
			return nil
		},
	}
}

// migratePostgres applies the schema migrations to the database at --db.
func migratePostgres(o *options) error {
	rep, err := postgres.Migrate(o.db)
	if err != nil {
		return err
	}
	if o.json {
		return o.emit(map[string]any{"db": o.dbName(), "from_schema": rep.From, "to_schema": rep.To,
			"from_format": rep.Store.From, "to_format": rep.Store.To})
	}
	if rep.From == rep.To {
		o.printf("%s has schema %d already (store format %d): nothing to do\n", o.dbName(), rep.To, rep.Store.To)
		return nil
	}
	o.printf("migrated %s from schema %d to %d (store format %d)\n", o.dbName(), rep.From, rep.To, rep.Store.To)
	return nil
}
