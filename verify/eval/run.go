package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// Config is what a run needs. Exactly one of Generator and Answers gives
// the answers; a Generator beside Answers asks only the probes.
type Config struct {
	Golden     *Golden
	GoldenFile FileInfo
	DB         Viewer
	StorePath  string
	Policy     *verify.Policy // nil: the default policy
	Generator  Generator
	Answers    *Answers
	Source     Source
	Parallel   int           // answers in flight (at least 1)
	Timeout    time.Duration // per answer, for the record (the Generator enforces it)
	Probe      int           // answers to probe
	Budget     Budget
	// Judge, when set, measures ALCE-style citation recall and precision
	// (citation_quality.go).
	Judge    verify.Judge
	Progress func(Progress)
	// Invalid, when set, is told of every question that will not run
	// because its golden line or its expected evidence is bad, before
	// anything runs.
	Invalid func(QuestionResult)
	RunID   string // "" makes one (NewRunID)
	Now     func() time.Time
}

// Budget bounds what a live run spends; zero is no bound. No request is
// sent once a bound is reached; requests in flight then finish (max_seconds
// cancels them), so a run exceeds max_cost_usd by at most what its last
// parallel answers cost.
type Budget struct {
	MaxCalls   int
	MaxCostUSD float64
	MaxTime    time.Duration // --max-seconds
}

// BudgetReport is what a run spent, what stopped it, and what it did not
// run.
type BudgetReport struct {
	MaxCalls   int     `json:"max_calls,omitempty"`
	MaxCostUSD float64 `json:"max_cost_usd,omitempty"`
	MaxSeconds float64 `json:"max_seconds,omitempty"`
	Calls      int     `json:"calls"`    // generator calls: usage.calls summed, at least 1 an answer
	CostUSD    float64 `json:"cost_usd"` // usage.cost_usd summed
	Seconds    float64 `json:"seconds"`  // wall time of the run
	JudgeCalls int     `json:"judge_calls"`
	// Stopped names the bound that stopped the run (max_calls,
	// max_cost_usd, max_seconds) or "interrupted"; "" when nothing did.
	Stopped      string   `json:"stopped,omitempty"`
	NotRun       []string `json:"not_run"` // question ids, in golden order
	ProbesNotRun int      `json:"probes_not_run"`
}

// Progress reports one finished question or probe.
type Progress struct {
	Phase  string // "questions" or "probes"
	Done   int
	Total  int
	ID     string
	Status string
}

// NewRunID returns the id of a run started at now: its time in
// milliseconds then random bytes, in hex, as trace ids are made, so stored
// runs list in time order.
func NewRunID(now time.Time) (string, error) { return verify.NewTraceID(now) }

type runner struct {
	cfg     Config
	ctx     context.Context // the caller's: cancelled means interrupted
	runCtx  context.Context // with the max_seconds deadline
	pol     *verify.Policy
	rec     *Record
	qs      []*Question // by result index; nil for an invalid line
	results []QuestionResult
	spend   spend

	mu    sync.Mutex
	fatal error
}

// Run runs a golden set and returns its record. err is set only when the
// run could not be made at all (the store cannot be read); everything
// about a question is recorded against it.
func Run(ctx context.Context, cfg Config) (*Record, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.Generator == nil && cfg.Answers == nil {
		return nil, errors.New("eval: a run needs a generator or recorded answers")
	}
	pol := cfg.Policy
	if pol == nil {
		pol = verify.DefaultPolicy()
	}
	started := cfg.Now().UTC()
	id := cfg.RunID
	if id == "" {
		var err error
		if id, err = NewRunID(started); err != nil {
			return nil, err
		}
	}
	polJSON, err := json.Marshal(pol)
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, ctx: ctx, pol: pol}
	r.rec = &Record{RunID: id, Started: started, Golden: cfg.GoldenFile, Source: cfg.Source, Policy: polJSON,
		Options: Options{Parallel: cfg.Parallel, TimeoutMS: float64(cfg.Timeout.Microseconds()) / 1000, Probe: cfg.Probe},
		Store:   StoreInfo{Path: cfg.StorePath}}
	if cfg.Judge != nil {
		r.rec.Judge = cfg.Judge.ID()
	}
	b := cfg.Budget
	r.rec.Budget = BudgetReport{MaxCalls: b.MaxCalls, MaxCostUSD: b.MaxCostUSD, MaxSeconds: b.MaxTime.Seconds(), NotRun: []string{}}
	var cancel context.CancelFunc = func() {}
	r.runCtx = ctx
	if b.MaxTime > 0 {
		r.runCtx, cancel = context.WithDeadline(ctx, started.Add(b.MaxTime))
	}
	defer cancel()
	r.spend = spend{b: b, start: started}
	if cfg.Answers != nil {
		r.rec.Issues = append(r.rec.Issues, cfg.Answers.Issues...)
	}

	if err := r.prepare(); err != nil {
		return nil, err
	}
	todo := make([]int, 0, len(r.results))
	for i := range r.results {
		if r.results[i].Status == "" {
			todo = append(todo, i)
		}
	}
	live := cfg.Answers == nil
	taken := r.each(todo, live, "questions", func(i int) string { r.answer(i); return r.results[i].Status })
	for _, i := range todo[taken:] {
		r.notRun(&r.results[i])
	}
	if err := r.fatalErr(); err != nil {
		return nil, err
	}
	if cfg.Probe > 0 && cfg.Generator != nil && r.spend.stopped == "" {
		if err := r.probe(); err != nil {
			return nil, err
		}
	}
	if err := r.fatalErr(); err != nil {
		return nil, err
	}
	_ = cfg.DB.View(func(tx *store.Tx) error { r.rec.Store.SequenceEnd = tx.Sequence(); return nil })
	rec := r.rec
	rec.Questions = r.results
	rec.Budget.Calls, rec.Budget.CostUSD = r.spend.calls, r.spend.cost
	rec.Budget.Stopped = r.spend.stopped
	for _, q := range rec.Questions {
		if q.Status == StatusNotRun {
			rec.Budget.NotRun = append(rec.Budget.NotRun, q.ID)
		}
	}
	rec.Complete = len(rec.Budget.NotRun) == 0 && rec.Budget.ProbesNotRun == 0
	rec.Finished = cfg.Now().UTC()
	rec.Budget.Seconds = rec.Finished.Sub(started).Seconds()
	rec.finish()
	return rec, nil
}

