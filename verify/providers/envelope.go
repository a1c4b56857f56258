package providers

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/evidence-rag/evidence/verify"
)

// Envelope is the body of POST /v1/verify?from=FORMAT: the provider's
// response as it came, the map, and what the application knows of the
// request.
type Envelope struct {
	Response   json.RawMessage `json:"response"`
	Map        json.RawMessage `json:"map"`
	OffsetUnit Unit            `json:"offset_unit,omitempty"`
	RequestID  string          `json:"request_id,omitempty"`
	Principal  string          `json:"principal,omitempty"`
	// Metadata is the caller's own object, as on a verification request:
	// kept in the trace and echoed in the report.
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// DecodeEnvelope reads an envelope strictly: unknown fields are refused,
// response and map are required.
func DecodeEnvelope(b []byte) (*Envelope, error) {
	if len(b) > verify.MaxRequestBytes {
		return nil, &InputError{Reason: fmt.Sprintf("larger than %d bytes", verify.MaxRequestBytes)}
	}
	var e Envelope
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return nil, &InputError{Reason: fmt.Sprintf("want {response, map, offset_unit, request_id, principal, metadata}: %v", err)}
	}
	if d.More() {
		return nil, &InputError{Reason: "data after the request object"}
	}
	switch {
	case len(e.Response) == 0 || string(e.Response) == "null":
		return nil, &InputError{Item: "response", Reason: "missing: want the provider's response object"}
	case len(e.Map) == 0 || string(e.Map) == "null":
		return nil, &InputError{Item: "map", Reason: "missing: want an object of the provider's keys to documents or chunks"}
	}
	if _, err := ParseUnit(string(e.OffsetUnit)); err != nil {
		return nil, err
	}
	if err := verify.CheckMetadata(e.Metadata); err != nil {
		return nil, &InputError{Item: "metadata", Reason: err.Error()}
	}
	return &e, nil
}

// Request parses the response as format f and converts it (Parse, then
// Convert) for the envelope's principal and request id.
func (e *Envelope) Request(db Viewer, f Format) (*verify.Request, error) {
	m, err := ParseMap(e.Map)
	if err != nil {
		return nil, err
	}
	a, err := Parse(f, e.Response, e.OffsetUnit)
	if err != nil {
		return nil, err
	}
	req, err := Convert(db, a, m, Options{RequestID: e.RequestID, Principal: e.Principal})
	if err != nil {
		return nil, err
	}
	req.Metadata = e.Metadata
	return req, nil
}
