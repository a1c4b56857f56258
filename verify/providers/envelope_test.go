package providers

import (
	"strings"
	"testing"
)

// TestEnvelopeMetadata: an envelope may carry the caller's metadata as a
// verification request does; anything but an object is refused, by name.
func TestEnvelopeMetadata(t *testing.T) {
	e, err := DecodeEnvelope([]byte(`{"response": {}, "map": {"0": {"document_id": "d"}}, "metadata": {"conversation": "c-7"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(e.Metadata) != `{"conversation": "c-7"}` {
		t.Errorf("metadata %s", e.Metadata)
	}
	for _, body := range []string{
		`{"response": {}, "map": {}, "metadata": [1]}`,
		`{"response": {}, "map": {}, "metadata": "x"}`,
	} {
		if _, err := DecodeEnvelope([]byte(body)); err == nil || !strings.Contains(err.Error(), "metadata") {
			t.Errorf("%s: %v, want an error naming metadata", body, err)
		}
	}
	if _, err := DecodeEnvelope([]byte(`{"response": {}, "map": {}, "extra": 1}`)); err == nil {
		t.Error("an unknown field was accepted")
	}
}
