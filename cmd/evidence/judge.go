package main

import (
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/evidence-rag/evidence/verify"
)

// judgeAPIKeyEnv names the environment variable whose value a judge gets
// as its bearer token: a secret stays out of policy files and traces.
const judgeAPIKeyEnv = "EVIDENCE_JUDGE_API_KEY"

// judgeFlags are the --judge flags of verify and serve. They override the
// policy's judge config field by field.
type judgeFlags struct {
	url, format, model    string
	timeout               time.Duration
	maxCalls, concurrency int
}

func (jf *judgeFlags) register(f *pflag.FlagSet) {
	f.StringVar(&jf.url, "judge", "", "`URL` of a model judge asked about every claim that passes the deterministic checks (docs/judge.md); overrides the policy's judge")
	f.StringVar(&jf.format, "judge-format", "", "judge protocol (`FORMAT`): plain (default: POST the claim and its evidence, read a verdict) or openai (chat completions)")
	f.StringVar(&jf.model, "judge-model", "", "model `NAME` sent to an openai-format judge")
	f.DurationVar(&jf.timeout, "judge-timeout", 0, "time a judge call may take (default 10s); a judge that takes longer sends the claim to review")
	f.IntVar(&jf.maxCalls, "judge-max-calls", 0, "judge at most `N` claims per request (default 32); the rest go to review")
	f.IntVar(&jf.concurrency, "judge-concurrency", 0, "keep at most `N` judge calls in flight per request (default 4)")
}

// set reports whether any judge flag was given.
func (jf *judgeFlags) set() bool {
	return jf.url != "" || jf.format != "" || jf.model != "" || jf.timeout != 0 || jf.maxCalls != 0 || jf.concurrency != 0
}

// policy returns pol with the judge its config and the flags describe
// (the flags win), or pol itself when neither names a judge URL. The
// judge's API key comes from EVIDENCE_JUDGE_API_KEY.
func (jf *judgeFlags) policy(pol *verify.Policy) (*verify.Policy, error) {
	var cfg verify.JudgeConfig
	if pol.Judge != nil {
		cfg = *pol.Judge
	}
	if jf.url != "" {
		cfg.URL = jf.url
	}
	if jf.format != "" {
		cfg.Format = jf.format
	}
	if jf.model != "" {
		cfg.Model = jf.model
	}
	if jf.timeout != 0 {
		if jf.timeout < time.Millisecond {
			return nil, usagef("--judge-timeout %s: want at least 1ms", jf.timeout)
		}
		cfg.TimeoutMS = int(jf.timeout.Milliseconds())
	}
	if jf.maxCalls != 0 {
		cfg.MaxCalls = jf.maxCalls
	}
	if jf.concurrency != 0 {
		cfg.Concurrency = jf.concurrency
	}
	if cfg.URL == "" {
		if jf.set() {
			return nil, usagef("--judge-format, --judge-model, --judge-timeout, --judge-max-calls and --judge-concurrency need --judge URL (or a judge in the policy)")
		}
		return pol, nil
	}
	cfg.APIKey = os.Getenv(judgeAPIKeyEnv)
	j, err := verify.NewHTTPJudge(cfg)
	if err != nil {
		return nil, usageError{err}
	}
	q := pol.WithJudge(j)
	q.Judge = &cfg // the trace records the judge the flags chose
	return q, nil
}
