package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

func newEvalCommand(o *options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Run a golden set through a RAG pipeline, measure it, and gate releases on it (docs/eval.md)",
	}
	cmd.AddCommand(newEvalRunCommand(o), newEvalGateCommand(o), newEvalListCommand(o), newEvalShowCommand(o), newEvalReportCommand(o))
	return cmd
}

func newEvalRunCommand(o *options) *cobra.Command {
	var generator, answers, policyFile, out string
	var live, noStore bool
	var parallel, probe, maxCalls int
	var timeout time.Duration
	var maxCost, maxSeconds float64
	var jf judgeFlags
	cmd := &cobra.Command{
		Use:   "run GOLDEN",
		Short: "Evaluate a golden set: ask a generator (--live) or read recorded answers (--answers), verify and score every answer",
		Long: `run reads a golden set (JSON Lines: id, question, split, answerable, expected_values, expected_evidence,
risk, tags, principal; docs/eval.md), resolves every expected passage against the store's current
versions (a quote that does not resolve is reported first, and its question is not run), then gets an
answer to each question and checks it with the verifier.

Answers come from recorded answers (--answers FILE: JSON Lines, each a generator's output for one
question with its id) or, with --live, from the user's pipeline (--generator 'CMD ARGS'): a long-lived
process that reads one JSON request a line on stdin and writes one JSON answer a line on stdout.
A crash, a hang past --timeout, garbage or an answer the verifier refuses is recorded against that
question with a reason; the process is restarted and the run goes on. --probe N asks the generator again
about N answers that verified, high-risk first, with the cited passage removed and with a figure of it
changed, to test whether the evidence drove the answer.

The budget (--max-calls, --max-cost-usd summed from the answers' usage, --max-seconds) stops a live run
cleanly: no request is sent once it is spent, and the record lists what was not run.

Metrics are kept per question and per split (test, dev), never merged. The run record (--json prints
it) is stored in the store (evidence eval list|show) unless --no-store. Exit 0 when every question was
run with a usable answer, 3 when some were not run, invalid or errored (the record is still written).`,
		Args: argsBetween(1, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if generator == "" && answers == "" {
				return usagef("give --answers FILE (recorded answers) or --generator 'CMD ARGS' with --live")
			}
			if generator != "" && !live {
				return usagef("--generator runs CMD once per question and may spend money: live runs are opt-in, add --live (or evaluate recorded answers with --answers FILE)")
			}
			if live && generator == "" {
				return usagef("--live needs --generator 'CMD ARGS'")
			}
			if probe > 0 && generator == "" {
				return usagef("--probe asks the generator again: give --generator 'CMD ARGS' with --live")
			}
			if !live && (maxCalls != 0 || maxCost != 0 || maxSeconds != 0) {
				return usagef("--max-calls, --max-cost-usd and --max-seconds bound live runs: add --live")
			}
			if parallel < 1 || probe < 0 || maxCalls < 0 || maxCost < 0 || maxSeconds < 0 || timeout <= 0 {
				return usagef("--parallel is at least 1, --timeout above 0, and --probe and the budget are never negative")
			}
			golden, goldenInfo, err := readGolden(args[0])
			if err != nil {
				return err
			}
			cfg := eval.Config{Golden: golden, GoldenFile: goldenInfo, Parallel: parallel, Timeout: timeout, Probe: probe,
				Budget: eval.Budget{MaxCalls: maxCalls, MaxCostUSD: maxCost, MaxTime: time.Duration(maxSeconds * float64(time.Second))}}
			cfg.Source.Mode = "live"
			if answers != "" {
				b, err := os.ReadFile(answers)
				if err != nil {
					return usageError{err}
				}
				if cfg.Answers, err = eval.ParseAnswers(strings.NewReader(string(b))); err != nil {
					return usageError{fmt.Errorf("%s: %w", answers, err)}
				}
				cfg.Source = eval.Source{Mode: "answers", Answers: &eval.FileInfo{Path: answers, BLAKE3: store.Hash(b).String()}}
				if !cmd.Flags().Changed("parallel") {
					cfg.Parallel = 2 // verifying recorded answers spends nothing: use two cores
				}
			}
			if generator != "" {
				argv, err := eval.SplitCommand(generator)
				if err != nil {
					return usageError{err}
				}
				if _, err := exec.LookPath(argv[0]); err != nil {
					return usagef("--generator: %v", err)
				}
				p := eval.NewProcess(argv, parallel, timeout)
				defer p.Close()
				cfg.Generator = p
				cfg.Source.Generator = generator
			}
			pol := verify.DefaultPolicy()
			if policyFile != "" {
				if pol, err = verify.LoadPolicy(policyFile); err != nil {
					return usageError{err}
				}
			}
			if pol, err = jf.policy(pol); err != nil {
				return err
			}
			db, err := o.openStore(true)
			if err != nil {
				return err
			}
			cfg.DB, cfg.StorePath = db, db.Path()
			cfg.Policy = pol.WithJudgeCache(db, nil) // read-only: cached verdicts are read, none stored
			cfg.Judge = cfg.Policy.ModelJudge()
			cfg.Invalid = func(q eval.QuestionResult) { fmt.Fprintf(o.stderr, "evidence: golden %s: %s\n", q.ID, q.Reason) }
			if f, ok := o.stderr.(*os.File); ok && !o.json && term.IsTerminal(int(f.Fd())) {
				cfg.Progress = func(p eval.Progress) {
					fmt.Fprintf(o.stderr, "\r\033[K%s %d/%d %s %s", p.Phase, p.Done, p.Total, p.ID, p.Status)
				}
				defer fmt.Fprint(o.stderr, "\r\033[K")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			rec, err := eval.Run(ctx, cfg)
			db.Close()
			if err != nil {
				return err
			}
			if cfg.Progress != nil {
				fmt.Fprint(o.stderr, "\r\033[K")
			}
			b, err := json.MarshalIndent(rec, "", "  ")
			if err != nil {
				return err
			}
			if out != "" {
				if err := os.WriteFile(out, append(b, '\n'), 0o600); err != nil {
					return err
				}
			}
			stored := false
			if !noStore {
				if err := storeRun(o, rec.RunID, b); err != nil {
					return fmt.Errorf("storing run %s (the record is complete%s): %w", rec.RunID, outNote(out), err)
				}
				stored = true
			}
			if o.json {
				if _, err := o.stdout.Write(append(b, '\n')); err != nil {
					return err
				}
			} else {
				printRun(o, rec, stored)
			}
			return runStatus(rec)
		},
	}
	f := cmd.Flags()
	f.StringVar(&generator, "generator", "", "the user's pipeline: 'CMD ARGS', a long-lived process speaking JSON Lines on stdin/stdout (needs --live)")
	f.BoolVar(&live, "live", false, "allow running the generator (live runs are opt-in)")
	f.StringVar(&answers, "answers", "", "recorded answers (JSON Lines: a generator's output per question, with its id) to evaluate instead")
	f.IntVar(&parallel, "parallel", 1, "generator processes answering at once")
	f.DurationVar(&timeout, "timeout", 60*time.Second, "time one answer may take; a generator that takes longer is killed and restarted")
	f.IntVar(&probe, "probe", 0, "answers that verified to probe (ablation and counterfactual), high-risk first (needs --generator)")
	f.IntVar(&maxCalls, "max-calls", 0, "stop after this many generator calls (usage.calls, at least 1 an answer); 0: no bound")
	f.Float64Var(&maxCost, "max-cost-usd", 0, "stop once the answers' usage.cost_usd adds up to this; 0: no bound")
	f.Float64Var(&maxSeconds, "max-seconds", 0, "stop after this many seconds; 0: no bound")
	f.StringVar(&policyFile, "policy", "", "verification policy file (JSON or YAML), as for verify")
	f.StringVar(&out, "out", "", "also write the run record (JSON) to this file")
	f.BoolVar(&noStore, "no-store", false, "do not store the run record in the store")
	jf.register(f)
	return cmd
}

// readGolden reads and pins a golden set.
func readGolden(path string) (*eval.Golden, eval.FileInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, eval.FileInfo{}, usageError{err}
	}
	g, err := eval.ParseGolden(strings.NewReader(string(b)))
	if err != nil {
		return nil, eval.FileInfo{}, usageError{fmt.Errorf("%s: %w", path, err)}
	}
	return g, eval.FileInfo{Path: path, BLAKE3: store.Hash(b).String()}, nil
}

