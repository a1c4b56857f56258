package main

import (
	"encoding/json"
	"time"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify/eval"
)

// runListing is one stored run as eval list shows it.
type runListing struct {
	RunID     string             `json:"run_id"`
	Started   time.Time          `json:"started"`
	Mode      string             `json:"mode"`
	Source    string             `json:"source"`
	Golden    string             `json:"golden"`
	Questions int                `json:"questions"`
	Complete  bool               `json:"complete"`
	Test      map[string]float64 `json:"test_metrics"`
}

func newEvalListCommand(o *options) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the stored evaluation runs, oldest first, with their test split's headline metrics",
		Args:  argsBetween(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			defer db.Close()
			var runs []runListing
			err = db.View(func(tx *store.Tx) error {
				return tx.ForEachEvalRun(func(id, b []byte) error {
					rec, err := eval.ParseRecord(b)
					if err != nil {
						return errorsJoinCorrupt(string(id), err)
					}
					l := runListing{RunID: rec.RunID, Started: rec.Started, Mode: rec.Source.Mode, Source: rec.Source.Generator,
						Golden: rec.Golden.Path, Questions: rec.Statuses["total"], Complete: rec.Complete, Test: map[string]float64{}}
					if rec.Source.Answers != nil {
						l.Source = rec.Source.Answers.Path
					}
					if t := rec.Splits[eval.SplitTest]; t != nil {
						l.Test = t.Metrics
					}
					runs = append(runs, l)
					return nil
				})
			})
			if err != nil {
				return err
			}
			if o.json {
				if runs == nil {
					runs = []runListing{}
				}
				return o.emit(runs)
			}
			if len(runs) == 0 {
				o.printf("no evaluation runs stored (evidence eval run GOLDEN ...)\n")
				return nil
			}
			o.printf("%-28s %-17s %-7s %4s %-8s %8s %8s %8s  %s\n", "run", "started", "mode", "qs", "complete", "support", "coverage", "values", "source")
			for _, r := range runs {
				complete := "yes"
				if !r.Complete {
					complete = "no"
				}
				o.printf("%-28s %-17s %-7s %4d %-8s %8s %8s %8s  %s\n", r.RunID, r.Started.Format("2006-01-02 15:04"), r.Mode, r.Questions, complete,
					cellOf(r.Test, eval.MetricCitationSupportRate), cellOf(r.Test, eval.MetricClaimCoverageRate), cellOf(r.Test, eval.MetricValueCorrectRate), r.Source)
			}
			return nil
		},
	}
}

func cellOf(m map[string]float64, name string) string {
	v, ok := m[name]
	return metricCell(v, ok)
}

func newEvalShowCommand(o *options) *cobra.Command {
	var question string
	cmd := &cobra.Command{
		Use:   "show RUN",
		Short: "Print a stored run record (or one question of it) as JSON",
		Args:  argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rec, err := loadRun(o, args[0])
			if err != nil {
				return err
			}
			if question != "" {
				q := rec.Question(question)
				if q == nil {
					return usagef("run %s has no question %q", rec.RunID, question)
				}
				return o.emit(q)
			}
			enc := json.NewEncoder(o.stdout)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(rec)
		},
	}
	cmd.Flags().StringVar(&question, "question", "", "print only this question's result")
	return cmd
}

func errorsJoinCorrupt(id string, err error) error {
	return &corruptRun{id: id, err: err}
}

// corruptRun is a stored run record that does not read: the store is damaged.
type corruptRun struct {
	id  string
	err error
}

func (e *corruptRun) Error() string   { return "evaluation run " + e.id + ": " + e.err.Error() }
func (e *corruptRun) Unwrap() []error { return []error{store.ErrCorrupt, e.err} }
