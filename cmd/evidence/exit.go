package main

import (
	"errors"
	"fmt"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// Exit codes, documented in the root command's help and the README. Scripts
// rely on them; TestExitCodes checks each command's.
const (
	exitOK       = 0
	exitError    = 1 // anything not listed below, and a batch that stored nothing
	exitUsage    = 2 // bad flags or arguments
	exitPartial  = 3 // batch: some stored, some failed; resolve/chunk/text: nothing servable; verify: not accepted; review record: bad lines
	exitFindings = 4 // audit found problems
	exitNotFound = 5 // no such document, version, chunk or trace
	exitLocked   = 6 // another process holds the store
	exitDamaged  = 7 // the store is damaged, foreign, or of an unknown format
	exitNoDB     = 8 // the store's database cannot be reached (down, connection lost, pool exhausted)
)

const exitHelp = `Exit codes:
  0  success
  1  error; also an ingest or rebuild that stored nothing because every input failed
  2  usage: bad flags or arguments (the message names what is allowed)
  3  partial: ingest or rebuild stored something and something failed, or an import was rejected
     by the quarantine gate; resolve, chunk or text found nothing servable (quarantined, deleted,
     forbidden); verify did not accept the answer; review record stored every good line but some
     were bad; eval run left questions not run, invalid or errored; eval gate failed; trace replay
     found a change
  4  audit found problems
  5  not found: no such document, version, chunk or trace (resolve, rebuild, quarantine show too)
  6  the store is locked by another process
  7  the store is damaged, not an evidence store, or of an unknown format
  8  the store's database (PostgreSQL) cannot be reached: down, refusing, connection lost, or
     every pooled connection busy
`

// usageError marks errors in the command line itself.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitStatus carries a non-zero exit code for a command whose output is
// already written: the error message is then a one-line summary.
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string { return e.msg }

// exitCode maps errors to exit codes in one place.
func exitCode(err error) int {
	var es *exitStatus
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &es):
		return es.code
	case errors.As(err, &ue), errors.Is(err, resolve.ErrInvalidRange):
		return exitUsage
	case errors.Is(err, store.ErrNotFound):
		return exitNotFound
	case errors.Is(err, store.ErrLocked):
		return exitLocked
	case errors.Is(err, store.ErrUnavailable):
		return exitNoDB
	case errors.Is(err, store.ErrCorrupt), errors.Is(err, store.ErrNotStore), errors.Is(err, store.ErrFormat):
		return exitDamaged
	}
	return exitError
}

// batchStatus maps the outcome of a batch (ingest, rebuild) to its exit
// status: nil when nothing failed; partial (3) when something was stored
// (ingested, or already there unchanged) and something failed; when
// nothing was stored, not found (5) if every failure names a document that
// does not exist, else an error (1). noun is what the batch counts.
func batchStatus(sum *ingest.Summary, noun string) error {
	if sum.Failed == 0 {
		return nil
	}
	total := sum.Failed + sum.Ingested + sum.Unchanged
	if sum.Ingested+sum.Unchanged > 0 {
		return &exitStatus{code: exitPartial, msg: fmt.Sprintf("%d of %s failed", sum.Failed, plural(total, noun))}
	}
	missing := 0
	for _, r := range sum.Results {
		if r.Status == ingest.Failed && r.Reason == ingest.ReasonNotFound {
			missing++
		}
	}
	if missing == sum.Failed {
		msg := "nothing stored: no such " + noun
		if total > 1 {
			msg = fmt.Sprintf("nothing stored: none of the %s is in the store", plural(total, noun))
		}
		return &exitStatus{code: exitNotFound, msg: msg}
	}
	return &exitStatus{code: exitError, msg: fmt.Sprintf("nothing stored: %s failed", allOf(total, noun))}
}

// servedStatus is the exit status of a resolution that was printed: nil
// when it served text, not found (5) for an unknown chunk or version,
// partial (3) for the rest (quarantined, deleted, forbidden).
func servedStatus(what string, r *resolve.Resolution) error {
	switch {
	case r.Served():
		return nil
	case r.Status == resolve.StatusNotFound:
		msg := what + ": not found"
		if r.Reason != "" {
			msg += " (" + r.Reason + ")"
		}
		return &exitStatus{code: exitNotFound, msg: msg}
	}
	return &exitStatus{code: exitPartial, msg: what + ": " + string(r.Status)}
}
