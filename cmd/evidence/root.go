package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/postgres"
)

// options are the global flags and the output streams, shared by every command.
type options struct {
	db     string
	dbRead string // a read replica of a PostgreSQL --db (--db-read)
	json   bool
	stdout io.Writer
	stderr io.Writer
	// snapshotServer, when set (--server of the inspection commands), makes
	// read-only opens read a snapshot of that running server's store.
	snapshotServer string
	// writeServer, when set, is the server a write command (ingest,
	// rebuild) went through, for its summary.
	writeServer string
	// pdfWorker starts the worker process that reads a PDF (ingest and
	// serve's uploads): ingest.SelfWorker, or a test's helper.
	pdfWorker func() (*exec.Cmd, error)
}

// openStore opens the store for writing, or read-only for commands that
// only read (so they work beside a process that holds the write lock).
// A postgres:// or postgresql:// --db is a PostgreSQL database
// (docs/postgres.md); anything else is a bbolt file.
func (o *options) openStore(readOnly bool) (*store.DB, error) {
	if readOnly && o.snapshotServer != "" {
		return openSnapshot(o.snapshotServer)
	}
	if o.dbRead != "" {
		if !postgres.IsDSN(o.db) || !postgres.IsDSN(o.dbRead) {
			return nil, usagef("--db-read is a postgres:// URL of a read replica of the PostgreSQL database --db names")
		}
		return postgres.OpenWithReplica(o.db, o.dbRead, &store.Options{ReadOnly: readOnly})
	}
	return openNamed(o.db, readOnly)
}

// openNamed opens the store at name: a PostgreSQL database for a
// postgres:// URL, else a bbolt file, which a read-only open does not
// create.
func openNamed(name string, readOnly bool) (*store.DB, error) {
	if postgres.IsDSN(name) {
		return postgres.Open(name, &store.Options{ReadOnly: readOnly})
	}
	if readOnly {
		if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: no store at %s (ingest something first, or set --db)", store.ErrNotFound, name)
		}
	}
	return store.Open(name, &store.Options{ReadOnly: readOnly})
}

// dbMissing reports whether --db names a store file that does not exist
// (a database is never missing: opening it says what is wrong).
func (o *options) dbMissing() bool {
	if postgres.IsDSN(o.db) {
		return false
	}
	_, err := os.Stat(o.db)
	return errors.Is(err, os.ErrNotExist)
}

// dbName is --db as messages name it: a DSN without its password.
func (o *options) dbName() string { return postgres.Redact(o.db) }

// emit writes v as indented JSON.
func (o *options) emit(v any) error {
	enc := json.NewEncoder(o.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func (o *options) printf(format string, args ...any) { fmt.Fprintf(o.stdout, format, args...) }

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	return newRootCommandWith(&options{stdout: stdout, stderr: stderr, pdfWorker: ingest.SelfWorker})
}

// newRootCommandWith is the root command over o (tests set its pdfWorker).
func newRootCommandWith(o *options) *cobra.Command {
	root := &cobra.Command{
		Use:   "evidence",
		Short: "Make RAG citations checkable: ingest documents, resolve and audit the spans citations point at",
		Long: `evidence extracts canonical text once per immutable document version, records every chunk's
coordinates (code-point offsets, pages, section path) in a bbolt store, validates each chunk against the
stored text and quarantines those that do not resolve. Citations are resolved to the exact stored span.

Offsets are half-open ranges of Unicode code points into a version's canonical text.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(o.stdout)
	root.SetErr(o.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	def := os.Getenv("EVIDENCE_DB")
	if def == "" {
		def = "./evidence.db"
	}
	root.PersistentFlags().StringVar(&o.db, "db", def, "store file, or a postgres:// URL of a PostgreSQL database (env EVIDENCE_DB; docs/postgres.md)")
	root.PersistentFlags().StringVar(&o.dbRead, "db-read", os.Getenv("EVIDENCE_DB_READ"), "a postgres:// URL of a streaming replica of --db that read transactions use (env EVIDENCE_DB_READ; docs/postgres.md#read-replicas)")
	root.PersistentFlags().BoolVar(&o.json, "json", false, "write JSON (field names of docs/contract.md)")
	root.SetHelpTemplate(root.HelpTemplate() + "\n" + exitHelp)
	root.AddCommand(
		newIngestCommand(o),
		newRebuildCommand(o),
		newDocsCommand(o),
		newShowCommand(o),
		newChunkCommand(o),
		newChunksCommand(o),
		newTextCommand(o),
		newResolveCommand(o),
		newQuarantineCommand(o),
		newDeleteCommand(o),
		newAuditCommand(o),
		newMigrateCommand(o),
		newCopyCommand(o),
		newVerifyCommand(o),
		newPolicyCommand(o),
		newTraceCommand(o),
		newReviewCommand(o),
		newEvalCommand(o),
		newExtractWorkerCommand(o),
		newServeCommand(o),
	)
	prof := &profiles{}
	prof.addFlags(root)
	prof.wrap(root)
	return root
}

// argsBetween validates the number of positional arguments as a usage error.
func argsBetween(min, max int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < min || (max >= 0 && len(args) > max) {
			switch {
			case min == max:
				return usagef("%s takes %d argument(s), got %d", cmd.CommandPath(), min, len(args))
			case max < 0:
				return usagef("%s takes at least %d argument(s), got %d", cmd.CommandPath(), min, len(args))
			}
			return usagef("%s takes %d to %d arguments, got %d", cmd.CommandPath(), min, max, len(args))
		}
		return nil
	}
}