// storeRun stores a run record; the store is opened for writing only now,
// so a long run does not hold the write lock.
func storeRun(o *options, id string, rec []byte) error {
	db, err := o.openStore(false)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.PutEvalRun(id, rec)
}

func outNote(out string) string {
	if out == "" {
		return ", but stored nowhere: rerun with --out FILE"
	}
	return " in " + out
}

// runStatus is the exit status of a run: 3 unless every question ran with
// a usable answer.
func runStatus(rec *eval.Record) error {
	st := rec.Statuses
	bad := st[eval.StatusNotRun] + st[eval.StatusInvalid] + st[eval.StatusError]
	if bad == 0 && rec.Complete {
		return nil
	}
	var parts []string
	for _, s := range []string{eval.StatusNotRun, eval.StatusInvalid, eval.StatusError} {
		if st[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", st[s], s))
		}
	}
	if rec.Budget.ProbesNotRun > 0 {
		parts = append(parts, fmt.Sprintf("%d probes not run", rec.Budget.ProbesNotRun))
	}
	return &exitStatus{code: exitPartial, msg: "run " + rec.RunID + " incomplete: " + strings.Join(parts, ", ")}
}

func printRun(o *options, rec *eval.Record, stored bool) {
	st := rec.Statuses
	o.printf("run %s: %d questions (test %d, dev %d): %d answered, %d abstained, %d error, %d invalid, %d not run\n",
		rec.RunID, st["total"], rec.Splits[eval.SplitTest].Statuses["total"], rec.Splits[eval.SplitDev].Statuses["total"],
		st[eval.StatusAnswered], st[eval.StatusAbstained], st[eval.StatusError], st[eval.StatusInvalid], st[eval.StatusNotRun])
	o.printf("%-28s %8s %8s %8s\n", "metric", "test", "dev", "all")
	for _, name := range eval.Metrics {
		t, tok := rec.Splits[eval.SplitTest].Metrics[name]
		d, dok := rec.Splits[eval.SplitDev].Metrics[name]
		a, aok := rec.Metrics[name]
		if !tok && !dok && !aok {
			continue
		}
		o.printf("%-28s %8s %8s %8s\n", name, metricCell(t, tok), metricCell(d, dok), metricCell(a, aok))
	}
	f := rec.Splits[eval.SplitTest].Failures
	o.printf("failures (test): support %d, coverage %d, resolution %d, version %d, permission %d, abstention %d, correctness %d\n",
		f.Support, f.Coverage, f.Resolution, f.Version, f.Permission, f.Abstention, f.Correctness)
	for _, q := range rec.Questions {
		switch {
		case q.Reason != "":
			o.printf("  %s: %s: %s\n", q.ID, q.Status, q.Reason)
		case len(q.ValuesMissing) > 0 && q.Status == eval.StatusAnswered:
			o.printf("  %s: %s, missing %s\n", q.ID, q.Disposition, strings.Join(q.ValuesMissing, ", "))
		}
		for _, p := range q.Probes {
			if p.Outcome == eval.OutcomeDecoration || p.Outcome == eval.OutcomeMemory || p.Outcome == eval.OutcomeError {
				o.printf("  %s: %s probe: %s: %s\n", q.ID, p.Kind, p.Outcome, p.Detail)
			}
		}
	}
	b := rec.Budget
	o.printf("spent %d generator calls, $%.4f, %.1f s", b.Calls, b.CostUSD, b.Seconds)
	if b.JudgeCalls > 0 {
		o.printf(", %d judge calls", b.JudgeCalls)
	}
	o.printf("\n")
	if b.Stopped != "" {
		o.printf("stopped by %s: %d questions and %d probes not run\n", b.Stopped, len(b.NotRun), b.ProbesNotRun)
	}
	if stored {
		o.printf("stored: evidence eval show %s; evidence eval gate %s --thresholds FILE\n", rec.RunID, rec.RunID)
	}
}

func metricCell(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3f", v)
}

// loadRun reads a run: a run record file, a stored run's id, or "latest".
func loadRun(o *options, ref string) (*eval.Record, error) {
	if fi, err := os.Stat(ref); err == nil && !fi.IsDir() {
		b, err := os.ReadFile(ref)
		if err != nil {
			return nil, err
		}
		rec, err := eval.ParseRecord(b)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", ref, err)}
		}
		return rec, nil
	}
	db, err := o.openStore(true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var b []byte
	err = db.View(func(tx *store.Tx) error {
		if ref == "latest" {
			return tx.ForEachEvalRun(func(_, rec []byte) error { b = append(b[:0], rec...); return nil })
		}
		b, err = tx.EvalRun(ref)
		return err
	})
	if err == nil && b == nil {
		err = fmt.Errorf("%w: no evaluation run is stored", store.ErrNotFound)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w (give a stored run's id, latest, or a run record file)", err)
	}
	if err != nil {
		return nil, err
	}
	rec, err := eval.ParseRecord(b)
	if err != nil {
		return nil, errors.Join(store.ErrCorrupt, err)
	}
	return rec, nil
}
