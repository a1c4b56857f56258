package ingest

import (
	"errors"
	"strings"
)

// Sentinel errors. Callers match them with errors.Is; the errors returned by
// Extract are *ExtractError values that wrap one of them.
var (
	// ErrEmpty is returned when a source, or the text extracted from it, is
	// empty or holds only white space.
	ErrEmpty = errors.New("ingest: empty document")
	// ErrBinary is returned when a source holds a NUL byte or a high share of
	// control characters: it is not text.
	ErrBinary = errors.New("ingest: binary content")
	// ErrInvalidUTF8 is returned when a source is not valid UTF-8. Sources in
	// other encodings must be converted before ingest.
	ErrInvalidUTF8 = errors.New("ingest: invalid UTF-8")
	// ErrUnsupported is returned when no extractor handles the source's type.
	ErrUnsupported = errors.New("ingest: unsupported file type")
	// ErrTooLarge is returned when a source is over the size limit.
	ErrTooLarge = errors.New("ingest: source too large")
)

// Reason codes of a failed extraction, recorded with the failed ingest
// (store.Failure.Reason) and carried by ExtractError.Reason.
const (
	ReasonEmpty       = "empty"
	ReasonBinary      = "binary"
	ReasonInvalidUTF8 = "invalid_utf8"
	ReasonUnsupported = "unsupported"
	ReasonTooLarge    = "too_large"
	ReasonUnreadable  = "unreadable"
)

// ExtractError reports a source that could not be read or extracted at all.
type ExtractError struct {
	Path   string // the source path as given
	Reason string // a reason code: empty, binary, invalid_utf8, unsupported, too_large, unreadable
	Err    error  // the cause, usually wrapping one of the sentinel errors
}

// Error returns one line naming the file, the reason code and the cause.
func (e *ExtractError) Error() string {
	msg := "ingest: " + e.Path + ": " + e.Reason
	if e.Err != nil {
		msg += ": " + strings.TrimPrefix(e.Err.Error(), "ingest: ")
	}
	// A path or an OS error may hold line breaks; the message stays one line
	// because batch reports print one failure a line.
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, msg)
}

// Unwrap returns the cause, so errors.Is(err, ErrBinary) and the like work.
func (e *ExtractError) Unwrap() error { return e.Err }

// reasonOf maps an extraction error to its reason code.
func reasonOf(err error) string {
	switch {
	case errors.Is(err, ErrEmpty):
		return ReasonEmpty
	case errors.Is(err, ErrBinary):
		return ReasonBinary
	case errors.Is(err, ErrInvalidUTF8):
		return ReasonInvalidUTF8
	case errors.Is(err, ErrUnsupported):
		return ReasonUnsupported
	case errors.Is(err, ErrTooLarge):
		return ReasonTooLarge
	}
	return ReasonUnreadable
}
