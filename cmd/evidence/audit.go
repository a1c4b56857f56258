package main

import (
	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

func newAuditCommand(o *options) *cobra.Command {
	var subset string
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Re-hash every stored text and re-validate every chunk of every version",
		Long: `audit checks the whole store like restic check: bbolt's page structure (by a page walk that a
damaged file cannot crash), every record's checksum, key and cross-references, the BLAKE3 of every
stored text, and every servable chunk resolved again against the stored text and layout (range,
span hash, page, section). It exits 4 with typed findings when anything is wrong.

--read-data-subset reads the text and spans of part of the versions only (records are always all
checked): N/T the versions of group N of T, fixed by version id, so that runs 1/T to T/T read every
version once; P% that share of the versions, drawn at random.`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts store.CheckOptions
			if subset != "" {
				s, err := store.ParseSubset(subset)
				if err != nil {
					return usagef("--read-data-subset: %v", err)
				}
				opts.Subset = s
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			rep, err := resolve.AuditWith(db, opts)
			if err != nil {
				return err
			}
			if o.json {
				out := map[string]any{"ok": len(rep.Findings) == 0, "chunks_checked": rep.Chunks,
					"versions": rep.Versions, "versions_read": rep.Read, "findings": nonNil(rep.Findings)}
				if opts.Subset != nil {
					out["read_data_subset"] = opts.Subset.String()
				}
				if err := o.emit(out); err != nil {
					return err
				}
			} else {
				for _, f := range rep.Findings {
					o.printf("%s\n", f)
				}
				if opts.Subset != nil {
					o.printf("data of %d of %s read (subset %s)\n", rep.Read, plural(rep.Versions, "version"), opts.Subset)
				}
				o.printf("%s checked, %s\n", plural(rep.Chunks, "chunk"), plural(len(rep.Findings), "finding"))
			}
			if len(rep.Findings) > 0 {
				return &exitStatus{code: exitFindings, msg: "audit: " + plural(len(rep.Findings), "finding")}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&subset, "read-data-subset", "", "read the text and spans of a subset of versions only: N/T (group N of T) or P% (at random)")
	snapshotFlag(cmd, o)
	return cmd
}
