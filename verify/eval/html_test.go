package eval_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/eval"
)

// hostile is question and claim text that would run script or load
// something if it reached the page unescaped.
const hostile = `</td></tr></table><script>alert("q")</script><img src=x onerror=alert(1)> "'&amp;`

// htmlRun is a run with a hostile question that is answered with a
// contradicted figure, an unanswerable question answered, and a good one.
func htmlRun(t *testing.T, ts *testStore) (*eval.Record, string) {
	t.Helper()
	c := ts.holding(t, "expense-policy.md", expenseQuote)
	g := parseGolden(t, `{"id": "deadline", "question": "Within how many days must expense reports be submitted?", "split": "test", "answerable": true, "expected_values": ["14 calendar days"], "expected_evidence": [{"document_id": "expense-policy.md", "quote": "`+expenseQuote+`"}]}
{"id": "evil\"><b>x", "question": `+jsonString(hostile)+`, "split": "test", "answerable": true, "expected_values": ["14 calendar days"]}
{"id": "leave", "question": "How many weeks of parental leave do employees get?", "split": "dev", "answerable": false}
`)
	answers := goodAnswers(ts, t)
	claim := "Reports are due within 21 calendar days. " + hostile
	answers[`evil"><b>x`] = &eval.Answer{ID: `evil"><b>x`, Retrieved: []string{c}, Answer: claim + " [" + c + "]",
		Claims: []verify.Claim{{ClaimID: "c1", Text: claim, Evidence: []verify.Evidence{{ChunkID: c, Quote: expenseQuote}}}}}
	answers["leave"] = &eval.Answer{ID: "leave", Retrieved: []string{c}, Answer: "Employees get 16 weeks of parental leave. [" + c + "]",
		Claims: []verify.Claim{{ClaimID: "c1", Text: "Employees get 16 weeks of parental leave.", Evidence: []verify.Evidence{{ChunkID: c}}}}}
	return ts.run(t, g, answers, nil), c
}

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// links are the viewer links of evidence serve under a base URL.
func links(base string) eval.HTMLOptions {
	return eval.HTMLOptions{
		ChunkURL: func(id string) string { return base + "/view/" + url.PathEscape(id) },
		SpanURL: func(v string, start, end int) string {
			return fmt.Sprintf("%s/view/versions/%s?start=%d&end=%d", base, v, start, end)
		},
	}
}

func writeHTML(t *testing.T, runs []*eval.Record, th *eval.Thresholds, opts eval.HTMLOptions) (string, *html.Node) {
	t.Helper()
	var g *eval.GateResult
	if th != nil {
		g = eval.Gate(runs[0], th, nil, eval.GateOptions{})
	}
	var buf bytes.Buffer
	if err := eval.WriteHTML(&buf, runs, th, g, opts); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return buf.String(), doc
}

func walk(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func byID(doc *html.Node, id string) *html.Node {
	var found *html.Node
	walk(doc, func(n *html.Node) {
		if v, ok := attr(n, "id"); ok && v == id && found == nil {
			found = n
		}
	})
	return found
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
	})
	return b.String()
}

// TestHTMLEscapesHostileText: question text, claim text and ids that are
// markup reach the page as text: no script, image or element of theirs
// exists in the parsed page, and the text reads as given.
func TestHTMLEscapesHostileText(t *testing.T) {
	ts := newTestStore(t)
	rec, _ := htmlRun(t, ts)
	out, doc := writeHTML(t, []*eval.Record{rec}, nil, links("http://127.0.0.1:8080"))
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script", "img", "b", "link", "iframe", "object":
			t.Errorf("the page has a <%s> element: hostile text was not escaped", n.Data)
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") || a.Key == "src" {
				t.Errorf("<%s %s=%q>: the page must load and run nothing", n.Data, a.Key, a.Val)
			}
		}
	})
	row := byID(doc, `q-evil"><b>x`)
	if row == nil {
		t.Fatalf("no row with the hostile question's id")
	}
	if got := text(row); !strings.Contains(got, hostile) || !strings.Contains(got, "Reports are due within 21 calendar days. "+hostile) {
		t.Errorf("the hostile question's row does not read as the question and claim:\n%s", got)
	}
	if strings.Contains(out, "<script>") || strings.Contains(out, "<img") {
		t.Errorf("raw markup of the hostile text in the page")
	}
}

