package main

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify/eval"
)

func newEvalReportCommand(o *options) *cobra.Command {
	var thresholds, baseline, htmlFile, viewerBase string
	var markdown bool
	var last int
	cmd := &cobra.Command{
		Use:   "report RUN [RUN...] [--html FILE]",
		Short: "Report a run: Markdown for CI logs, or a self-contained HTML page (--html) with bars, the trend and links to the evidence",
		Long: `report shows the first RUN (a stored run's id, latest, or a run record file): the metrics of each
split beside the thresholds of --thresholds FILE, failures by category, the failed test questions and why,
regressions against --baseline RUN, and with more RUNs (or --last N: the N most recent stored runs too)
the trend of the gated metrics. It never fails on the thresholds (that is gate's job).

By default it prints Markdown for CI logs. --html FILE (- for stdout) writes one self-contained HTML page
instead (no script, nothing loaded from anywhere): the test split's metrics as bars against their
thresholds, failures by category, the trend over the runs as charts, and every question, each failed claim
linked to its evidence in the viewer of evidence serve (/view/{chunk_id}, and the checked span at
/view/versions/{version}?start=&end=). The links are root-relative unless --viewer-base URL makes them
absolute (--viewer-base http://127.0.0.1:8080). Give --markdown as well to print the Markdown too.`,
		Args: argsBetween(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if viewerBase != "" && htmlFile == "" {
				return usagef("--viewer-base makes the links of the HTML report absolute: add --html FILE")
			}
			if htmlFile == "-" && cmd.Flags().Changed("markdown") && markdown {
				return usagef("--html - and --markdown both print to stdout: write the HTML to a file")
			}
			if last < 0 {
				return usagef("--last is never negative")
			}
			base, err := parseViewerBase(viewerBase)
			if err != nil {
				return err
			}
			var th *eval.Thresholds
			if thresholds != "" {
				if th, err = eval.LoadThresholds(thresholds); err != nil {
					return usageError{err}
				}
			}
			var runs []*eval.Record
			for _, ref := range args {
				rec, err := loadRun(o, ref)
				if err != nil {
					return err
				}
				runs = append(runs, rec)
			}
			if last > 0 {
				stored, err := lastRuns(o, last)
				if err != nil {
					return err
				}
				for _, rec := range stored { // a run given already is not shown twice
					if !slices.ContainsFunc(runs, func(r *eval.Record) bool { return r.RunID == rec.RunID }) {
						runs = append(runs, rec)
					}
				}
			}
			var baseRec *eval.Record
			if baseline != "" {
				if baseRec, err = loadRun(o, baseline); err != nil {
					return err
				}
			}
			var g *eval.GateResult
			if th != nil || baseRec != nil {
				gth := th
				if gth == nil {
					gth = &eval.Thresholds{Metrics: map[string]eval.Threshold{}}
				}
				g = eval.Gate(runs[0], gth, baseRec, eval.GateOptions{})
			}
			if htmlFile == "" || markdown && cmd.Flags().Changed("markdown") {
				if err := eval.WriteMarkdown(o.stdout, runs, th, g); err != nil {
					return err
				}
			}
			if htmlFile == "" {
				return nil
			}
			var buf bytes.Buffer
			if err := eval.WriteHTML(&buf, runs, th, g, viewerLinks(base)); err != nil {
				return err
			}
			if htmlFile == "-" {
				_, err := o.stdout.Write(buf.Bytes())
				return err
			}
			if err := os.WriteFile(htmlFile, buf.Bytes(), 0o600); err != nil {
				return err
			}
			if !cmd.Flags().Changed("markdown") {
				o.printf("wrote %s: run %s, %d questions, trend over %d run(s)\n", htmlFile, runs[0].RunID, runs[0].Statuses["total"], distinctRuns(runs))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&markdown, "markdown", true, "print the Markdown summary (the default without --html; with --html, give it to print both)")
	f.StringVar(&thresholds, "thresholds", "", "thresholds file to show beside the metrics (as for gate)")
	f.StringVar(&baseline, "baseline", "", "run to list regressions against")
	f.StringVar(&htmlFile, "html", "", "write the HTML report to FILE (- for stdout)")
	f.StringVar(&viewerBase, "viewer-base", "", "base URL of evidence serve, making the HTML report's evidence links absolute (default: root-relative /view/...)")
	f.IntVar(&last, "last", 0, "also show the N most recent stored runs in the trend")
	return cmd
}

// parseViewerBase checks --viewer-base: an http or https URL with a host
// and no query or fragment, returned without a final slash.
func parseViewerBase(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", usagef("--viewer-base %q: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", usagef("--viewer-base %q: want the server's base URL, http(s)://host[:port][/path], no query, fragment or credentials", s)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// viewerLinks links evidence to the viewer routes of evidence serve
// (server/viewer.go) under base ("" for root-relative links).
func viewerLinks(base string) eval.HTMLOptions {
	note := "evidence links are root-relative (/view/...): open the page from the server of evidence serve, or make them absolute with --viewer-base URL"
	if base != "" {
		note = "evidence links open the viewer of evidence serve at " + base
	}
	return eval.HTMLOptions{
		ChunkURL: func(id string) string { return base + "/view/" + url.PathEscape(id) },
		SpanURL: func(version string, start, end int) string {
			return fmt.Sprintf("%s/view/versions/%s?start=%d&end=%d", base, url.PathEscape(version), start, end)
		},
		Note: note,
	}
}

// lastRuns reads the n most recent stored runs, oldest first.
func lastRuns(o *options, n int) ([]*eval.Record, error) {
	db, err := o.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var raw [][]byte
	var ids []string
	err = db.View(func(tx *store.Tx) error {
		return tx.ForEachEvalRun(func(id, rec []byte) error {
			raw, ids = append(raw, bytes.Clone(rec)), append(ids, string(id))
			if len(raw) > n {
				raw, ids = raw[1:], ids[1:]
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	out := make([]*eval.Record, 0, len(raw))
	for i, b := range raw {
		rec, err := eval.ParseRecord(b)
		if err != nil {
			return nil, errorsJoinCorrupt(ids[i], err)
		}
		out = append(out, rec)
	}
	return out, nil
}

func distinctRuns(runs []*eval.Record) int {
	seen := map[string]bool{}
	for _, r := range runs {
		seen[r.RunID] = true
	}
	return len(seen)
}
