package eval

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/evidence-rag/evidence/verify"
)

// HTMLOptions tune WriteHTML.
type HTMLOptions struct {
	// ChunkURL is where the evidence viewer shows a cited chunk, and
	// SpanURL a span of a version (half-open, code points into its
	// canonical text). Nil: the page names the evidence without links.
	ChunkURL func(chunkID string) string
	SpanURL  func(version string, start, end int) string
	// Note is a line for the page's footer: where its links lead, say.
	Note string
}

// WriteHTML writes a run's report as one self-contained HTML page (no
// script, no external asset; its inline style is pinned by hash in a
// Content-Security-Policy): the metrics of the test split as bars against
// the thresholds th (nil: none), failures by category, the regressions
// against the baseline of g, the trend of the gated metrics over runs
// (ordered by start time), and every question, the failed ones with each
// failed claim linked to its evidence in the viewer. runs[0] is the run
// reported; g is Gate's result on it, or nil. The page holds no document
// text: the viewer it links to checks the reader's access.
func WriteHTML(w io.Writer, runs []*Record, th *Thresholds, g *GateResult, opts HTMLOptions) error {
	if len(runs) == 0 {
		return fmt.Errorf("eval: no run to report")
	}
	p := buildPage(runs, th, g, opts)
	bw := bufio.NewWriter(w)
	if err := reportTemplate.Execute(bw, p); err != nil {
		return err
	}
	return bw.Flush()
}

