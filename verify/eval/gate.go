package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Thresholds are a gate's bounds per metric: {"metrics": {"NAME": {"min":
// X} | {"max": Y}}}.
type Thresholds struct {
	Metrics map[string]Threshold `json:"metrics"`
}

// Threshold bounds one metric: at least Min, at most Max (either or both).
type Threshold struct {
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
}

// LoadThresholds reads a thresholds file: YAML when its name ends in .yaml
// or .yml, else JSON, strictly (an unknown field or metric name is an
// error, so a misspelt threshold never passes silently).
func LoadThresholds(path string) (*Thresholds, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrThresholds, err)
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		if b, err = yaml.YAMLToJSON(b); err != nil {
			return nil, fmt.Errorf("%s: %w: %v", path, ErrThresholds, err)
		}
	}
	th, err := ParseThresholds(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return th, nil
}

// ParseThresholds parses and checks JSON thresholds.
func ParseThresholds(b []byte) (*Thresholds, error) {
	var th Thresholds
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&th); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrThresholds, strings.TrimPrefix(err.Error(), "json: "))
	}
	if len(th.Metrics) == 0 {
		return nil, fmt.Errorf("%w: no metrics: want {\"metrics\": {\"NAME\": {\"min\": X} | {\"max\": Y}}}", ErrThresholds)
	}
	known := map[string]bool{}
	for _, m := range Metrics {
		known[m] = true
	}
	for name, t := range th.Metrics {
		switch {
		case !known[name]:
			return nil, fmt.Errorf("%w: unknown metric %q (metrics: %s)", ErrThresholds, name, strings.Join(Metrics, ", "))
		case t.Min == nil && t.Max == nil:
			return nil, fmt.Errorf("%w: %s: give min or max", ErrThresholds, name)
		case t.Min != nil && t.Max != nil && *t.Min > *t.Max:
			return nil, fmt.Errorf("%w: %s: min %g is above max %g", ErrThresholds, name, *t.Min, *t.Max)
		case t.Min != nil && (math.IsNaN(*t.Min) || math.IsInf(*t.Min, 0)), t.Max != nil && (math.IsNaN(*t.Max) || math.IsInf(*t.Max, 0)):
			return nil, fmt.Errorf("%w: %s: bounds are finite numbers", ErrThresholds, name)
		}
	}
	return &th, nil
}

// GateOptions tune a gate.
type GateOptions struct {
	// AllowIncomplete passes a run in which test questions were not run,
	// are invalid or have no usable answer, when the thresholds hold for
	// the rest.
	AllowIncomplete bool
}

// GateResult is a gate's verdict on a run's test split.
type GateResult struct {
	RunID     string      `json:"run_id"`
	Pass      bool        `json:"pass"`
	Split     string      `json:"split"`
	Questions int         `json:"questions"`
	Checks    []GateCheck `json:"checks"`
	// Incomplete says what of the test split did not run, or ran without a
	// usable answer; it fails the gate unless allowed.
	Incomplete []string `json:"incomplete"`
	// Baseline is the run compared with; Regressions are its test
	// questions that got worse, and Changes the run's gated metrics then
	// and now.
	Baseline    string         `json:"baseline,omitempty"`
	Regressions []Regression   `json:"regressions,omitempty"`
	Changes     []MetricChange `json:"changes,omitempty"`
}

