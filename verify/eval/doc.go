// Package eval is the release gate of a RAG pipeline: it runs a golden set
// of questions through the user's generator (or reads answers recorded
// before), checks every answer with the verifier, measures each metric
// separately, probes whether cited evidence drove the answers, and gates a
// run against thresholds and a baseline run (docs/eval.md).
//
// A golden set is JSON Lines of Question (ParseGolden). Its expected
// evidence (document id and quote) is resolved against the store's current
// versions before anything runs (ResolveEvidence): a quote that no longer
// resolves, or resolves to more than one place, makes its question invalid,
// reported first, and the run goes on without it.
//
// A generator is a long-lived process speaking JSON Lines (Process): one
// Request a line in, one Answer a line out, in order. A crash, a hang past
// the per-question timeout, a line that is not an Answer, or an answer the
// verifier refuses as a request is recorded against that question with a
// reason code, and the process is restarted for the next one.
//
// Metrics are computed per question and per run, per split, and never
// merged: retrieval hit rate and MRR of the expected evidence, value
// correctness with the verifier's figure reader, citation support and claim
// coverage from verify.Check, dispositions, abstention and false refusal,
// the citation structure of the prose, ALCE-style citation recall and
// precision when a judge is configured, and the two citation probes
// (ablation, counterfactual). Probes edit only the context sent to the
// generator, never the store.
//
// A run never writes the store: callers keep the Record (and may store it
// with store.DB.PutEvalRun). The budget (calls, cost, seconds) stops a run
// cleanly; the record says what was not run. Only the test split gates.
//
// Reports are made from records alone: WriteMarkdown for CI logs, and
// WriteHTML, one self-contained page (no script, no external asset) whose
// links to the evidence viewer the caller supplies (HTMLOptions), so this
// package knows no server route.
package eval
