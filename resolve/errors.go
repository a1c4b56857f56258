package resolve

import (
	"errors"
	"fmt"
)

// ErrInvalidRange is returned when a requested code-point range is negative,
// inverted, or past the end of the text.
var ErrInvalidRange = errors.New("resolve: invalid range")

// Reason codes of a failed chunk validation (docs/contract.md#validation-and-quarantine).
const (
	ReasonOutOfRange        = "out_of_range"
	ReasonTextMismatch      = "text_mismatch"
	ReasonPageMismatch      = "page_mismatch"
	ReasonPageLabelMismatch = "page_label_mismatch"
	ReasonSectionMismatch   = "section_mismatch"
	ReasonNotFound          = "not_found"
	ReasonAmbiguous         = "ambiguous"
)

// QuarantineError is the finding for a chunk whose claimed coordinates do
// not resolve in the canonical text: the reason code, what the chunk
// claimed and what the text holds there.
type QuarantineError struct {
	Chunk  string // chunk id, or a description of the chunk
	Reason string // one of the Reason codes
	Want   string // what the chunk claimed
	Got    string // what was found
}

func (e *QuarantineError) Error() string {
	return fmt.Sprintf("resolve: chunk %s: %s: claimed %s, found %s", e.Chunk, e.Reason, e.Want, e.Got)
}
