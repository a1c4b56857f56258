package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

func newChunkCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "chunk CHUNK_ID",
		Short: "Show a chunk record, quarantined or not, with its text",
		Long: `chunk shows the stored record of a chunk for inspection: coordinates, hash, status, and for a
quarantined chunk the finding (reason, claimed and found). It reads the store directly; use resolve for
the answer-time path with a principal.`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error { return showChunk(o, args[0]) },
	}
	snapshotFlag(cmd, o)
	return cmd
}

// showChunk prints a chunk's record: `chunk` and `quarantine show`.
func showChunk(o *options, id string) error {
	db, err := o.openStore(true)
	if err != nil {
		return err
	}
	defer db.Close()
	version, ordinal, err := store.ParseChunkID(id)
	if err != nil {
		return usageError{err}
	}
	var out struct {
		ChunkID       string       `json:"chunk_id"`
		DocumentID    string       `json:"document_id"`
		VersionStatus store.Status `json:"version_status"`
		SourceURL     string       `json:"source_url,omitempty"`
		*store.Chunk
		Text string `json:"text,omitempty"`
	}
	err = db.View(func(tx *store.Tx) error {
		v, err := tx.Version(version)
		if err != nil {
			return err
		}
		c, err := tx.Chunk(v, ordinal)
		if err != nil {
			return err
		}
		out.ChunkID, out.DocumentID, out.VersionStatus, out.SourceURL, out.Chunk = c.ID(), v.DocumentID, v.Status, v.SourceURL, c
		if c.Quarantine == nil {
			span, err := tx.Span(v, c)
			if err != nil {
				return err
			}
			out.Text = string(span)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if o.json {
		return o.emit(out)
	}
	c := out.Chunk
	o.printf("chunk     %s\ndocument  %s\nversion   %s (%s)\nspan      [%d, %d) code points\npage      %s\nsection   %s\nblake3    %s\n",
		out.ChunkID, out.DocumentID, c.Version, out.VersionStatus, c.Start, c.End, pageString(c.Page, c.PageEnd, c.PageLabel),
		orDash(strings.Join(c.SectionPath, " > ")), c.SpanHash)
	if q := c.Quarantine; q != nil {
		o.printf("QUARANTINED  %s\n  claimed [%d, %d): %s\n  found: %s\n", q.Reason, q.ClaimedStart, q.ClaimedEnd, q.Want, q.Got)
		return &exitStatus{code: exitPartial, msg: "chunk " + out.ChunkID + " is quarantined: " + q.Reason}
	}
	if r := c.Repair; r != nil {
		o.printf("REPAIRED  %s by %s", r.Reason, r.Method)
		if r.Distance > 0 {
			o.printf(" (distance %d)", r.Distance)
		}
		o.printf("\n  claimed [%d, %d) page %d %q section %q\n", r.ClaimedStart, r.ClaimedEnd, r.ClaimedPage, r.ClaimedPageLabel, strings.Join(r.ClaimedSection, " > "))
	}
	if c.ExternalID != "" {
		o.printf("external  %s\n", c.ExternalID)
	}
	o.printf("\n%s\n", out.Text)
	return nil
}

func pageString(page, end int, label string) string {
	s := fmt.Sprint(page)
	if end != page {
		s += fmt.Sprintf("–%d", end)
	}
	if label != "" {
		s += fmt.Sprintf(" (printed %q)", label)
	}
	return s
}

func newChunksCommand(o *options) *cobra.Command {
	var version string
	cmd := &cobra.Command{
		Use:   "chunks [DOC_ID...]",
		Short: "Export servable chunk records as JSON Lines (what a vector index should embed)",
		Long: `chunks writes one JSON object a line for every validated chunk of the current version of each
document (all documents when none is named; --version for one version). Quarantined chunks are never
exported. Every span is checked against its recorded BLAKE3 before it is written.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			enc := json.NewEncoder(o.stdout)
			enc.SetEscapeHTML(false)
			emit := func(r *resolve.ChunkRecord) error { return enc.Encode(r) }
			return db.View(func(tx *store.Tx) error {
				if version != "" {
					v, err := tx.Version(version)
					if err != nil {
						return err
					}
					doc, err := tx.Document(v.DocumentID)
					if err != nil {
						return err
					}
					return resolve.Export(tx, v, doc, emit)
				}
				export := func(doc *store.Document) error {
					if doc.Current == "" {
						return nil
					}
					v, err := tx.Version(doc.Current)
					if err != nil {
						return err
					}
					return resolve.Export(tx, v, doc, emit)
				}
				if len(args) == 0 {
					return tx.ForEachDocument(export)
				}
				for _, id := range args {
					doc, err := tx.Document(id)
					if err != nil {
						return err
					}
					if err := export(doc); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&version, "version", "", "export this version instead of the current ones")
	snapshotFlag(cmd, o)
	return cmd
}

func newTextCommand(o *options) *cobra.Command {
	var start, end int
	var principal, server string
	cmd := &cobra.Command{
		Use:   "text VERSION",
		Short: "Print a version's canonical text, or the code-point range [--start, --end)",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("end") {
				end = -1
			}
			if server != "" {
				sc, err := newServerClient(server)
				if err != nil {
					return err
				}
				r, err := sc.text(args[0], start, end, principal)
				if err != nil {
					return err
				}
				return printText(o, args[0], r.Resolution)
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			if end < 0 {
				err = db.View(func(tx *store.Tx) error {
					v, err := tx.Version(args[0])
					if err == nil {
						end = v.TextLen
					}
					return err
				})
				if err != nil {
					return err
				}
			}
			r, err := resolve.Range(db, args[0], start, end, principal)
			if err != nil {
				return err
			}
			return printText(o, args[0], r)
		},
	}
	cmd.Flags().StringVar(&server, "server", defaultServer(), serverFlagHelp)
	cmd.Flags().IntVar(&start, "start", 0, "first code point (inclusive)")
	cmd.Flags().IntVar(&end, "end", -1, "last code point (exclusive); default: end of text")
	cmd.Flags().StringVar(&principal, "principal", "", "principal reading the text, checked against the document's access list")
	return cmd
}

func printText(o *options, version string, r *resolve.Resolution) error {
	if o.json {
		if err := o.emit(r); err != nil {
			return err
		}
	} else if r.Served() {
		if _, err := fmt.Fprint(o.stdout, r.Text); err != nil {
			return err
		}
	}
	if !r.Served() {
		return &exitStatus{code: exitPartial, msg: "version " + version + ": " + string(r.Status)}
	}
	return nil
}