// TestHTMLShowsEveryMetric: every metric the run measured in any split,
// and every thresholded one, has a row with a bar; a measured bar is as
// wide as its test value (on its scale) and its threshold line is where
// the threshold is; a failed check says fail.
func TestHTMLShowsEveryMetric(t *testing.T) {
	ts := newTestStore(t)
	rec, _ := htmlRun(t, ts)
	th, err := eval.ParseThresholds([]byte(`{"metrics": {"citation_support_rate": {"min": 0.95}, "value_correct_rate": {"min": 0.9},
		"answers_blocked": {"max": 0}, "probe_memory_rate": {"max": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	_, doc := writeHTML(t, []*eval.Record{rec}, th, links(""))
	test := rec.Splits[eval.SplitTest]
	answers := float64(test.Statuses[eval.StatusAnswered] + test.Statuses[eval.StatusAbstained])
	want := map[string]bool{}
	for _, s := range []map[string]float64{rec.Metrics, test.Metrics, rec.Splits[eval.SplitDev].Metrics} {
		for name := range s {
			want[name] = true
		}
	}
	for name := range th.Metrics {
		want[name] = true
	}
	if len(want) < 15 {
		t.Fatalf("the run measured only %d metrics: the test would prove little", len(want))
	}
	rows := 0
	walk(doc, func(n *html.Node) {
		if v, ok := attr(n, "id"); ok && strings.HasPrefix(v, "metric-") {
			rows++
		}
	})
	if rows != len(want) {
		t.Errorf("%d metric rows, want %d", rows, len(want))
	}
	for name := range want {
		row := byID(doc, "metric-"+name)
		if row == nil {
			t.Errorf("no row for %s", name)
			continue
		}
		var fill, mark *html.Node
		walk(row, func(n *html.Node) {
			if c, _ := attr(n, "class"); n.Data == "rect" && strings.HasPrefix(c, "fill") {
				fill = n
			}
			if c, _ := attr(n, "class"); n.Data == "line" && c == "th" {
				mark = n
			}
		})
		scale := 1.0
		if strings.HasPrefix(name, "answers_") {
			scale = answers
		}
		v, measured := test.Metrics[name]
		switch {
		case measured && fill == nil:
			t.Errorf("%s: measured (%v) but no bar", name, v)
		case measured:
			w, _ := attr(fill, "width")
			if want := fmt.Sprintf("%.2f", 100*min(v/scale, 1)); !sameNum(w, want) {
				t.Errorf("%s: bar width %s, want %s (value %v of %v)", name, w, want, v, scale)
			}
		case fill != nil:
			t.Errorf("%s: not measured in the test split, but has a bar", name)
		default:
			if !strings.Contains(text(row), "not measured") {
				t.Errorf("%s: unmeasured and not said so: %q", name, text(row))
			}
		}
		if bnd, ok := th.Metrics[name]; ok {
			b := bnd.Min
			if b == nil {
				b = bnd.Max
			}
			x, _ := attr(mark, "x1")
			if mark == nil || !sameNum(x, fmt.Sprintf("%.2f", 100*min(*b/scale, 1))) {
				t.Errorf("%s: threshold line at %q, want %v of %v", name, x, *b, scale)
			}
			c := eval.Gate(rec, th, nil, eval.GateOptions{})
			for _, ch := range c.Checks {
				if ch.Metric == name && !ch.Pass && !strings.Contains(text(row), "fail") {
					t.Errorf("%s: the check failed (%s), the row does not say so", name, ch.Reason)
				}
			}
		}
	}
	if v := byID(doc, "verdict"); v == nil || text(v) != "gate FAIL" {
		t.Errorf("verdict: want gate FAIL")
	}
}

func sameNum(a, b string) bool {
	var x, y float64
	_, err1 := fmt.Sscan(a, &x)
	_, err2 := fmt.Sscan(b, &y)
	return err1 == nil && err2 == nil && x-y < 0.006 && y-x < 0.006
}

// TestHTMLLinksFailedClaims: a failed claim links each citation to the
// viewer, by chunk and by the span the verifier checked, under the base
// given; a passing question has no claim list; links are root-relative
// without a base; an unsafe URL never becomes a link.
func TestHTMLLinksFailedClaims(t *testing.T) {
	ts := newTestStore(t)
	rec, chunk := htmlRun(t, ts)
	ev := rec.Question(`evil"><b>x`).Verification.Claims[0].Evidence[0]
	for _, base := range []string{"https://evidence.example:8443/prefix", ""} {
		_, doc := writeHTML(t, []*eval.Record{rec}, nil, links(base))
		hrefs := func(id, class string) []string {
			var out []string
			row := byID(doc, id)
			if row == nil {
				t.Fatalf("no row %s", id)
			}
			walk(row, func(n *html.Node) {
				if c, _ := attr(n, "class"); n.Data == "a" && c == class {
					h, _ := attr(n, "href")
					out = append(out, h)
				}
			})
			return out
		}
		if got, want := hrefs(`q-evil"><b>x`, "evidence"), base+"/view/"+chunk; len(got) != 1 || got[0] != want {
			t.Errorf("base %q: evidence links %q, want [%s]", base, got, want)
		}
		span := fmt.Sprintf("%s/view/versions/%s?start=%d&end=%d", base, ev.DocumentVersion, ev.SourceStart, ev.SourceEnd)
		if got := hrefs(`q-evil"><b>x`, "span"); len(got) != 1 || got[0] != span {
			t.Errorf("base %q: span links %q, want [%s]", base, got, span)
		}
		if got := hrefs("q-leave", "evidence"); len(got) != 1 {
			t.Errorf("base %q: the unanswerable question answered links %q, want its one citation", base, got)
		}
		if got := hrefs("q-deadline", "evidence"); len(got) != 0 {
			t.Errorf("a question that passed lists claims: %q", got)
		}
	}
	_, doc := writeHTML(t, []*eval.Record{rec}, nil, eval.HTMLOptions{ChunkURL: func(string) string { return "javascript:alert(1)" }})
	walk(doc, func(n *html.Node) {
		if h, ok := attr(n, "href"); ok && strings.HasPrefix(strings.ToLower(h), "javascript:") {
			t.Errorf("a javascript: link reached the page: %s", h)
		}
	})
}

// TestHTMLSelfContained: the page's Content-Security-Policy pins its one
// style block by hash and allows nothing else; the trend has a chart per
// gated metric with a point per run that measured it, runs in start order.
func TestHTMLSelfContained(t *testing.T) {
	ts := newTestStore(t)
	bad, _ := htmlRun(t, ts)
	good := ts.run(t, parseGolden(t, metricsGolden), goodAnswers(ts, t), func(c *eval.Config) { c.RunID = "good-run" })
	good.Started = bad.Started.Add(-3600e9) // an hour earlier
	th, err := eval.ParseThresholds([]byte(`{"metrics": {"citation_support_rate": {"min": 0.95}, "probe_memory_rate": {"max": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	out, doc := writeHTML(t, []*eval.Record{bad, good}, th, eval.HTMLOptions{})
	var csp, style string
	walk(doc, func(n *html.Node) {
		if v, _ := attr(n, "http-equiv"); n.Data == "meta" && v == "Content-Security-Policy" {
			csp, _ = attr(n, "content")
		}
		if n.Data == "style" && n.FirstChild != nil {
			style = n.FirstChild.Data
		}
	})
	sum := sha256.Sum256([]byte(style))
	if want := "style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(csp, want) || !strings.HasPrefix(csp, "default-src 'none'") {
		t.Errorf("CSP %q: want default-src 'none' and %s", csp, want)
	}
	if strings.Contains(out, "http://") || strings.Contains(out, "https://") {
		t.Errorf("the page names an external URL without a viewer base")
	}
	charts := map[string]int{}
	var order []string
	walk(doc, func(n *html.Node) {
		if m, ok := attr(n, "data-metric"); ok && n.Data == "figure" {
			charts[m] += 0
			walk(n, func(c *html.Node) {
				if c.Data == "circle" {
					charts[m]++
					if m == "citation_support_rate" {
						title := text(c)
						order = append(order, title[:strings.Index(title, ":")])
					}
				}
			})
		}
	})
	if len(charts) != 2 || charts["citation_support_rate"] != 2 {
		t.Errorf("trend charts %v: want citation_support_rate with 2 points, and probe_memory_rate", charts)
	}
	if charts["probe_memory_rate"] != 0 {
		t.Errorf("probe_memory_rate has %d points; no run probed", charts["probe_memory_rate"])
	}
	if len(order) != 2 || order[0] != "good-run" || order[1] != bad.RunID {
		t.Errorf("trend points in order %v, want the earlier run first", order)
	}
}
