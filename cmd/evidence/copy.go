package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/postgres"
)

func newCopyCommand(o *options) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy --from STORE --to STORE",
		Short: "Copy a store to another backend (a bbolt file to PostgreSQL and back), verified by audit on both sides",
		Long: `copy copies every record of the store --from (a file, or a postgres:// URL) into --to, a new store: a file
that does not exist yet, or a migrated PostgreSQL database (evidence migrate --db URL) holding no store yet.
The records are copied as they are, from one consistent read of --from, so the copy is the same store:
the same versions, chunk ids, tombstones, traces and verdicts. Then both are audited, as evidence audit
does: the copy exits 4 if either has findings. A copy that stops half way (a crash, a lost database) is
refused on open as unfinished: delete it and copy again. --from is only read (it may be in use).`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" || to == "" {
				return usagef("copy needs --from and --to")
			}
			if !postgres.IsDSN(to) {
				if _, err := os.Stat(to); !errors.Is(err, os.ErrNotExist) {
					return usagef("--to %s exists: copy into a new file", to)
				}
			}
			src, err := openNamed(from, true)
			if err != nil {
				return err
			}
			defer src.Close()
			dst, err := openNamed(to, false)
			if err != nil {
				return err
			}
			defer dst.Close()
			rep, err := store.Copy(src, dst)
			if err != nil {
				return err
			}
			if !o.json {
				o.printf("copied %s to %s: %d buckets, %d keys, %.1f MB\n", src.Path(), dst.Path(), rep.Buckets, rep.Keys, float64(rep.Bytes)/1e6)
			}
			findings := 0
			audits := map[string]any{}
			for _, side := range []struct {
				name string
				db   *store.DB
			}{{"from", src}, {"to", dst}} {
				fs, chunks, err := resolve.Audit(side.db)
				if err != nil {
					return fmt.Errorf("audit of %s: %w", side.db.Path(), err)
				}
				findings += len(fs)
				audits[side.name] = map[string]any{"store": side.db.Path(), "chunks_checked": chunks, "findings": nonNil(fs)}
				if !o.json {
					for _, f := range fs {
						o.printf("%s: %s\n", side.db.Path(), f)
					}
					o.printf("audit of %s: %s checked, %s\n", side.db.Path(), plural(chunks, "chunk"), plural(len(fs), "finding"))
				}
			}
			if o.json {
				if err := o.emit(map[string]any{"from": src.Path(), "to": dst.Path(), "buckets": rep.Buckets, "keys": rep.Keys, "bytes": rep.Bytes, "ok": findings == 0, "audit": audits}); err != nil {
					return err
				}
			}
			if findings > 0 {
				return &exitStatus{code: exitFindings, msg: "copy: the audits have " + plural(findings, "finding")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the store to copy: a file, or a postgres:// URL")
	cmd.Flags().StringVar(&to, "to", "", "the new store: a file that does not exist, or a migrated PostgreSQL database")
	return cmd
}