// prepare makes a result for every question and invalid line, and
// resolves the expected evidence before anything runs.
func (r *runner) prepare() error {
	g := r.cfg.Golden
	r.results = make([]QuestionResult, 0, len(g.Questions)+len(g.Invalid))
	r.qs = make([]*Question, 0, cap(r.results))
	err := r.cfg.DB.View(func(tx *store.Tx) error {
		r.rec.Store.Sequence = tx.Sequence()
		res := newResolver(tx)
		for i := range g.Questions {
			q := &g.Questions[i]
			qr := QuestionResult{ID: q.ID, Split: q.Split, Question: q.Question, Answerable: q.Answerable, Risk: q.Risk,
				Tags: q.Tags, Principal: q.Principal, Metrics: map[string]float64{}}
			ev, problem, err := res.question(q)
			if err != nil {
				return err
			}
			if problem != "" {
				qr.Status, qr.Reason = StatusInvalid, reason(ReasonEvidenceUnresolved, problem)
			}
			qr.ExpectedEvidence = ev
			r.results = append(r.results, qr)
			r.qs = append(r.qs, q)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("eval: resolving the expected evidence: %w", err)
	}
	for _, bad := range g.Invalid {
		id := bad.ID
		if id == "" {
			id = fmt.Sprintf("line %d", bad.Line)
		}
		r.results = append(r.results, QuestionResult{ID: id, Split: bad.Split, Status: StatusInvalid, Metrics: map[string]float64{},
			Reason: reason(ReasonGoldenInvalid, fmt.Sprintf("line %d: %s", bad.Line, bad.Reason))})
		r.qs = append(r.qs, nil)
	}
	if r.cfg.Invalid != nil {
		for _, qr := range r.results {
			if qr.Status == StatusInvalid {
				r.cfg.Invalid(qr)
			}
		}
	}
	return nil
}

// each runs do over items with cfg.Parallel workers, in order, and
// returns how many it took: with live, an item is taken only when the
// budget allows a call, and none after the first it refuses.
func (r *runner) each(items []int, live bool, phase string, do func(int) string) int {
	var mu sync.Mutex
	next, done := 0, 0
	var wg sync.WaitGroup
	workers := min(r.cfg.Parallel, len(items))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= len(items) || r.fatalErr() != nil || (live && !r.spend.reserve(r.ctx, r.cfg.Now())) {
					mu.Unlock()
					return
				}
				i := items[next]
				next++
				mu.Unlock()
				status := do(i)
				if r.cfg.Progress != nil {
					mu.Lock() // one report at a time, in the order they finish
					done++
					r.cfg.Progress(Progress{Phase: phase, Done: done, Total: len(items), ID: r.results[i].ID, Status: status})
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return next
}

func (r *runner) setFatal(err error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.mu.Unlock()
}

func (r *runner) fatalErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal
}

// notRun marks a question the run did not get to.
func (r *runner) notRun(qr *QuestionResult) {
	qr.Status = StatusNotRun
	if why := r.spend.stoppedBy(); why == ReasonInterrupted {
		qr.Reason = ReasonInterrupted
	} else {
		qr.Reason = reason(ReasonBudget, why)
	}
}

// answer gets and scores the answer to question i.
func (r *runner) answer(i int) {
	qr, q := &r.results[i], r.qs[i]
	var a *Answer
	if r.cfg.Answers != nil {
		if bad, ok := r.cfg.Answers.Bad[q.ID]; ok {
			qr.Status, qr.Reason = StatusError, reason(ReasonAnswerInvalid, bad)
			return
		}
		if a = r.cfg.Answers.ByID[q.ID]; a == nil {
			qr.Status, qr.Reason = StatusError, reason(ReasonAnswerMissing, "no line of the answers file has this id")
			return
		}
	} else {
		t0 := time.Now()
		var err error
		a, err = r.cfg.Generator.Generate(r.runCtx, &Request{ID: q.ID, Question: q.Question, Principal: q.Principal})
		qr.LatencyMS = float64(time.Since(t0).Microseconds()) / 1000
		if err != nil {
			r.spend.settle(1, 0)
			if r.runCtx.Err() != nil {
				r.spend.stop(r.ctx)
				r.notRun(qr)
				return
			}
			qr.Status, qr.Reason = StatusError, genReason(err)
			return
		}
		r.spend.settle(a.calls(), a.cost())
	}
	r.score(qr, q, a)
}

// genReason is the recorded reason of a generator failure.
func genReason(err error) string {
	var ge *GenError
	if errors.As(err, &ge) {
		return reason(ge.Reason, ge.Err.Error())
	}
	return reason(ReasonCrashed, err.Error())
}

// score verifies an answer and scores it.
func (r *runner) score(qr *QuestionResult, q *Question, a *Answer) {
	qr.Answer = a
	switch {
	case a.Error != "":
		qr.Status, qr.Reason = StatusError, reason(ReasonGeneratorError, clip(a.Error, 500))
		return
	case a.Abstained && len(a.Claims) > 0:
		qr.Status, qr.Reason = StatusError, reason(ReasonAnswerInvalid, "abstained, yet makes claims")
		return
	}
	req := a.request(r.rec.RunID+"/"+q.ID, q.Principal)
	if err := req.Validate(); err != nil {
		qr.Status, qr.Reason = StatusError, reason(ReasonAnswerInvalid, err.Error())
		return
	}
	if a.Abstained {
		qr.Status = StatusAbstained
		score(qr, q, a, nil)
		return
	}
	rep, err := verify.Check(r.ctx, r.cfg.DB, req, r.pol)
	if err != nil {
		if r.ctx.Err() == nil {
			r.setFatal(fmt.Errorf("eval: verifying the answer to %s: %w", q.ID, err))
		}
		r.notRun(qr)
		return
	}
	qr.Status, qr.Verification = StatusAnswered, rep
	score(qr, q, a, rep)
	if r.cfg.Judge != nil {
		calls := r.judgeCitations(qr, q, a)
		r.spend.mu.Lock()
		r.rec.Budget.JudgeCalls += calls
		r.spend.mu.Unlock()
		rescoreJudge(qr)
	}
}

// spend tracks a live run's budget.
type spend struct {
	mu       sync.Mutex
	b        Budget
	start    time.Time
	calls    int
	inflight int
	cost     float64
	stopped  string
}

// reserve admits one more call, or records which bound stops the run.
func (s *spend) reserve(ctx context.Context, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stopped != "":
	case ctx.Err() != nil:
		s.stopped = ReasonInterrupted
	case s.b.MaxTime > 0 && now.Sub(s.start) >= s.b.MaxTime:
		s.stopped = "max_seconds"
	case s.b.MaxCalls > 0 && s.calls+s.inflight >= s.b.MaxCalls:
		s.stopped = "max_calls"
	case s.b.MaxCostUSD > 0 && s.cost >= s.b.MaxCostUSD:
		s.stopped = "max_cost_usd"
	default:
		s.inflight++
		return true
	}
	return false
}

func (s *spend) settle(calls int, cost float64) {
	s.mu.Lock()
	s.inflight--
	s.calls += calls
	s.cost += cost
	s.mu.Unlock()
}

// stop records why a call in flight was cancelled.
func (s *spend) stop(ctx context.Context) {
	s.mu.Lock()
	if s.stopped == "" {
		s.stopped = "max_seconds"
		if ctx.Err() != nil {
			s.stopped = ReasonInterrupted
		}
	}
	s.mu.Unlock()
}

func (s *spend) stoppedBy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopped
}

// byRisk orders question indexes high risk first, then test before dev,
// then golden order.
func byRisk(idx []int, qs []*Question) {
	rank := map[string]int{"high": 0, "medium": 1, "low": 2, "": 3}
	sort.SliceStable(idx, func(a, b int) bool {
		qa, qb := qs[idx[a]], qs[idx[b]]
		if rank[qa.Risk] != rank[qb.Risk] {
			return rank[qa.Risk] < rank[qb.Risk]
		}
		return qa.Split == SplitTest && qb.Split != SplitTest
	})
}
