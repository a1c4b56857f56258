package main

import (
	"github.com/spf13/cobra"
)

func newDeleteCommand(o *options) *cobra.Command {
	var version, server string
	cmd := &cobra.Command{
		Use:   "delete DOC_ID",
		Short: "Delete a document or one version, leaving a tombstone",
		Long: `delete removes the text and chunks of a document's versions (or of --version only) and leaves a
tombstone: resolving them answers deleted, never not_found. Deleting the current version leaves the
document with no current version; an older version is never promoted silently. Deleted stays deleted: a
later ingest of the document, or of the deleted bytes under any id, is skipped as deleted unless
ingest --undelete (docs/versions.md). With --server URL (or EVIDENCE_SERVER), a running evidence serve
deletes it (DELETE /v1/documents/{id}; an administrator's token in EVIDENCE_TOKEN: a service token
acting for no user).`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var deleted []string
			if server != "" {
				sc, err := writeClient(server)
				if err != nil {
					return err
				}
				if deleted, err = sc.deleteDocument(args[0], version); err != nil {
					return err
				}
			} else {
				db, err := o.openStore(false)
				if err != nil {
					return err
				}
				defer db.Close()
				if deleted, err = db.Delete(args[0], version); err != nil {
					return err
				}
			}
			if o.json {
				return o.emit(map[string]any{"document_id": args[0], "deleted_versions": nonNil(deleted)})
			}
			for _, v := range deleted {
				o.printf("deleted %s %s\n", args[0], v)
			}
			if len(deleted) == 0 {
				o.printf("nothing to delete: %s is already a tombstone\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "delete only this `VERSION` of the document (its other versions stay)")
	cmd.Flags().StringVar(&server, "server", defaultServer(), writeFlagHelp)
	return cmd
}
