package providers

import (
	"errors"
	"fmt"
)

// ErrInput is returned, wrapped in an *InputError, for a provider file, a
// map or an option that cannot be converted as given.
var ErrInput = errors.New("providers: bad input")

// InputError names the item of the input that is wrong and why. Item is a
// path into the provider's JSON ("content[3].citations[0]"), or into the
// map (`map "0"`).
type InputError struct {
	Format Format // "" for the map and options
	Item   string
	Reason string
}

func (e *InputError) Error() string {
	s := ""
	if e.Format != "" {
		s = string(e.Format) + ": "
	}
	if e.Item != "" {
		s += e.Item + ": "
	}
	return s + e.Reason
}

// Unwrap makes errors.Is(err, ErrInput) hold.
func (e *InputError) Unwrap() error { return ErrInput }

func inputf(f Format, item, format string, args ...any) error {
	return &InputError{Format: f, Item: item, Reason: fmt.Sprintf(format, args...)}
}
