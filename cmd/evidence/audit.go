package main

import (
	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
)

func newAuditCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Re-hash every stored text and re-validate every chunk of every version",
		Long: `audit checks the whole store like restic check: bbolt's page structure, every record, the BLAKE3
of every stored text, and every servable chunk resolved again against the stored text and layout
(range, span hash, page, section). It exits 4 with typed findings when anything is wrong.`,
		Args: argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			findings, chunks, err := resolve.Audit(db)
			if err != nil {
				return err
			}
			if o.json {
				if err := o.emit(map[string]any{"ok": len(findings) == 0, "chunks_checked": chunks, "findings": nonNil(findings)}); err != nil {
					return err
				}
			} else {
				for _, f := range findings {
					o.printf("%s\n", f)
				}
				o.printf("%s checked, %s\n", plural(chunks, "chunk"), plural(len(findings), "finding"))
			}
			if len(findings) > 0 {
				return &exitStatus{code: exitFindings, msg: "audit: " + plural(len(findings), "finding")}
			}
			return nil
		},
	}
	snapshotFlag(cmd, o)
	return cmd
}
