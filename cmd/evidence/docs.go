package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// docSummary is one row of `docs`.
type docSummary = resolve.DocumentSummary

func newDocsCommand(o *options) *cobra.Command {
	var server string
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "List documents with their current version",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rows []docSummary
			var failures []*store.Failure
			var err error
			if server != "" {
				rows, failures, err = serverDocs(server)
			} else {
				rows, failures, err = storeDocs(o)
			}
			if err != nil {
				return err
			}
			if rows == nil {
				rows = []docSummary{}
			}
			if o.json {
				return o.emit(map[string]any{"documents": rows, "failures": nonNil(failures)})
			}
			w := tabwriter.NewWriter(o.stdout, 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "DOCUMENT\tVERSION\tSTATUS\tVERSIONS\tPAGES\tCHUNKS\tQUARANTINED\tACL")
			for _, r := range rows {
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", r.DocumentID, orDash(r.CurrentVersion), r.Status,
					r.Versions, r.Pages, r.Chunks, r.Quarantined, orDash(strings.Join(r.ACL, ",")))
			}
			w.Flush()
			for _, f := range failures {
				o.printf("failed ingest: %s (%s)", f.Path, f.Reason)
				if d := ingest.Detail(f.Error, f.Path, f.Reason); d != "" {
					o.printf(": %s", d)
				}
				o.printf("\n")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", defaultServer(), serverFlagHelp)
	return cmd
}

func storeDocs(o *options) (rows []docSummary, failures []*store.Failure, err error) {
	db, err := o.openStore(true)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	rows = []docSummary{}
	err = db.View(func(tx *store.Tx) error {
		if err := tx.ForEachDocument(func(d *store.Document) error {
			s, err := resolve.Summarize(tx, d)
			rows = append(rows, s)
			return err
		}); err != nil {
			return err
		}
		return tx.ForEachFailure(func(f *store.Failure) error { failures = append(failures, f); return nil })
	})
	return rows, failures, err
}

// serverDocs lists what a running server shows the caller's token: the
// documents it may read (failed ingests only to an administrator).
func serverDocs(server string) ([]docSummary, []*store.Failure, error) {
	sc, err := newServerClient(server)
	if err != nil {
		return nil, nil, err
	}
	var out struct {
		Documents []docSummary     `json:"documents"`
		Failures  []*store.Failure `json:"failures"`
	}
	if err := sc.get("/v1/documents", "", &out); err != nil {
		return nil, nil, err
	}
	return out.Documents, out.Failures, nil
}

func newShowCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show DOC_ID",
		Short: "Show a document, its versions and their page and section structure",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			type versionView struct {
				*store.Version
				Layout *store.Layout `json:"layout,omitempty"`
			}
			var out struct {
				*store.Document
				VersionDetails []versionView `json:"version_details"`
			}
			err = db.View(func(tx *store.Tx) error {
				d, err := tx.Document(args[0])
				if err != nil {
					return err
				}
				out.Document = d
				for i := len(d.Versions) - 1; i >= 0; i-- {
					v, err := tx.Version(d.Versions[i])
					if err != nil {
						return err
					}
					vv := versionView{Version: v}
					if v.Status != store.StatusDeleted {
						if vv.Layout, err = tx.Layout(v); err != nil {
							return err
						}
					}
					out.VersionDetails = append(out.VersionDetails, vv)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if o.json {
				return o.emit(out)
			}
			d := out.Document
			o.printf("document  %s\ncurrent   %s\nacl       %s\n", d.ID, orDash(d.Current), orDash(strings.Join(d.ACL, ",")))
			if d.Deleted {
				o.printf("deleted   yes\n")
			}
			if !d.ACLUpdated.IsZero() {
				o.printf("acl updated %s\n", d.ACLUpdated.Format("2006-01-02 15:04:05Z"))
			}
			if !d.URLUpdated.IsZero() {
				o.printf("url updated %s\n", d.URLUpdated.Format("2006-01-02 15:04:05Z"))
			}
			for _, vv := range out.VersionDetails {
				v := vv.Version
				o.printf("\nversion %s  %s\n  created %s  %s  %s\n  source  %s  %d bytes  blake3 %s\n  text    %d code points  blake3 %s\n  %s, %s, %d quarantined\n  fingerprint %s\n",
					v.ID, v.Status, v.Created.Format("2006-01-02 15:04:05Z"), v.MediaType, v.SourceURL,
					v.SourcePath, v.SourceBytes, v.SourceHash, v.TextLen, v.TextHash, plural(v.Pages, "page"), plural(v.Chunks-v.Quarantined, "chunk"), v.Quarantined, v.Fingerprint)
				if l := vv.Layout; l != nil {
					for _, f := range l.LowConfidence {
						o.printf("  low-confidence page %d: %s\n", f.Page, f.Reason)
					}
					for _, s := range l.Sections {
						if len(s.Path) == 0 {
							continue
						}
						o.printf("  %8d–%-8d %s%s\n", s.Start, s.End, strings.Repeat("  ", len(s.Path)-1), s.Path[len(s.Path)-1])
					}
				}
			}
			return nil
		},
	}
	snapshotFlag(cmd, o)
	return cmd
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