// GateCheck is one threshold against the run's value.
type GateCheck struct {
	Metric string   `json:"metric"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
	Value  *float64 `json:"value"` // nil when nothing in the test split measured it
	Pass   bool     `json:"pass"`
	Reason string   `json:"reason,omitempty"`
}

// Regression is a test question that got worse than in the baseline.
type Regression struct {
	ID      string   `json:"id"`
	Changes []Change `json:"changes"`
}

// Change is one thing that got worse: a metric, the status or the
// disposition, before and now.
type Change struct {
	What     string `json:"what"`
	Baseline string `json:"baseline"`
	Now      string `json:"now"`
	Detail   string `json:"detail,omitempty"`
}

// MetricChange is a gated metric in the baseline and now.
type MetricChange struct {
	Metric   string   `json:"metric"`
	Baseline *float64 `json:"baseline"`
	Now      *float64 `json:"now"`
	Worse    bool     `json:"worse"`
}

// Gate checks the test split of rec against th, and against base when
// given.
func Gate(rec *Record, th *Thresholds, base *Record, opts GateOptions) *GateResult {
	g := &GateResult{RunID: rec.RunID, Split: SplitTest, Incomplete: []string{}, Checks: []GateCheck{}}
	test := rec.Splits[SplitTest]
	if test == nil {
		test = &Summary{Metrics: map[string]float64{}, Statuses: map[string]int{}}
	}
	g.Questions = test.Statuses["total"]
	if g.Questions == 0 {
		g.Incomplete = append(g.Incomplete, "the run has no test questions")
	}
	for _, st := range []string{StatusNotRun, StatusInvalid, StatusError} {
		if n := test.Statuses[st]; n > 0 {
			g.Incomplete = append(g.Incomplete, fmt.Sprintf("%d test question(s) %s%s", n, statusWords[st], reasonList(rec, st)))
		}
	}
	if n := untypedInvalid(rec); n > 0 {
		g.Incomplete = append(g.Incomplete, fmt.Sprintf("%d golden line(s) invalid, of no known split", n))
	}
	if rec.Budget.ProbesNotRun > 0 {
		g.Incomplete = append(g.Incomplete, fmt.Sprintf("%d probe(s) not run (budget %s)", rec.Budget.ProbesNotRun, rec.Budget.Stopped))
	}
	pass := len(g.Incomplete) == 0 || opts.AllowIncomplete && g.Questions > 0
	names := make([]string, 0, len(th.Metrics))
	for name := range th.Metrics {
		names = append(names, name)
	}
	sortMetrics(names)
	for _, name := range names {
		t := th.Metrics[name]
		c := GateCheck{Metric: name, Min: t.Min, Max: t.Max, Pass: true}
		if v, ok := test.Metrics[name]; ok {
			c.Value = &v
			if t.Min != nil && v < *t.Min-1e-12 {
				c.Pass, c.Reason = false, fmt.Sprintf("%s below the minimum %s", num(v), num(*t.Min))
			}
			if t.Max != nil && v > *t.Max+1e-12 {
				c.Pass, c.Reason = false, fmt.Sprintf("%s above the maximum %s", num(v), num(*t.Max))
			}
		} else {
			c.Pass, c.Reason = false, "not measured: "+unmeasured[name]
		}
		pass = pass && c.Pass
		g.Checks = append(g.Checks, c)
	}
	g.Pass = pass
	if base != nil {
		g.Baseline = base.RunID
		g.Regressions = Regressions(base, rec)
		bt := base.Splits[SplitTest]
		for _, name := range names {
			mc := MetricChange{Metric: name}
			if v, ok := test.Metrics[name]; ok {
				mc.Now = &v
			}
			if bt != nil {
				if v, ok := bt.Metrics[name]; ok {
					mc.Baseline = &v
				}
			}
			if mc.Now != nil && mc.Baseline != nil {
				mc.Worse = worse(name, *mc.Baseline, *mc.Now)
			}
			g.Changes = append(g.Changes, mc)
		}
	}
	return g
}

var statusWords = map[string]string{StatusNotRun: "not run", StatusInvalid: "invalid", StatusError: "without a usable answer"}

// unmeasured says why a metric can be absent from a split.
var unmeasured = map[string]string{
	MetricRetrievalHitRate:         "no answered test question has expected_evidence",
	MetricMRR:                      "no answered test question has expected_evidence",
	MetricValueCorrectRate:         "no answered test question has expected_values",
	MetricCitationSupportRate:      "no test answer cites anything",
	MetricClaimCoverageRate:        "no test answer makes a claim that needs evidence",
	MetricUnanswerableDeclinedRate: "the test split has no answered unanswerable question",
	MetricFalseRefusalRate:         "the test split has no answered answerable question",
	MetricSentenceCitationRate:     "no test answer has factual prose",
	MetricValidMarkerRate:          "no test answer's prose has a citation marker",
	MetricProbeDecorationRate:      "no ablation probe of a test answer ran (--probe N with --live)",
	MetricProbeMemoryRate:          "no counterfactual probe of a test answer ran (--probe N with --live)",
	MetricCitationRecall:           "no judge was configured, or it judged no test claim",
	MetricCitationPrecision:        "no judge was configured, or it judged no test citation",
	MetricAnswerErrorRate:          "no test question was run",
	MetricAnswersBlocked:           "no test question was answered",
	MetricAnswersPartial:           "no test question was answered",
	MetricAnswersAbstained:         "no test question was answered",
	MetricAnswersAccepted:          "no test question was answered",
	MetricAnswersReview:            "no test question was answered",
	MetricAnswersClarify:           "no test question was answered",
}

func reasonList(rec *Record, status string) string {
	count := map[string]int{}
	for _, q := range rec.Questions {
		if q.Split == SplitTest && q.Status == status {
			count[reasonCode(q.Reason)]++
		}
	}
	var parts []string
	for code, n := range count {
		parts = append(parts, fmt.Sprintf("%s %d", code, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func untypedInvalid(rec *Record) int {
	n := 0
	for _, q := range rec.Questions {
		if q.Status == StatusInvalid && q.Split != SplitTest && q.Split != SplitDev {
			n++
		}
	}
	return n
}

// worse reports whether a metric moved the wrong way.
func worse(metric string, before, now float64) bool {
	if lowerIsBetter[metric] {
		return now > before+1e-9
	}
	return now < before-1e-9
}

// dispositionRank orders an answerable question's dispositions, best
// first.
var dispositionRank = map[string]int{"accept": 0, "clarify": 1, "partial": 2, "review": 3, "abstain": 4, "block": 5}

var statusRank = map[string]int{StatusAnswered: 0, StatusAbstained: 0, StatusError: 1, StatusInvalid: 1, StatusNotRun: 1}

// Regressions lists the test questions of now that got worse than in
// base, in now's order: a status that lost its answer, a worse
// disposition (answerable questions), and every per-question metric that
// moved the wrong way, with the values missing now that were found then.
func Regressions(base, now *Record) []Regression {
	out := []Regression{}
	for _, q := range now.Questions {
		if q.Split != SplitTest {
			continue
		}
		b := base.Question(q.ID)
		if b == nil {
			continue
		}
		var cs []Change
		if statusRank[q.Status] > statusRank[b.Status] {
			cs = append(cs, Change{What: "status", Baseline: b.Status, Now: q.Status, Detail: q.Reason})
		}
		if q.Answerable && q.Disposition != "" && b.Disposition != "" && dispositionRank[q.Disposition] > dispositionRank[b.Disposition] {
			cs = append(cs, Change{What: "disposition", Baseline: b.Disposition, Now: q.Disposition})
		}
		for _, name := range Metrics {
			bv, ok1 := b.Metrics[name]
			nv, ok2 := q.Metrics[name]
			if ok1 && ok2 && worse(name, bv, nv) {
				c := Change{What: name, Baseline: num(bv), Now: num(nv)}
				switch name {
				case MetricValueCorrectRate:
					if len(q.ValuesMissing) > 0 {
						c.Detail = "missing " + strings.Join(q.ValuesMissing, ", ")
					}
				case MetricProbeDecorationRate, MetricProbeMemoryRate:
					c.Detail = probeDetail(q.Probes, name)
				}
				cs = append(cs, c)
			}
		}
		if len(cs) > 0 {
			out = append(out, Regression{ID: q.ID, Changes: cs})
		}
	}
	return out
}

func probeDetail(ps []ProbeResult, metric string) string {
	for _, p := range ps {
		if p.Outcome == OutcomeDecoration && metric == MetricProbeDecorationRate || p.Outcome == OutcomeMemory && metric == MetricProbeMemoryRate {
			return p.Detail
		}
	}
	return ""
}

// sortMetrics orders names as Metrics lists them.
func sortMetrics(names []string) {
	pos := map[string]int{}
	for i, m := range Metrics {
		pos[m] = i
	}
	sort.Slice(names, func(i, j int) bool { return pos[names[i]] < pos[names[j]] })
}

// num formats a metric value: integers plainly, rates with three digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
