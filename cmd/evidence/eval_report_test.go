package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

// reportHostile is question text that would run script if it reached the
// page unescaped.
const reportHostile = `Above what amount <script>document.title="pwned"</script><img src=x onerror="document.title='pwned'"> is a receipt needed?`

// TestEvalReportInChromium writes the HTML report of a failing run (with
// the trend over it and an earlier passing run) through the CLI, loads it
// in headless Chromium from a file, and checks what a reader sees: the
// page renders and runs nothing, a bar per metric as wide as its value, a
// threshold line, the failure bars, a trend chart per gated metric with a
// point per run, and a failed question whose evidence link, clicked, opens
// the viewer of evidence serve on the cited passage.
// EVIDENCE_REPORT_SHOTS=DIR keeps screenshots of the pages there.

// chromiumPath is Debian's chromium (apt-get install -y chromium).
const chromiumPath = "/usr/bin/chromium"

func TestEvalReportInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("%s is absent (install it with: apt-get update && apt-get install -y chromium): skipping the browser test of the HTML report", chromiumPath)
	}
	e := newTestEnv(t, false)
	const quote = "Every claim above EUR 25 needs an itemized receipt."
	const deadline = "Submit all expense reports within 14 calendar days of the end of the trip"
	var receiptChunk, deadlineChunk string
	for _, id := range e.chunkIDs("expense-policy.md") {
		res, err := resolve.Chunk(e.db, id, "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Text, quote) && receiptChunk == "" {
			receiptChunk = id
		}
		if strings.Contains(res.Text, deadline) && deadlineChunk == "" {
			deadlineChunk = id
		}
	}
	if receiptChunk == "" || deadlineChunk == "" {
		t.Fatalf("the sample expense policy has no chunk holding %q or %q", quote, deadline)
	}
	golden, err := eval.ParseGolden(strings.NewReader(`{"id": "receipt", "question": ` + jsonQuote(reportHostile) + `, "split": "test", "answerable": true, "expected_values": ["EUR 25"], "expected_evidence": [{"document_id": "expense-policy.md", "quote": "` + quote + `"}], "risk": "high"}
{"id": "deadline", "question": "Within how many days must expense reports be submitted?", "split": "test", "answerable": true, "expected_values": ["14 calendar days"]}
{"id": "leave", "question": "How many weeks of parental leave do employees get?", "split": "test", "answerable": false}
`))
	if err != nil {
		t.Fatal(err)
	}
	claim := func(id, chunk, text, quote string) *eval.Answer {
		return &eval.Answer{ID: id, Retrieved: []string{chunk}, Answer: text + " [" + chunk + "]",
			Claims: []verify.Claim{{ClaimID: "c1", Text: text, Evidence: []verify.Evidence{{ChunkID: chunk, Quote: quote}}}}}
	}
	good := map[string]*eval.Answer{
		"receipt":  claim("receipt", receiptChunk, quote, quote),
		"deadline": claim("deadline", deadlineChunk, deadline+".", deadline),
		"leave":    {ID: "leave", Retrieved: []string{}, Abstained: true},
	}
	bad := map[string]*eval.Answer{
		"receipt":  claim("receipt", receiptChunk, "Every claim above EUR 50 needs an itemized receipt.", quote),
		"deadline": good["deadline"],
		"leave":    good["leave"],
	}
	dir := t.TempDir()
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	runFile := func(name string, answers map[string]*eval.Answer, at time.Time) *eval.Record {
		rec, err := eval.Run(context.Background(), eval.Config{Golden: golden, GoldenFile: eval.FileInfo{Path: "golden.jsonl"}, DB: e.db,
			RunID: name, Now: func() time.Time { return at },
			Answers: &eval.Answers{ByID: answers, Bad: map[string]string{}},
			Source:  eval.Source{Mode: "answers", Answers: &eval.FileInfo{Path: name + ".jsonl"}}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	base := runFile("run-good", good, start)
	rec := runFile("run-bad", bad, start.Add(time.Hour))
	th := filepath.Join(dir, "th.json")
	if err := os.WriteFile(th, []byte(`{"metrics": {"citation_support_rate": {"min": 0.95}, "value_correct_rate": {"min": 0.9}, "answers_blocked": {"max": 0}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	code, out, errs := runCLI(t, "--db", filepath.Join(dir, "none.db"), "eval", "report", filepath.Join(dir, "run-bad.json"), filepath.Join(dir, "run-good.json"),
		"--thresholds", th, "--html", page, "--viewer-base", e.ts.URL+"/")
	if code != exitOK || !strings.Contains(out, "wrote "+page) {
		t.Fatalf("eval report --html: exit %d\n%s%s", code, out, errs)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1300, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatalf("loading %s in %s: %v", page, chromiumPath, err)
	}
	shot := func(name string) {
		if d := os.Getenv("EVIDENCE_REPORT_SHOTS"); d != "" {
			b, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			_ = os.WriteFile(filepath.Join(d, name+".png"), b, 0o644)
		}
	}
	shot("report")

	type bar struct {
		Metric string  `json:"metric"`
		Fill   float64 `json:"fill"`  // width of the value's bar, px
		Track  float64 `json:"track"` // width of the whole bar, px
		Mark   float64 `json:"mark"`  // x of the threshold line from the bar's left, px; -1 without
		Text   string  `json:"text"`
	}
	type seen struct {
		Title       string         `json:"title"`
		Scripts     int            `json:"scripts"`
		Images      int            `json:"images"`
		Bars        []bar          `json:"bars"`
		FailureBars int            `json:"failureBars"`
		Charts      map[string]int `json:"charts"`
		Verdict     string         `json:"verdict"`
		Question    string         `json:"question"`
		Failed      string         `json:"failed"`
		Evidence    []string       `json:"evidence"`
		Spans       []string       `json:"spans"`
		PassedLinks int            `json:"passedLinks"`
	}
	const probe = `(() => {
		const out = {title: document.title, scripts: document.scripts.length, images: document.images.length, bars: [], charts: {}};
		for (const svg of document.querySelectorAll("svg.metric-bar")) {
			const r = svg.getBoundingClientRect();
			const fill = svg.querySelector("rect.fill");
			const mark = svg.querySelector("line.th");
			out.bars.push({metric: svg.dataset.metric, track: r.width, fill: fill ? fill.getBoundingClientRect().width : 0,
				mark: mark ? mark.getBoundingClientRect().left + mark.getBoundingClientRect().width / 2 - r.left : -1,
				text: svg.closest("tr").innerText});
		}
		out.failureBars = document.querySelectorAll("svg.failure-bar rect.fill").length;
		for (const f of document.querySelectorAll("#trend figure")) { out.charts[f.dataset.metric] = f.querySelectorAll("circle").length; }
		const v = document.getElementById("verdict"); out.verdict = v ? v.textContent : "";
		const q = document.getElementById("q-receipt");
		out.question = q ? q.querySelector(".q").textContent : "";
		out.failed = q ? q.dataset.failed : "";
		out.evidence = q ? [...q.querySelectorAll("a.evidence")].map(a => a.href) : [];
		out.spans = q ? [...q.querySelectorAll("a.span")].map(a => a.href) : [];
		const d = document.getElementById("q-deadline");
		out.passedLinks = d ? d.querySelectorAll("a").length : -1;
		return out;
	})()`
	s, err := chromedp.Run(bctx, chromedp.Evaluate[seen](probe))
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "evidence eval report: run run-bad" || s.Scripts != 0 || s.Images != 0 {
		t.Errorf("page: title %q, %d scripts, %d images: want the run's title and nothing run or loaded", s.Title, s.Scripts, s.Images)
	}
	if !strings.Contains(s.Question, reportHostile) {
		t.Errorf("the hostile question reads %q, want its text as given", s.Question)
	}
	if s.Verdict != "gate FAIL" {
		t.Errorf("verdict %q, want gate FAIL", s.Verdict)
	}

	// A bar per metric the run measured or a threshold names, each as wide
	// as the test split's value on its scale (answer counts: out of the
	// test answers), the threshold line where the threshold is.
	test := rec.Splits[eval.SplitTest]
	want := map[string]bool{"citation_support_rate": true, "value_correct_rate": true, "answers_blocked": true}
	for _, m := range []map[string]float64{rec.Metrics, test.Metrics, rec.Splits[eval.SplitDev].Metrics} {
		for name := range m {
			want[name] = true
		}
	}
	if len(s.Bars) != len(want) {
		t.Errorf("%d metric bars, want %d (%v)", len(s.Bars), len(want), want)
	}
	answers := float64(test.Statuses[eval.StatusAnswered] + test.Statuses[eval.StatusAbstained])
	thresholds := map[string]float64{"citation_support_rate": 0.95, "value_correct_rate": 0.9, "answers_blocked": 0}
	for _, b := range s.Bars {
		if !want[b.Metric] || b.Track < 100 {
			t.Errorf("bar %q: unexpected, or %.0f px wide", b.Metric, b.Track)
			continue
		}
		scale := 1.0
		if strings.HasPrefix(b.Metric, "answers_") {
			scale = answers
		}
		v := test.Metrics[b.Metric]
		if got, want := b.Fill, b.Track*math.Min(v/scale, 1); math.Abs(got-want) > 1.5 {
			t.Errorf("%s = %v: bar %.1f of %.1f px, want %.1f", b.Metric, v, got, b.Track, want)
		}
		if tv, ok := thresholds[b.Metric]; ok && math.Abs(b.Mark-b.Track*tv/scale) > 2 {
			t.Errorf("%s: threshold line at %.1f px of %.1f, want %.1f", b.Metric, b.Mark, b.Track, b.Track*tv/scale)
		}
	}
	if v := test.Metrics["citation_support_rate"]; v != 0.5 {
		t.Errorf("the bad run's test citation_support_rate is %v, want 0.5: the widths above prove little", v)
	}
	if s.FailureBars != 14 {
		t.Errorf("%d failure bars, want 7 categories × 2 splits", s.FailureBars)
	}
	if len(s.Charts) != 3 || s.Charts["citation_support_rate"] != 2 || s.Charts["answers_blocked"] != 2 {
		t.Errorf("trend charts %v: want the 3 gated metrics with a point for each of the 2 runs (%s, %s)", s.Charts, base.RunID, rec.RunID)
	}

	// The failed question links its claim's evidence, absolute under
	// --viewer-base; the passing one links nothing.
	ev := rec.Question("receipt").Verification.Claims[0].Evidence[0]
	if s.Failed != "true" || len(s.Evidence) != 1 || s.Evidence[0] != e.ts.URL+"/view/"+receiptChunk || len(s.Spans) != 1 {
		t.Fatalf("failed question: data-failed %q, evidence links %q, span links %q: want one link to %s/view/%s and one span", s.Failed, s.Evidence, s.Spans, e.ts.URL, receiptChunk)
	}
	if s.PassedLinks != 0 {
		t.Errorf("the passing question has %d links", s.PassedLinks)
	}
	// Clicked, the evidence link opens the viewer on the cited chunk; the
	// span link on the passage the verifier checked.
	chunk, err := resolve.Chunk(e.db, receiptChunk, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ link, want, shot string }{
		{`#q-receipt a.evidence`, chunk.Text, "viewer-chunk"},
		{`#q-receipt a.span`, ev.Text, "viewer-span"},
	} {
		if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body")),
			chromedp.Click(chromedp.CSS(tt.link)), chromedp.WaitReady(chromedp.CSS("mark#cited"))); err != nil {
			t.Fatalf("clicking %s: %v", tt.link, err)
		}
		loc, err := chromedp.Run(bctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById("cited").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(loc, e.ts.URL+"/view/") || got != tt.want {
			t.Errorf("%s opened %s showing %q, want the viewer showing %q", tt.link, loc, got, tt.want)
		}
		shot(tt.shot)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
