// Package verify checks each claim of a RAG answer against the evidence it
// cites and returns a deterministic disposition (docs/contract.md,
// quote match levels to dispositions).
//
// For every citation, in order: the chunk exists, was retrieved for the
// request, is not quarantined or deleted, its version is allowed by the
// policy, the principal may read it (if not, nothing of it is revealed),
// the offsets given fall inside the chunk, and the quote matches the
// stored span (exact, whitespace, normalized or fuzzy, located in
// canonical code points). Then, on the union of the claim's accepted
// evidence: every figure of the claim appears exactly in it (a fuzzy quote
// never excuses a changed figure), a figure of the same kind with another
// value is a contradiction, and the qualifiers the policy requires are
// carried. The meaning checks (meaning*.go, word lists in
// meaning-words.json) then compare the claim with the sentence its quote
// matched: negation, bounds and trends, periods, modals, names and roles,
// exceptions; each fires only where the two texts line up, so a claim that
// restates its evidence is never blocked. Every claim and citation lists the
// checks that ran and passed. Support (citations) and coverage (claims and
// factual sentences) are measured apart and never merged.
//
// An optional model judge (Judge, docs/judge.md) is then asked about each
// claim that passed every check, shown only that claim and its own
// accepted spans; it can only downgrade the claim, and a judge that fails
// sends it to review. It runs outside the store's read transaction.
//
// Stored traces are read back by ListTraces and TraceStatsOf, which count
// failures by category (Category maps every reason code to one of
// Categories, the one place that mapping lives), and ReplayTrace verifies a
// trace's request again against the store as it is now and says what
// changed (docs/traces.md).
//
// Verification reads only what ingest stored; the model never supplies a
// URL, page or document identity. Check is read-only and fast; Answer
// also stores the trace.
package verify
