package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/verify/eval"
)

func newEvalGateCommand(o *options) *cobra.Command {
	var thresholds, baseline string
	var allowIncomplete, markdown bool
	cmd := &cobra.Command{
		Use:   "gate RUN --thresholds FILE",
		Short: "Pass or fail a run's test split against thresholds (exit 0 pass, 3 fail), listing regressions against a baseline",
		Long: `gate checks the test split of a run (a stored run's id, latest, or a run record file as
evidence --json eval run prints it) against a thresholds file, JSON or YAML (.yaml, .yml):

  {"metrics": {"citation_support_rate": {"min": 0.95}, "probe_memory_rate": {"max": 0}}}

A metric nothing in the test split measured fails its threshold. A run in which test questions were not
run, are invalid or have no usable answer fails unless --allow-incomplete. The dev split never gates.
With --baseline RUN it lists the test questions that regressed, by id, with what changed, and the gated
metrics then and now. --markdown prints the summary for CI logs. Exit 0 pass, 3 fail.`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if thresholds == "" {
				return usagef("gate needs --thresholds FILE")
			}
			th, err := eval.LoadThresholds(thresholds)
			if err != nil {
				return usageError{err}
			}
			rec, err := loadRun(o, args[0])
			if err != nil {
				return err
			}
			var base *eval.Record
			if baseline != "" {
				if base, err = loadRun(o, baseline); err != nil {
					return err
				}
			}
			g := eval.Gate(rec, th, base, eval.GateOptions{AllowIncomplete: allowIncomplete})
			switch {
			case o.json:
				if err := o.emit(g); err != nil {
					return err
				}
			case markdown:
				if err := eval.WriteMarkdown(o.stdout, []*eval.Record{rec}, th, g); err != nil {
					return err
				}
			default:
				printGate(o, g)
			}
			if !g.Pass {
				return &exitStatus{code: exitPartial, msg: "gate failed: " + gateSummary(g)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&thresholds, "thresholds", "", "thresholds file (JSON, or YAML when named .yaml or .yml)")
	cmd.Flags().StringVar(&baseline, "baseline", "", "run to compare with (stored id, latest, or record file): lists the test questions that regressed")
	cmd.Flags().BoolVar(&allowIncomplete, "allow-incomplete", false, "pass a run whose test split was not wholly run when the thresholds hold")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the Markdown summary (for CI logs) instead of the plain verdict")
	return cmd
}

func gateSummary(g *eval.GateResult) string {
	var parts []string
	for _, c := range g.Checks {
		if !c.Pass {
			parts = append(parts, c.Metric+" "+c.Reason)
		}
	}
	parts = append(parts, g.Incomplete...)
	return strings.Join(parts, "; ")
}

func printGate(o *options, g *eval.GateResult) {
	verdict := "FAIL"
	if g.Pass {
		verdict = "PASS"
	}
	o.printf("gate %s: run %s, %s split, %d questions\n", verdict, g.RunID, g.Split, g.Questions)
	for _, c := range g.Checks {
		mark := "ok  "
		if !c.Pass {
			mark = "FAIL"
		}
		bound := ""
		if c.Min != nil {
			bound += fmt.Sprintf(" min %s", metricCell(*c.Min, true))
		}
		if c.Max != nil {
			bound += fmt.Sprintf(" max %s", metricCell(*c.Max, true))
		}
		value := "-"
		if c.Value != nil {
			value = metricCell(*c.Value, true)
		}
		o.printf("  %s %-28s %8s  (%s)", mark, c.Metric, value, strings.TrimSpace(bound))
		if c.Reason != "" {
			o.printf("  %s", c.Reason)
		}
		o.printf("\n")
	}
	for _, s := range g.Incomplete {
		o.printf("  incomplete: %s\n", s)
	}
	if g.Baseline == "" {
		return
	}
	o.printf("against baseline %s: %d test questions regressed\n", g.Baseline, len(g.Regressions))
	for _, r := range g.Regressions {
		var parts []string
		for _, c := range r.Changes {
			s := fmt.Sprintf("%s %s -> %s", c.What, c.Baseline, c.Now)
			if c.Detail != "" {
				s += " (" + c.Detail + ")"
			}
			parts = append(parts, s)
		}
		o.printf("  %s: %s\n", r.ID, strings.Join(parts, "; "))
	}
	for _, c := range g.Changes {
		if c.Worse {
			o.printf("  %s worse: %s -> %s\n", c.Metric, metricCell(*c.Baseline, true), metricCell(*c.Now, true))
		}
	}
}
