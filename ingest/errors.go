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
	// ErrTooComplex is returned when a source's structure is past what its
	// extractor parses in bounded time (Markdown nested deeper than
	// MaxMarkdownNesting).
	ErrTooComplex = errors.New("ingest: source too complex")
)

// Reason codes of a failed extraction, recorded with the failed ingest
// (store.Failure.Reason) and carried by ExtractError.Reason.
const (
	ReasonEmpty       = "empty"
	ReasonBinary      = "binary"
	ReasonInvalidUTF8 = "invalid_utf8"
	ReasonUnsupported = "unsupported"
	ReasonTooLarge    = "too_large"
	ReasonTooComplex  = "too_complex"
	ReasonUnreadable  = "unreadable"
	// ReasonNotFound fails a rebuild of a document the store does not hold.
	ReasonNotFound = "not_found"
)

// ExtractError reports a source that could not be read or extracted at all.
type ExtractError struct {
	Path   string // the source path as given
	Reason string // a reason code: empty, binary, invalid_utf8, unsupported, too_large, too_complex, unreadable
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
	return oneLine(msg)
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
	case errors.Is(err, ErrTooComplex):
		return ReasonTooComplex
	}
	return ReasonUnreadable
}

// Detail returns what went wrong with the input at path, from the message
// of a batch result that names the path and the reason code (Result.Error,
// store.Failure.Error): the message without the path, the reason code, the
// package prefixes, the operation and path of an OS error, and the text of
// the reason's sentinel, for a report that prints the path and the reason
// beside it. "ingest: docs/bin.md: binary: binary content: NUL byte at byte
// offset 1" is "NUL byte at byte offset 1"; "stat missing.md: no such file or
// directory" is "no such file or directory". Another file's path (a
// manifest, a --text file) is kept. Detail is "" when the reason code says
// it all (an empty file).
func Detail(msg, path, reason string) string {
	trim := func(prefix string) bool { // prefix, then ": " or the end
		rest, ok := strings.CutPrefix(msg, prefix)
		if !ok || prefix == "" || rest != "" && !strings.HasPrefix(rest, ":") {
			return false
		}
		msg = strings.TrimLeft(rest, ": ")
		return true
	}
	for trim("ingest") || trim(path) || trim(reason) {
	}
	if sentinel, ok := sentinels[reason]; ok {
		trim(strings.TrimPrefix(sentinel.Error(), "ingest: "))
	}
	// An OS error: "open PATH: cause".
	if op, rest, ok := strings.Cut(msg, " "); ok && path != "" && !strings.ContainsAny(op, " :") {
		if cause, ok := strings.CutPrefix(rest, path+": "); ok {
			msg = cause
		}
	}
	// Another file's error of the same reason (a manifest, a --text file):
	// "m.jsonl: unreadable: open m.jsonl: …" is "m.jsonl: …".
	if other, rest, ok := strings.Cut(msg, ": "+reason); ok && reason != "" && !strings.Contains(other, ": ") &&
		(rest == "" || strings.HasPrefix(rest, ": ")) {
		if d := Detail(strings.TrimPrefix(rest, ": "), other, reason); d != "" {
			return other + ": " + d
		}
		return other
	}
	return strings.TrimSpace(oneLine(msg))
}

// sentinels are the errors whose text a reason code says again.
var sentinels = map[string]error{ReasonEmpty: ErrEmpty, ReasonBinary: ErrBinary, ReasonInvalidUTF8: ErrInvalidUTF8,
	ReasonUnsupported: ErrUnsupported, ReasonTooLarge: ErrTooLarge, ReasonTooComplex: ErrTooComplex}

// oneLine replaces line breaks, which a path or an OS error may hold: batch
// reports print one failure a line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}
