package main

import (
	"encoding/json"
	"fmt"
	"strconv"
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
		RunE: func(cmd *cobra.Command, args []string) error { return showChunk(o, args[0], false) },
	}
	snapshotFlag(cmd, o)
	return cmd
}

// showChunk prints a chunk's record: `chunk`, which exits 3 for a
// quarantined chunk (nothing servable), and `quarantine show` (audit set),
// for which showing one is success. An id that names no chunk, malformed
// or unknown, is not found.
func showChunk(o *options, id string, audit bool) error {
	version, ordinal, err := store.ParseChunkID(id)
	if err != nil {
		return &exitStatus{code: exitNotFound, msg: fmt.Sprintf("no such chunk: %q is not a chunk id (want <version>-<ordinal>)", id)}
	}
	db, err := o.openStore(true)
	if err != nil {
		return err
	}
	defer db.Close()
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
	c := out.Chunk
	var status error
	if q := c.Quarantine; q != nil && !audit {
		status = &exitStatus{code: exitPartial, msg: "chunk " + out.ChunkID + " is quarantined: " + q.Reason}
	}
	if o.json {
		if err := o.emit(out); err != nil {
			return err
		}
		return status
	}
	o.printf("chunk     %s\ndocument  %s\nversion   %s (%s)\n", out.ChunkID, out.DocumentID, c.Version, out.VersionStatus)
	if q := c.Quarantine; q != nil {
		// A quarantined chunk resolves to nothing: no span, page or hash of
		// its own, only what it claimed and what the text holds there.
		printQuarantine(o, c, q)
		if c.ExternalID != "" {
			o.printf("external  %s\n", c.ExternalID)
		}
		return status
	}
	o.printf("span      [%d, %d) code points\npage      %s\nsection   %s\nblake3    %s\n",
		c.Start, c.End, resolve.PageString(c.Page, c.PageEnd, c.PageLabel), orDash(strings.Join(c.SectionPath, " > ")), c.SpanHash)
	if r := c.Repair; r != nil {
		o.printf("REPAIRED  %s by %s", r.Reason, r.Method)
		if r.Distance > 0 {
			o.printf(" (distance %d)", r.Distance)
		}
		o.printf("\n  claimed   %s\n", claimedCoordinates(r.ClaimedStart, r.ClaimedEnd, r.ClaimedPage, r.ClaimedPageLabel, r.ClaimedSection))
	} else if audit {
		o.printf("not quarantined: the chunk validated and is served\n")
	}
	if c.ExternalID != "" {
		o.printf("external  %s\n", c.ExternalID)
	}
	o.printf("\n%s\n", out.Text)
	return nil
}

// printQuarantine prints a quarantined chunk's finding: the reason, the
// coordinates it claimed (those it gave) and what validation compared.
func printQuarantine(o *options, c *store.Chunk, q *store.Quarantine) {
	o.printf("QUARANTINED %s\nclaimed   %s\n", q.Reason, claimedCoordinates(q.ClaimedStart, q.ClaimedEnd, c.Page, c.PageLabel, c.SectionPath))
	if q.ClaimedText != "" {
		o.printf("          text %s\n", excerptOf(q.ClaimedText))
	}
	o.printf("compared  claimed %s\n          found   %s\n", q.Want, q.Got)
}

// claimedCoordinates says what a chunk claimed, leaving out what it did
// not claim (a page 0, no section) and naming offsets that are no range.
func claimedCoordinates(start, end, page int, label string, section []string) string {
	var parts []string
	switch {
	case start >= 0 && end > start:
		parts = append(parts, fmt.Sprintf("[%d, %d) code points", start, end))
	case start < 0:
		parts = append(parts, fmt.Sprintf("no usable offsets (start %d)", start))
	default:
		parts = append(parts, fmt.Sprintf("offsets [%d, %d), not a range", start, end))
	}
	if page > 0 {
		parts = append(parts, "page "+strconv.Itoa(page))
	}
	if label != "" {
		parts = append(parts, fmt.Sprintf("printed page %q", label))
	}
	if len(section) > 0 {
		parts = append(parts, "section "+strings.Join(section, " > "))
	}
	return strings.Join(parts, ", ")
}

// excerptOf quotes a claimed text, cut to its first 80 code points.
func excerptOf(s string) string {
	rs := []rune(s)
	if len(rs) <= 80 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q… (%s)", string(rs[:80]), plural(len(rs), "code point"))
}

func newChunksCommand(o *options) *cobra.Command {
	var version, server string
	cmd := &cobra.Command{
		Use:   "chunks [DOC_ID...]",
		Short: "Export servable chunk records as JSON Lines (what a vector index should embed)",
		Long: `chunks writes one JSON object a line for every validated chunk of the current version of each
document (all documents when none is named; --version for one version). Quarantined chunks are never
exported. Every span is checked against its recorded BLAKE3 before it is written. Each record carries
the document's access list (acl, [] for everyone) and, for an imported chunk, its external_id.

With --server URL (or EVIDENCE_SERVER), the records come from a running evidence serve a page at a time
(GET /v1/documents/{id}/chunks), under the token of EVIDENCE_TOKEN: documents it may not read are left
out, and acl is given to an administrator's token only.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			enc := json.NewEncoder(o.stdout)
			enc.SetEscapeHTML(false)
			emit := func(r *resolve.ChunkRecord) error { return enc.Encode(r) }
			if server != "" {
				return chunksThroughServer(server, args, version, emit)
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
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
	cmd.Flags().StringVar(&version, "version", "", "export the chunks of this `VERSION` instead of the current versions'")
	cmd.Flags().StringVar(&server, "server", defaultServer(), "ask the running evidence serve at this `URL` instead of opening the store (env EVIDENCE_SERVER; token from EVIDENCE_TOKEN): the documents the token may read")
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
	cmd.Flags().IntVar(&start, "start", 0, "first code point of the range (inclusive, from 0)")
	cmd.Flags().IntVar(&end, "end", 0, "code point the range ends before (exclusive; default: the end of the text)")
	cmd.Flags().StringVar(&principal, "principal", "", "`PRINCIPAL` reading the text, checked against the document's access list (forbidden: no text)")
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
	return servedStatus("version "+version, r)
}

// chunksThroughServer exports the records of the named documents (all the
// token may read when none is named) through GET /v1/documents/{id}/chunks.
func chunksThroughServer(server string, ids []string, version string, emit func(*resolve.ChunkRecord) error) error {
	sc, err := newServerClient(server)
	if err != nil {
		return err
	}
	if version != "" && len(ids) != 1 {
		return usagef("chunks --version with --server: name the version's document (chunks --server URL --version V DOC_ID)")
	}
	if len(ids) == 0 {
		if ids, err = sc.documentIDs(); err != nil {
			return err
		}
	}
	for _, id := range ids {
		if err := sc.chunks(id, version, emit); err != nil {
			return err
		}
	}
	return nil
}