// reportCSS is the page's only style; reportCSP allows it and nothing
// else, so the page loads nothing and runs nothing, also opened offline.
const reportCSS = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 78rem; padding: 1rem 1.4rem 4rem; color: #1d1d1f; background: #fafafa; }
h1 { font-size: 1.3rem; margin: .2rem 0 .4rem; }
h2 { font-size: 1.08rem; margin: 2rem 0 .5rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
code, .mono { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.meta { color: #555; margin: .1rem 0; }
.verdict { display: inline-block; padding: .1rem .6rem; border-radius: 3px; color: #fff; font-weight: 700; margin-left: .5rem; }
.verdict.pass { background: #1a7f37; } .verdict.fail { background: #cf222e; }
.notes li { color: #9a3b00; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid #e5e5e5; }
th { font-weight: 600; background: #f3f3f3; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.barcell { width: 34%; min-width: 12rem; }
#failures td.barcell { width: 22%; min-width: 8rem; }
td.nowrap, td code.nowrap { white-space: nowrap; overflow-wrap: normal; }
.scroll { overflow-x: auto; }
ol.runs { font-size: .9rem; } ol.runs li.current { font-weight: 600; }
th.current { color: #cf222e; }
svg.bar { display: block; width: 100%; height: 14px; }
svg.bar .track { fill: #eceef0; }
svg.bar .fill { fill: #6e7781; }
svg.bar .fill.pass { fill: #2da44e; } svg.bar .fill.fail { fill: #cf222e; }
svg.bar .fill.dev { fill: #b6bcc3; }
svg.bar .th { stroke: #1d1d1f; stroke-width: 2; }
.pass-t { color: #1a7f37; font-weight: 600; } .fail-t { color: #cf222e; font-weight: 600; }
.dim { color: #777; }
.trend { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr)); gap: .8rem; }
.trend figure { margin: 0; background: #fff; border: 1px solid #e5e5e5; padding: .4rem .6rem; }
.trend figcaption { font-weight: 600; font-size: .9rem; }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart .axis { stroke: #bbb; stroke-width: 1; }
svg.chart .th { stroke: #cf222e; stroke-width: 1; stroke-dasharray: 4 3; }
svg.chart polyline { fill: none; stroke: #0b5cad; stroke-width: 2; }
svg.chart circle { fill: #0b5cad; } svg.chart circle.current { fill: #cf222e; }
svg.chart text { font: 10px system-ui, sans-serif; fill: #666; }
tr.failed > td:first-child { border-left: 4px solid #cf222e; }
tr.ok > td:first-child { border-left: 4px solid transparent; }
.q { max-width: 26rem; }
#questions td:first-child { min-width: 9rem; }
ul.claims { margin: .3rem 0 0; padding-left: 1.1rem; }
ul.claims li { margin-bottom: .35rem; }
.reasons { color: #9a3b00; }
a { color: #0b5cad; }
`

var reportCSP = func() string {
	sum := sha256.Sum256([]byte(reportCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'none'; base-uri 'none'; form-action 'none'"
}()

var reportTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>evidence eval report: run {{.RunID}}</title>
<style>` + reportCSS + `</style>
</head>
<body>
<header>
<h1>evidence eval: run <code>{{.RunID}}</code>{{if .Verdict}}<span class="verdict {{.Verdict}}" id="verdict">gate {{.VerdictText}}</span>{{end}}</h1>
<p class="meta">Golden set <code>{{.Golden}}</code>: {{.Total}} questions (test {{.TestTotal}}, dev {{.DevTotal}}): {{.StatusLine}}.</p>
<p class="meta">Answers: {{.Source}}; store sequence {{.Sequence}}; started {{.Started}}; spent {{.Spent}}.</p>
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .FailedTest}}<p>Failed test questions: {{range $i, $q := .FailedTest}}{{if $i}}, {{end}}<a href="#q-{{$q}}">{{$q}}</a>{{end}}.</p>{{end}}
</header>

<section id="metrics">
<h2>Metrics of the test split{{if .HasThresholds}} against their thresholds{{end}}</h2>
<table>
<thead><tr><th>metric</th><th>test</th><th class="num">value</th><th>threshold</th><th></th><th class="num">dev</th><th class="num">all</th></tr></thead>
<tbody>
{{range .Metrics}}<tr id="metric-{{.Name}}">
<td><code>{{.Name}}</code> <span class="dim">({{.Better}} is better)</span></td>
<td class="barcell"><svg class="bar metric-bar" viewBox="0 0 100 14" preserveAspectRatio="none" role="img" aria-label="{{.Name}} {{.Test}}" data-metric="{{.Name}}" data-value="{{.Value}}" data-scale="{{.Scale}}"><rect class="track" width="100" height="14"/>{{if .Measured}}<rect class="fill {{.Verdict}}" width="{{.Width}}" height="14"/>{{end}}{{range .Marks}}<line class="th" x1="{{.}}" x2="{{.}}" y1="0" y2="14" vector-effect="non-scaling-stroke"/>{{end}}</svg></td>
<td class="num">{{.Test}}{{if .Of}} <span class="dim">of {{.Of}}</span>{{end}}</td>
<td>{{.Threshold}}</td>
<td>{{if eq .Verdict "pass"}}<span class="pass-t">pass</span>{{else if eq .Verdict "fail"}}<span class="fail-t">fail</span> {{.Reason}}{{end}}</td>
<td class="num">{{.Dev}}</td>
<td class="num">{{.All}}</td>
</tr>
{{end}}</tbody>
</table>
<p class="dim">Bars show the test split's value: rates on a scale of 0 to 1, answer counts out of the test answers; the black line is the threshold. Only the test split gates.</p>
</section>

<section id="failures">
<h2>Failures by category</h2>
<table>
<thead><tr><th>category</th><th>what counts</th><th>test</th><th class="num">test</th><th>dev</th><th class="num">dev</th></tr></thead>
<tbody>
{{range .Failures}}<tr id="failure-{{.Name}}">
<td class="nowrap"><code class="nowrap">{{.Name}}</code></td><td class="dim">{{.What}}</td>
<td class="barcell"><svg class="bar failure-bar" viewBox="0 0 100 14" preserveAspectRatio="none" role="img" aria-label="{{.Name}} test {{.Test}}" data-value="{{.Test}}" data-scale="{{.Scale}}"><rect class="track" width="100" height="14"/><rect class="fill fail" width="{{.TestWidth}}" height="14"/></svg></td>
<td class="num">{{.Test}}</td>
<td class="barcell"><svg class="bar failure-bar" viewBox="0 0 100 14" preserveAspectRatio="none" role="img" aria-label="{{.Name}} dev {{.Dev}}" data-value="{{.Dev}}" data-scale="{{.Scale}}"><rect class="track" width="100" height="14"/><rect class="fill dev" width="{{.DevWidth}}" height="14"/></svg></td>
<td class="num">{{.Dev}}</td>
</tr>
{{end}}</tbody>
</table>
{{if .Errors}}<p>Errors (all splits): {{.Errors}}.</p>{{end}}
</section>
{{with .Baseline}}
<section id="baseline">
<h2>Against baseline <code>{{.ID}}</code></h2>
{{if .Changes}}<table>
<thead><tr><th>metric</th><th class="num">baseline</th><th class="num">now</th><th></th></tr></thead>
<tbody>{{range .Changes}}<tr><td><code>{{.Metric}}</code></td><td class="num">{{.Baseline}}</td><td class="num">{{.Now}}</td><td>{{if .Worse}}<span class="fail-t">worse</span>{{end}}</td></tr>
{{end}}</tbody></table>{{end}}
{{if .Regressions}}<p>{{len .Regressions}} test question(s) regressed:</p>
<ul>{{range .Regressions}}<li><a href="#q-{{.ID}}">{{.ID}}</a>: {{.What}}</li>
{{end}}</ul>{{else}}<p>No test question regressed.</p>{{end}}
</section>
{{end}}
<section id="trend">
<h2>Trend over {{len .TrendRuns}} run(s), test split</h2>
{{if lt (len .TrendRuns) 2}}<p class="dim">One run: give more runs (evidence eval report RUN OLDER...) or --last N for a trend.</p>{{end}}
<div class="trend">
{{range .Trend}}<figure data-metric="{{.Name}}">
<figcaption><code>{{.Name}}</code> <span class="dim">{{.Range}}</span></figcaption>
<svg class="chart" viewBox="0 0 {{.W}} {{.H}}" role="img" aria-label="trend of {{.Name}}">
<line class="axis" x1="{{.X0}}" x2="{{.X1}}" y1="{{.Y0}}" y2="{{.Y0}}"/><line class="axis" x1="{{.X0}}" x2="{{.X0}}" y1="{{.Y1}}" y2="{{.Y0}}"/>
<text x="0" y="{{.Y0}}">{{.Low}}</text><text x="0" y="{{.YTop}}">{{.High}}</text>
{{range .Marks}}<line class="th" x1="{{.X1}}" x2="{{.X2}}" y1="{{.Y}}" y2="{{.Y}}"/>{{end}}
{{if .Points}}<polyline points="{{.Points}}"/>{{end}}
{{range .Dots}}<text class="x" x="{{.X}}" y="{{.LabelY}}" text-anchor="middle">{{.N}}</text>{{end}}
{{range .Dots}}<circle class="point{{if .Current}} current{{end}}" cx="{{.X}}" cy="{{.Y}}" r="3.5"><title>{{.Run}}: {{.Value}}</title></circle>{{end}}
</svg>
</figure>
{{end}}</div>
<div class="scroll"><table id="trend-table">
<thead><tr><th>metric</th>{{range .TrendRuns}}<th class="num{{if .Current}} current{{end}}">{{.N}}</th>{{end}}</tr></thead>
<tbody>{{range .TrendRows}}<tr><td><code>{{.Name}}</code></td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
<ol class="runs">{{range .TrendRuns}}<li{{if .Current}} class="current"{{end}}><code>{{.ID}}</code>, started {{.Started}}, {{.Source}}{{if .Current}} <strong>(this report)</strong>{{end}}</li>
{{end}}</ol>
</section>

<section id="questions">
<h2>Questions ({{.FailedCount}} of {{len .Questions}} with a failure)</h2>
<table>
<thead><tr><th>id</th><th>split</th><th class="q">question</th><th>status</th><th>disposition</th><th>what failed, and the evidence</th></tr></thead>
<tbody>
{{range .Questions}}<tr id="q-{{.ID}}" class="{{if .Failed}}failed{{else}}ok{{end}}" data-failed="{{.Failed}}">
<td><code>{{.ID}}</code>{{if .Risk}} <span class="dim">{{.Risk}} risk</span>{{end}}</td>
<td>{{.Split}}</td>
<td class="q">{{.Question}}{{if not .Answerable}} <span class="dim">(unanswerable)</span>{{end}}</td>
<td>{{.Status}}</td>
<td>{{.Disposition}}</td>
<td>{{if .What}}<div class="reasons">{{.What}}</div>{{end}}
{{if .Claims}}<ul class="claims">{{range .Claims}}<li class="claim" data-claim="{{.ID}}"><code>{{.ID}}</code> {{.Status}}{{if .Disposition}} ({{.Disposition}}){{end}}{{if .Reasons}}: <span class="reasons">{{.Reasons}}</span>{{end}}{{if .Text}}<br>“{{.Text}}”{{end}}
{{range .Evidence}}<br>cites {{if .ChunkURL}}<a class="evidence" href="{{.ChunkURL}}" data-chunk="{{.ChunkID}}"><code>{{.ChunkID}}</code></a>{{else}}<code>{{.ChunkID}}</code>{{end}} {{.Status}}{{if .Where}} · {{.Where}}{{end}}{{if .SpanURL}} · <a class="span" href="{{.SpanURL}}">{{.Span}}</a>{{end}}{{if .Reasons}} · <span class="reasons">{{.Reasons}}</span>{{end}}{{if .FoundIn}} · the quote is in {{if .FoundInURL}}<a class="found-in" href="{{.FoundInURL}}"><code>{{.FoundIn}}</code></a>{{else}}<code>{{.FoundIn}}</code>{{end}}{{end}}{{end}}
{{range .Probes}}<br><span class="reasons">{{.}}</span>{{end}}</li>
{{end}}</ul>{{end}}
{{if .Uncited}}<ul class="claims">{{range .Uncited}}<li>uncited: “{{.}}”</li>{{end}}</ul>{{end}}
{{if .Expected}}<div class="dim">expected evidence: {{range $i, $e := .Expected}}{{if $i}}, {{end}}{{if $e.URL}}<a class="expected" href="{{$e.URL}}">{{$e.Label}}</a>{{else}}{{$e.Label}}{{end}}{{end}}</div>{{end}}
</td>
</tr>
{{end}}</tbody>
</table>
</section>
<footer class="dim"><p>evidence eval report{{if .ViewerNote}}; {{.ViewerNote}}{{end}}.</p></footer>
</body>
</html>
`))

// reportPage is what the template shows.
type reportPage struct {
	CSP                        string
	RunID, Golden, Source      string
	Sequence                   uint64
	Started, Spent, StatusLine string
	Total, TestTotal, DevTotal int
	Verdict, VerdictText       string
	HasThresholds              bool
	Notes                      []string
	FailedTest                 []string
	Metrics                    []metricRow
	Failures                   []failureRow
	Errors                     string
	Baseline                   *baselineView
	Trend                      []trendChart
	TrendNames                 []string
	TrendRuns                  []trendRun
	TrendRows                  []trendRow
	Questions                  []questionRow
	FailedCount                int
	ViewerNote                 string
}

type metricRow struct {
	Name, Better    string
	Test, Dev, All  string
	Measured        bool
	Value, Scale    string // raw, for the bar's data attributes
	Width           string // of the bar, in 0–100 viewBox units
	Of              string // the scale of a count
	Threshold       string
	Marks           []string // thresholds' x, 0–100
	Verdict, Reason string   // pass, fail, or "" without a threshold
}

type failureRow struct {
	Name, What          string
	Test, Dev           int
	Scale               int
	TestWidth, DevWidth string
}

type baselineView struct {
	ID          string
	Changes     []changeRow
	Regressions []regressionRow
}

type changeRow struct {
	Metric, Baseline, Now string
	Worse                 bool
}

type regressionRow struct{ ID, What string }

type trendChart struct {
	Name, Range    string
	W, H           int
	X0, X1, Y0, Y1 string
	YTop           string
	Low, High      string
	Marks          []trendMark
	Points         string
	Dots           []trendDot
}

type trendMark struct{ X1, X2, Y string }

type trendDot struct {
	N                        int
	X, Y, LabelY, Run, Value string
	Current                  bool
}

type trendRun struct {
	N                   int // 1-based, in start order: the charts' x labels
	ID, Started, Source string
	Current             bool
}

type trendRow struct {
	Name  string
	Cells []string
}

type questionRow struct {
	ID, Split, Question, Risk string
	Status, Disposition       string
	Answerable, Failed        bool
	What                      string
	Claims                    []claimRow
	Uncited                   []string
	Expected                  []expectedLink
}

type claimRow struct {
	ID, Text, Status, Disposition, Reasons string
	Evidence                               []evidenceRow
	Probes                                 []string
}

type evidenceRow struct {
	ChunkID, ChunkURL, Status, Where string
	Span, SpanURL, Reasons           string
	FoundIn, FoundInURL              string
}

type expectedLink struct{ Label, URL string }

// failureWhat says what each failure category counts.
var failureWhat = []struct{ name, what string }{
	{verify.FailSupport, "a citation that does not support its claim (quote not in the span, a figure absent or contradicted)"},
	{verify.FailCoverage, "a claim or factual sentence that needs evidence and has no supported citation"},
	{verify.FailResolution, "a citation that does not resolve: unknown, not retrieved, quarantined, deleted"},
	{verify.FailVersion, "a citation of a superseded version where the policy wants the current one"},
	{verify.FailPermission, "a citation of a document the principal may not read"},
	{"abstention", "an unanswerable question answered, or an answerable one declined"},
	{"correctness", "an answered question missing an expected value"},
}

func (f Failures) byName(name string) int {
	switch name {
	case verify.FailSupport:
		return f.Support
	case verify.FailCoverage:
		return f.Coverage
	case verify.FailResolution:
		return f.Resolution
	case verify.FailVersion:
		return f.Version
	case verify.FailPermission:
		return f.Permission
	case "abstention":
		return f.Abstention
	}
	return f.Correctness
}

// countMetrics are the metrics that count answers rather than rate them:
// their bars are out of the split's answers.
var countMetrics = map[string]bool{
	MetricAnswersBlocked: true, MetricAnswersPartial: true, MetricAnswersAbstained: true,
	MetricAnswersAccepted: true, MetricAnswersReview: true, MetricAnswersClarify: true,
}

func buildPage(runs []*Record, th *Thresholds, g *GateResult, opts HTMLOptions) *reportPage {
	r := runs[0]
	test, dev := split(r, SplitTest), split(r, SplitDev)
	p := &reportPage{CSP: reportCSP, RunID: r.RunID, Golden: r.Golden.Path, Sequence: r.Store.Sequence,
		Started: r.Started.UTC().Format("2006-01-02 15:04:05Z"), Total: r.Statuses["total"],
		TestTotal: test.Statuses["total"], DevTotal: dev.Statuses["total"], HasThresholds: th != nil}
	p.Source = "generator " + r.Source.Generator
	if r.Source.Mode == "answers" && r.Source.Answers != nil {
		p.Source = "recorded answers " + r.Source.Answers.Path
	}
	var st []string
	for _, s := range []string{StatusAnswered, StatusAbstained, StatusError, StatusInvalid, StatusNotRun} {
		st = append(st, fmt.Sprintf("%d %s", r.Statuses[s], strings.ReplaceAll(s, "_", " ")))
	}
	p.StatusLine = strings.Join(st, ", ")
	b := r.Budget
	p.Spent = fmt.Sprintf("%d generator calls, $%.4f, %.1f s", b.Calls, b.CostUSD, b.Seconds)
	if b.JudgeCalls > 0 {
		p.Spent += fmt.Sprintf(", %d judge calls", b.JudgeCalls)
	}
	if b.Stopped != "" {
		p.Notes = append(p.Notes, fmt.Sprintf("stopped by %s: not run %s; %d probe(s) not run", b.Stopped, idList(b.NotRun), b.ProbesNotRun))
	}
	checks := map[string]GateCheck{}
	if g != nil {
		if th != nil { // without thresholds a gate result only compares with a baseline
			p.Verdict, p.VerdictText = "fail", "FAIL"
			if g.Pass {
				p.Verdict, p.VerdictText = "pass", "PASS"
			}
		}
		for _, s := range g.Incomplete {
			p.Notes = append(p.Notes, "incomplete: "+s)
		}
		for _, c := range g.Checks {
			checks[c.Metric] = c
		}
	}
	answers := test.Statuses[StatusAnswered] + test.Statuses[StatusAbstained]
	for _, name := range Metrics {
		tv, tok := test.Metrics[name]
		dv, dok := dev.Metrics[name]
		av, aok := r.Metrics[name]
		t, hasT := Threshold{}, false
		if th != nil {
			t, hasT = th.Metrics[name]
		}
		if !tok && !dok && !aok && !hasT {
			continue
		}
		row := metricRow{Name: name, Better: "higher", Test: cell(tv, tok), Dev: cell(dv, dok), All: cell(av, aok),
			Measured: tok, Threshold: bound(t, hasT), Scale: "1"}
		if lowerIsBetter[name] {
			row.Better = "lower"
		}
		scale := 1.0
		if countMetrics[name] {
			scale = math.Max(1, float64(answers))
			row.Scale, row.Of = num(scale), fmt.Sprint(answers)
		}
		if tok {
			row.Value, row.Width = num(tv), svgNum(100*clamp01(tv/scale))
		} else {
			row.Test = "not measured"
		}
		if hasT {
			for _, bnd := range []*float64{t.Min, t.Max} {
				if bnd != nil {
					row.Marks = append(row.Marks, svgNum(100*clamp01(*bnd/scale)))
				}
			}
		}
		if c, ok := checks[name]; ok && hasT {
			row.Verdict = "pass"
			if !c.Pass {
				row.Verdict, row.Reason = "fail", c.Reason
			}
		}
		p.Metrics = append(p.Metrics, row)
	}
	fscale := 1
	for _, f := range failureWhat {
		fscale = max(fscale, test.Failures.byName(f.name), dev.Failures.byName(f.name))
	}
	for _, f := range failureWhat {
		tn, dn := test.Failures.byName(f.name), dev.Failures.byName(f.name)
		p.Failures = append(p.Failures, failureRow{Name: f.name, What: f.what, Test: tn, Dev: dn, Scale: fscale,
			TestWidth: svgNum(100 * float64(tn) / float64(fscale)), DevWidth: svgNum(100 * float64(dn) / float64(fscale))})
	}
	if len(r.Errors) > 0 {
		p.Errors = countList(r.Errors)
	}
	if g != nil && g.Baseline != "" {
		bv := &baselineView{ID: g.Baseline}
		for _, c := range g.Changes {
			bv.Changes = append(bv.Changes, changeRow{Metric: c.Metric, Baseline: ptrCell(c.Baseline), Now: ptrCell(c.Now), Worse: c.Worse})
		}
		for _, reg := range g.Regressions {
			var parts []string
			for _, c := range reg.Changes {
				s := fmt.Sprintf("%s %s → %s", c.What, c.Baseline, c.Now)
				if c.Detail != "" {
					s += " (" + c.Detail + ")"
				}
				parts = append(parts, s)
			}
			bv.Regressions = append(bv.Regressions, regressionRow{ID: reg.ID, What: strings.Join(parts, "; ")})
		}
		p.Baseline = bv
	}
	p.trend(runs, th)
	for i := range r.Questions {
		q := &r.Questions[i]
		row := questionPage(q, opts)
		if row.Failed {
			p.FailedCount++
			if q.Split == SplitTest {
				p.FailedTest = append(p.FailedTest, q.ID)
			}
		}
		p.Questions = append(p.Questions, row)
	}
	p.ViewerNote = opts.Note
	return p
}

// Trend charts' geometry, in viewBox units.
const (
	chartW, chartH        = 280, 90
	chartLeft, chartRight = 24, 272
	chartTop, chartBottom = 8, 80
)

// trend fills the trend charts and table: the gated metrics (the headline
// ones without thresholds), over the runs ordered by start time.
func (p *reportPage) trend(runs []*Record, th *Thresholds) {
	current := runs[0].RunID
	seen := map[string]bool{}
	var ordered []*Record
	for _, run := range runs {
		if !seen[run.RunID] {
			seen[run.RunID] = true
			ordered = append(ordered, run)
		}
	}
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Started.Before(ordered[j].Started) })
	var names []string
	for _, name := range trendMetrics(th) {
		measured := th != nil && th.Metrics[name] != (Threshold{})
		for _, run := range ordered {
			if _, ok := split(run, SplitTest).Metrics[name]; ok {
				measured = true
			}
		}
		if measured {
			names = append(names, name)
		}
	}
	p.TrendNames = names
	for i, run := range ordered {
		tr := trendRun{N: i + 1, ID: run.RunID, Started: run.Started.UTC().Format("2006-01-02 15:04"), Current: run.RunID == current,
			Source: "generator " + run.Source.Generator}
		if run.Source.Mode == "answers" && run.Source.Answers != nil {
			tr.Source = "recorded answers " + run.Source.Answers.Path
		}
		p.TrendRuns = append(p.TrendRuns, tr)
	}
	for _, name := range names {
		row := trendRow{Name: name}
		for _, run := range ordered {
			v, ok := split(run, SplitTest).Metrics[name]
			row.Cells = append(row.Cells, cell(v, ok))
		}
		p.TrendRows = append(p.TrendRows, row)
	}
	for _, name := range names {
		hi := 1.0
		var t Threshold
		if th != nil {
			t = th.Metrics[name]
		}
		if countMetrics[name] {
			for _, run := range ordered {
				hi = math.Max(hi, split(run, SplitTest).Metrics[name])
			}
			for _, b := range []*float64{t.Min, t.Max} {
				if b != nil {
					hi = math.Max(hi, *b)
				}
			}
		}
		y := func(v float64) string {
			return svgNum(chartBottom - (chartBottom-chartTop)*clamp01(v/hi))
		}
		c := trendChart{Name: name, W: chartW, H: chartH, X0: svgNum(chartLeft), X1: svgNum(chartRight),
			Y0: svgNum(chartBottom), Y1: svgNum(chartTop), YTop: svgNum(chartTop + 4), Low: "0", High: num(hi)}
		c.Range = "higher is better"
		if lowerIsBetter[name] {
			c.Range = "lower is better"
		}
		if b := bound(t, t != (Threshold{})); b != "" {
			c.Range += "; threshold " + b
		}
		for _, b := range []*float64{t.Min, t.Max} {
			if b != nil {
				c.Marks = append(c.Marks, trendMark{X1: svgNum(chartLeft), X2: svgNum(chartRight), Y: y(*b)})
			}
		}
		var pts []string
		for i, run := range ordered {
			v, ok := split(run, SplitTest).Metrics[name]
			if !ok {
				continue
			}
			x := svgNum(chartLeft + 6 + float64(i)*(chartRight-chartLeft-12)/math.Max(1, float64(len(ordered)-1)))
			if len(ordered) == 1 {
				x = svgNum((chartLeft + chartRight) / 2)
			}
			pts = append(pts, x+","+y(v))
			c.Dots = append(c.Dots, trendDot{N: i + 1, X: x, Y: y(v), LabelY: svgNum(chartBottom + 12), Run: run.RunID, Value: num(v), Current: run.RunID == current})
		}
		if len(pts) > 1 {
			c.Points = strings.Join(pts, " ")
		}
		p.Trend = append(p.Trend, c)
	}
}

// questionPage is one question's row: for a failed one, what failed and
// each failed claim (not supported, a citation not accepted, or a probe
// that found decoration or memory) with its citations linked.
func questionPage(q *QuestionResult, opts HTMLOptions) questionRow {
	row := questionRow{ID: q.ID, Split: q.Split, Question: q.Question, Risk: q.Risk, Status: q.Status,
		Disposition: q.Disposition, Answerable: q.Answerable, Failed: questionFailed(q)}
	if !row.Failed {
		return row
	}
	row.What = whatFailedBrief(q)
	texts := map[string]string{}
	if q.Answer != nil {
		for _, c := range q.Answer.Claims {
			texts[c.ClaimID] = c.Text
		}
	}
	probes := map[string][]string{}
	for _, pr := range q.Probes {
		if pr.Outcome == OutcomeDecoration || pr.Outcome == OutcomeMemory {
			probes[pr.ClaimID] = append(probes[pr.ClaimID], fmt.Sprintf("%s probe: %s (%s)", pr.Kind, pr.Outcome, pr.Detail))
		}
	}
	if v := q.Verification; v != nil {
		for _, c := range v.Claims {
			failed := c.Status != verify.Supported || len(probes[c.ClaimID]) > 0
			for _, e := range c.Evidence {
				failed = failed || e.Status != verify.EvidenceOK
			}
			if !failed {
				continue
			}
			cr := claimRow{ID: c.ClaimID, Text: texts[c.ClaimID], Status: c.Status, Disposition: c.Disposition,
				Reasons: strings.Join(c.Reasons, ", "), Probes: probes[c.ClaimID]}
			for _, e := range c.Evidence {
				cr.Evidence = append(cr.Evidence, evidencePage(e, opts))
			}
			row.Claims = append(row.Claims, cr)
		}
		for _, s := range v.UncitedSentences {
			row.Uncited = append(row.Uncited, s.Text)
		}
	}
	for _, e := range q.ExpectedEvidence {
		l := expectedLink{Label: e.DocumentID}
		if e.DocumentVersion != "" {
			l.Label += fmt.Sprintf(" [%d, %d)", e.SourceStart, e.SourceEnd)
			if opts.SpanURL != nil {
				l.URL = opts.SpanURL(e.DocumentVersion, e.SourceStart, e.SourceEnd)
			}
		}
		row.Expected = append(row.Expected, l)
	}
	return row
}

func evidencePage(e verify.EvidenceReport, opts HTMLOptions) evidenceRow {
	r := evidenceRow{ChunkID: e.ChunkID, Status: e.Status, Reasons: strings.Join(e.Reasons, ", ")}
	if opts.ChunkURL != nil && e.ChunkID != "" {
		r.ChunkURL = opts.ChunkURL(e.ChunkID)
	}
	var where []string
	if e.DocumentID != "" {
		where = append(where, e.DocumentID)
	}
	if e.VersionStatus != "" && e.VersionStatus != "current" {
		where = append(where, e.VersionStatus+" version")
	}
	if e.PageNumber > 0 {
		where = append(where, pageWords(e.PageNumber, e.PageEnd, e.PageLabel))
	}
	if len(e.SectionPath) > 0 {
		where = append(where, "§ "+strings.Join(e.SectionPath, " › "))
	}
	r.Where = strings.Join(where, ", ")
	if e.DocumentVersion != "" && e.SourceEnd > e.SourceStart {
		r.Span = fmt.Sprintf("span [%d, %d)", e.SourceStart, e.SourceEnd)
		if opts.SpanURL != nil {
			r.SpanURL = opts.SpanURL(e.DocumentVersion, e.SourceStart, e.SourceEnd)
		}
	}
	if e.FoundIn != nil {
		r.FoundIn = e.FoundIn.ChunkID
		if opts.ChunkURL != nil {
			r.FoundInURL = opts.ChunkURL(e.FoundIn.ChunkID)
		}
	}
	return r
}

// whatFailedBrief is what failed with a question, less the claims, which
// the row lists.
func whatFailedBrief(q *QuestionResult) string {
	var parts []string
	if q.Reason != "" {
		parts = append(parts, q.Reason)
	}
	f := q.Failures
	for _, c := range failureWhat {
		if c.name == "abstention" || c.name == "correctness" {
			continue
		}
		if n := f.byName(c.name); n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c.name, n))
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
	if len(q.InvalidMarkers) > 0 {
		parts = append(parts, "markers of unretrieved chunks: "+strings.Join(q.InvalidMarkers, ", "))
	}
	if q.Status == StatusAnswered && q.Answerable && q.Disposition != verify.AnswerAccept && len(parts) == 0 {
		parts = append(parts, "disposition "+q.Disposition)
	}
	return strings.Join(parts, "; ")
}

func pageWords(page, end int, label string) string {
	s := fmt.Sprintf("page %d", page)
	if end > page {
		s = fmt.Sprintf("pages %d–%d", page, end)
	}
	if label != "" {
		s += " (printed " + label + ")"
	}
	return s
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	return math.Min(v, 1)
}

// svgNum formats a coordinate.
func svgNum(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
