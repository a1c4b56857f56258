package main

import (
	"errors"
	"fmt"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// Exit codes, documented in the root command's help. Scripts rely on them.
const (
	exitOK       = 0
	exitError    = 1 // anything not listed below
	exitUsage    = 2 // bad flags or arguments
	exitPartial  = 3 // ingest: some files failed; resolve/chunk: nothing servable; review record: bad lines
	exitFindings = 4 // audit found problems
	exitNotFound = 5 // no such document, version or chunk
	exitLocked   = 6 // another process holds the store
	exitDamaged  = 7 // the store is damaged, foreign, or of an unknown format
)

const exitHelp = `Exit codes:
  0  success
  1  error
  2  usage: bad flags or arguments
  3  partial: ingest stored every good file but some failed; resolve/chunk found nothing servable;
     review record stored every good line but some were bad
  4  audit found problems
  5  not found: no such document, version or chunk
  6  the store is locked by another process
  7  the store is damaged, not an evidence store, or of an unknown format
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
	case errors.Is(err, store.ErrCorrupt), errors.Is(err, store.ErrNotStore), errors.Is(err, store.ErrFormat):
		return exitDamaged
	}
	return exitError
}
