package pdf

import (
	"errors"
	"fmt"
)

// Reason codes carried by *Error. The worker that contains Extract adds
// ReasonTimeout and ReasonMemoryLimit; Extract itself never returns them.
const (
	// ReasonEncrypted: the file needs a password we do not have, uses an
	// encryption scheme the reader does not support, or decrypts to garbage.
	ReasonEncrypted = "encrypted"
	// ReasonMalformed: the file is not a PDF or is damaged beyond repair.
	ReasonMalformed = "malformed"
	// ReasonNoText: the file opened but holds no extractable text (a scan;
	// OCR is out of scope).
	ReasonNoText = "no_text"
	// ReasonTooLarge: a limit of Limits was exceeded.
	ReasonTooLarge = "too_large"
	// ReasonTimeout: reserved for the worker's wall-clock limit.
	ReasonTimeout = "timeout"
	// ReasonMemoryLimit: reserved for the worker's address-space limit.
	ReasonMemoryLimit = "memory_limit"
)

// Sentinel causes, wrapped by *Error so callers may also use errors.Is.
var (
	// ErrNotPDF is returned when no %PDF- header is found in the first 1,024 bytes.
	ErrNotPDF = errors.New("pdf: not a PDF file")
	// ErrPassword is returned when the file is encrypted with a non-empty user password.
	ErrPassword = errors.New("pdf: password required")
	// ErrEncryption is returned when the encryption scheme is unsupported or
	// decryption yields undecodable streams.
	ErrEncryption = errors.New("pdf: unsupported or broken encryption")
	// ErrNoPages is returned when the page tree holds no page.
	ErrNoPages = errors.New("pdf: no pages")
	// ErrNoText is returned when no page yields any text.
	ErrNoText = errors.New("pdf: no text")
	// ErrTooManyPages is returned when the page tree holds more than Limits.MaxPages pages.
	ErrTooManyPages = errors.New("pdf: too many pages")
	// ErrTextTooLarge is returned when the extracted text exceeds Limits.MaxTextBytes.
	ErrTextTooLarge = errors.New("pdf: text too large")
	// ErrStreamTooLarge is returned when a content stream decompresses to more
	// than Limits.MaxStreamBytes (a decompression bomb).
	ErrStreamTooLarge = errors.New("pdf: stream too large")
	// ErrTooManyOps is returned when a page's content streams hold more than
	// Limits.MaxOps operators.
	ErrTooManyOps = errors.New("pdf: too many operators")
)

// Error is the error Extract returns when a document cannot be extracted.
type Error struct {
	Reason string // one of the Reason constants
	Err    error  // the cause
}

// Error returns "pdf: REASON: cause".
func (e *Error) Error() string {
	if e.Err == nil {
		return "pdf: " + e.Reason
	}
	return "pdf: " + e.Reason + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func newError(reason string, err error) *Error { return &Error{Reason: reason, Err: err} }

func errorf(reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// panicError turns a recovered panic value into an error.
func panicError(x any) error {
	if e, ok := x.(error); ok {
		return fmt.Errorf("library panic: %w", e)
	}
	return fmt.Errorf("library panic: %v", x)
}
