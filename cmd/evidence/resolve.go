package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
)

func newResolveCommand(o *options) *cobra.Command {
	var principal, server string
	cmd := &cobra.Command{
		Use:   "resolve CHUNK_ID",
		Short: "Resolve a chunk id to its exact stored span, status and access decision",
		Long: `resolve answers as a RAG application would at answer time: status ok, superseded, quarantined,
deleted, forbidden or not_found; for ok and superseded the exact span (checked against its BLAKE3),
its version, page and section, and a deep link: the source URL with #page=N for PDFs, a text fragment for
HTML, the heading anchor for Markdown, the W3C selectors (position, quote) and the version's text hash.
A principal outside the document's access list gets forbidden and no text.
The exit code is 5 for an unknown chunk (not_found), 3 when the chunk exists but nothing of it
may be served (quarantined, deleted, forbidden).

While evidence serve runs, it holds the store: resolve --server URL asks it instead.`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var c *resolve.Cited
			if server != "" {
				sc, err := newServerClient(server)
				if err != nil {
					return err
				}
				if c, err = sc.chunk(args[0], principal); err != nil {
					return err
				}
			} else {
				db, err := o.openStore(true)
				if err != nil {
					return err
				}
				defer db.Close()
				if c, err = resolve.ChunkCited(db, args[0], principal); err != nil {
					return err
				}
			}
			r := c.Resolution
			if o.json {
				if err := o.emit(c); err != nil {
					return err
				}
			} else {
				printResolution(o, r, c.Link)
			}
			return servedStatus("chunk "+args[0], r)
		},
	}
	cmd.Flags().StringVar(&principal, "principal", "", "`PRINCIPAL` asking, checked against the document's access list (forbidden: no text)")
	cmd.Flags().StringVar(&server, "server", defaultServer(), serverFlagHelp)
	return cmd
}

func printResolution(o *options, r *resolve.Resolution, l *resolve.DeepLink) {
	o.printf("status    %s", r.Status)
	if r.Reason != "" {
		o.printf(" (%s)", r.Reason)
	}
	o.printf("\n")
	if r.DocumentVersion == "" {
		return
	}
	o.printf("document  %s\nversion   %s (%s)\n", r.DocumentID, r.DocumentVersion, r.VersionStatus)
	if r.CurrentVersion != "" {
		o.printf("current   %s", r.CurrentVersion)
		if r.TextUnchanged {
			o.printf(" (text unchanged: this span is the current text)")
		}
		o.printf("\n")
	}
	if !r.Served() {
		return
	}
	o.printf("span      [%d, %d) code points\npage      %s\nsection   %s\nsource    %s\n",
		r.Start, r.End, resolve.PageString(r.Page, r.PageEnd, r.PageLabel), orDash(strings.Join(r.SectionPath, " > ")), orDash(r.SourceURL))
	if r.LowConfidence != "" {
		o.printf("warning   low-confidence page text: %s\n", r.LowConfidence)
	}
	printLink(o, l)
	o.printf("\n%s\n", r.Text)
}

// printLink prints a deep link: where a reader can open the span, or why
// nowhere, and the selectors that pin it to the version.
func printLink(o *options, l *resolve.DeepLink) {
	if l == nil {
		return
	}
	switch {
	case l.Kind != resolve.LinkNone && l.URL != "":
		o.printf("link      %s (%s", l.URL, l.Kind)
		if l.PageLabel != "" {
			o.printf(", printed page %s", l.PageLabel)
		}
		o.printf(")\n")
	case l.Kind != resolve.LinkNone:
		o.printf("link      %s (%s; %s)\n", l.Fragment, l.Kind, l.Fallback)
	default:
		o.printf("link      none: %s\n", l.Fallback)
	}
	if h := l.Highlight; h != nil {
		o.printf("highlight [%d, %d) code points\n", h.Start, h.End)
	}
	for _, s := range l.Target.Selector {
		switch s.Type {
		case resolve.TextPositionSelector:
			o.printf("selector  TextPositionSelector [%d, %d)\n", s.Start, s.End)
		case resolve.TextQuoteSelector:
			o.printf("selector  TextQuoteSelector prefix %q suffix %q\n", s.Prefix, s.Suffix)
		case resolve.FragmentSelector:
			o.printf("selector  FragmentSelector %s (%s)\n", s.Value, s.ConformsTo)
		}
	}
	o.printf("text hash %s (BLAKE3 of version %s)\n", l.Target.TextHash, l.Target.DocumentVersion)
}
