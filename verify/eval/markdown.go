package eval

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteMarkdown writes a summary of a run for CI logs: the verdict when a
// gate result is given, the metrics of each split against the thresholds,
// failures by category, errors, what was not run, the failed test
// questions, the regressions against a baseline, and with more runs the
// trend of the gated metrics (runs as given, the reported one first).
func WriteMarkdown(w io.Writer, runs []*Record, th *Thresholds, g *GateResult) error {
	if len(runs) == 0 {
		return fmt.Errorf("eval: no run to report")
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	r := runs[0]
	verdict := ""
	if g != nil && th != nil { // without thresholds a gate result only compares with a baseline
		verdict = " — gate **FAIL**"
		if g.Pass {
			verdict = " — gate **PASS**"
		}
	}
	p("## evidence eval run `%s`%s\n\n", r.RunID, verdict)
	src := "generator `" + mdCode(r.Source.Generator) + "`"
	if r.Source.Mode == "answers" && r.Source.Answers != nil {
		src = "recorded answers `" + mdCode(r.Source.Answers.Path) + "`"
	}
	p("Golden set `%s`, %d questions (test %d, dev %d); %s; store sequence %d; started %s.\n\n",
		mdCode(r.Golden.Path), r.Statuses["total"], split(r, SplitTest).Statuses["total"], split(r, SplitDev).Statuses["total"],
		src, r.Store.Sequence, r.Started.Format("2006-01-02 15:04:05Z"))
	if g != nil {
		for _, s := range g.Incomplete {
			p("- incomplete: %s\n", s)
		}
		if len(g.Incomplete) > 0 {
			p("\n")
		}
	}
	p("| metric | test | dev | all | threshold | |\n|---|---:|---:|---:|---|---|\n")
	checks := map[string]GateCheck{}
	if g != nil {
		for _, c := range g.Checks {
			checks[c.Metric] = c
		}
	}
	for _, name := range Metrics {
		tv, tok := split(r, SplitTest).Metrics[name]
		dv, dok := split(r, SplitDev).Metrics[name]
		av, aok := r.Metrics[name]
		t, hasT := Threshold{}, false
		if th != nil {
			t, hasT = th.Metrics[name]
		}
		if !tok && !dok && !aok && !hasT {
			continue
		}
		mark := ""
		if c, ok := checks[name]; ok {
			mark = "✅"
			if !c.Pass {
				mark = "❌ " + c.Reason
			}
		}
		p("| %s | %s | %s | %s | %s | %s |\n", name, cell(tv, tok), cell(dv, dok), cell(av, aok), bound(t, hasT), mark)
	}
	f := split(r, SplitTest).Failures
	p("\nFailures (test): support %d, coverage %d, resolution %d, version %d, permission %d, abstention %d, correctness %d.\n",
		f.Support, f.Coverage, f.Resolution, f.Version, f.Permission, f.Abstention, f.Correctness)
	if len(r.Errors) > 0 {
		p("Errors (all splits): %s.\n", countList(r.Errors))
	}
	b := r.Budget
	p("Spent: %d generator calls, $%.4f, %.1f s", b.Calls, b.CostUSD, b.Seconds)
	if b.JudgeCalls > 0 {
		p(", %d judge calls", b.JudgeCalls)
	}
	p(".")
	if b.Stopped != "" {
		p(" **Stopped by %s**: not run %s; %d probe(s) not run.", b.Stopped, idList(b.NotRun), b.ProbesNotRun)
	}
	p("\n")
	var failed []QuestionResult
	for _, q := range r.Questions {
		if q.Split == SplitTest && questionFailed(&q) {
			failed = append(failed, q)
		}
	}
	if len(failed) > 0 {
		p("\n### Failed test questions\n\n| id | status | disposition | what failed |\n|---|---|---|---|\n")
		for _, q := range failed {
			p("| %s | %s | %s | %s |\n", mdCell(q.ID), q.Status, q.Disposition, mdCell(whatFailed(&q)))
		}
	}
	if g != nil && g.Baseline != "" {
		p("\n### Against baseline `%s`\n\n", g.Baseline)
		if len(g.Changes) > 0 {
			p("| metric | baseline | now | |\n|---|---:|---:|---|\n")
			for _, c := range g.Changes {
				mark := ""
				if c.Worse {
					mark = "worse"
				}
				p("| %s | %s | %s | %s |\n", c.Metric, ptrCell(c.Baseline), ptrCell(c.Now), mark)
			}
			p("\n")
		}
		if len(g.Regressions) == 0 {
			p("No test question regressed.\n")
		} else {
			p("%d test question(s) regressed:\n\n", len(g.Regressions))
			for _, reg := range g.Regressions {
				var parts []string
				for _, c := range reg.Changes {
					s := fmt.Sprintf("%s %s → %s", c.What, c.Baseline, c.Now)
					if c.Detail != "" {
						s += " (" + c.Detail + ")"
					}
					parts = append(parts, s)
				}
				p("- `%s`: %s\n", reg.ID, mdCell(strings.Join(parts, "; ")))
			}
		}
	}
	if len(runs) > 1 {
		names := trendMetrics(th)
		p("\n### Trend (test split)\n\n| run | started | %s |\n|---|---|%s\n", strings.Join(names, " | "), strings.Repeat("---:|", len(names)))
		for _, run := range runs {
			var cells []string
			for _, name := range names {
				v, ok := split(run, SplitTest).Metrics[name]
				cells = append(cells, cell(v, ok))
			}
			p("| `%s` | %s | %s |\n", run.RunID, run.Started.Format("2006-01-02 15:04"), strings.Join(cells, " | "))
		}
	}
	return bw.Flush()
}

// trendMetrics are the gated metrics, or the headline ones without
// thresholds.
func trendMetrics(th *Thresholds) []string {
	var names []string
	if th != nil {
		for name := range th.Metrics {
			names = append(names, name)
		}
		sortMetrics(names)
		return names
	}
	return []string{MetricCitationSupportRate, MetricClaimCoverageRate, MetricValueCorrectRate, MetricUnanswerableDeclinedRate,
		MetricFalseRefusalRate, MetricProbeDecorationRate, MetricProbeMemoryRate}
}

func split(r *Record, name string) *Summary {
	if s := r.Splits[name]; s != nil {
		return s
	}
	return &Summary{Metrics: map[string]float64{}, Statuses: map[string]int{}}
}

// questionFailed reports whether a question has no usable answer or any
// failure.
func questionFailed(q *QuestionResult) bool {
	if q.Status == StatusError || q.Status == StatusInvalid || q.Status == StatusNotRun {
		return true
	}
	if q.Failures.Total() > 0 || len(q.InvalidMarkers) > 0 {
		return true
	}
	for _, p := range q.Probes {
		if p.Outcome == OutcomeDecoration || p.Outcome == OutcomeMemory {
			return true
		}
	}
	return q.Disposition != "accept" && q.Answerable
}

// whatFailed says in a line what went wrong with a question.
func whatFailed(q *QuestionResult) string {
	var parts []string
	if q.Reason != "" {
		parts = append(parts, q.Reason)
	}
	f := q.Failures
	for _, c := range []struct {
		name string
		n    int
	}{{"support", f.Support}, {"coverage", f.Coverage}, {"resolution", f.Resolution}, {"version", f.Version}, {"permission", f.Permission}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.name, c.n))
		}
	}
	if f.Abstention > 0 {
		if q.Answerable {
			parts = append(parts, "declined an answerable question")
		} else {
			parts = append(parts, "answered an unanswerable question")
		}
	}
	if len(q.ValuesMissing) > 0 && f.Correctness > 0 {
		parts = append(parts, "missing "+strings.Join(q.ValuesMissing, ", "))
	}
	if v := q.Verification; v != nil {
		for _, c := range v.Claims {
			if c.Status != "supported" {
				parts = append(parts, fmt.Sprintf("claim %s %s [%s]", c.ClaimID, c.Status, strings.Join(c.Reasons, ", ")))
			}
		}
	}
	if len(q.InvalidMarkers) > 0 {
		parts = append(parts, "markers of unretrieved chunks: "+strings.Join(q.InvalidMarkers, ", "))
	}
	for _, p := range q.Probes {
		if p.Outcome == OutcomeDecoration || p.Outcome == OutcomeMemory {
			parts = append(parts, fmt.Sprintf("%s probe: %s (%s)", p.Kind, p.Outcome, p.Detail))
		}
	}
	return strings.Join(parts, "; ")
}

func cell(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return num(v)
}

func ptrCell(v *float64) string {
	if v == nil {
		return "–"
	}
	return num(*v)
}

func bound(t Threshold, ok bool) string {
	switch {
	case !ok:
		return ""
	case t.Min != nil && t.Max != nil:
		return fmt.Sprintf("%s … %s", num(*t.Min), num(*t.Max))
	case t.Min != nil:
		return "≥ " + num(*t.Min)
	}
	return "≤ " + num(*t.Max)
}

func countList(m map[string]int) string {
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func idList(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	if len(ids) > 20 {
		return strings.Join(ids[:20], ", ") + fmt.Sprintf(" and %d more", len(ids)-20)
	}
	return strings.Join(ids, ", ")
}

// mdCell makes text safe in a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
}

func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }
