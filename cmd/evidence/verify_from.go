package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/providers"
)

// providerFlags are verify's flags for a provider's cited answer
// (docs/verify.md, Provider citation formats).
type providerFlags struct {
	from, mapFile, unit, requestID string
	print                          bool
}

func (pf *providerFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&pf.from, "from", "", "read FILE as a provider's cited answer: `FORMAT` anthropic, openai, cohere or gemini (needs --map)")
	fs.StringVar(&pf.mapFile, "map", "", "with --from: JSON `FILE` tying the provider's document keys (index, file id, source id) to {document_id, document_version} or {chunk_id}")
	fs.StringVar(&pf.unit, "offset-unit", "", "with --from: the `UNIT` of the provider's offsets, code_point, utf16 or byte (default: the format's documented one)")
	fs.StringVar(&pf.requestID, "request-id", "", "with --from: the request `ID` (default: the provider's response id)")
	fs.BoolVar(&pf.print, "print-request", false, "with --from: print the verifier request the answer converts to, and verify nothing")
}

// input reads the provider's response and the map; flags given without
// --from are a usage error.
func (pf *providerFlags) input(in io.Reader, name, principal string, principalSet bool) (*providerInput, error) {
	if pf.from == "" {
		if pf.mapFile != "" || pf.unit != "" || pf.requestID != "" || pf.print {
			return nil, usagef("--map, --offset-unit, --request-id and --print-request go with --from")
		}
		return nil, nil
	}
	f, err := providers.ParseFormat(pf.from)
	if err != nil {
		return nil, usagef("--from %v", strings.TrimPrefix(err.Error(), "from: "))
	}
	u, err := providers.ParseUnit(pf.unit)
	if err != nil {
		return nil, usagef("--offset-unit %v", strings.TrimPrefix(err.Error(), "offset_unit: "))
	}
	if pf.mapFile == "" {
		return nil, usagef("--from %s needs --map FILE: which stored document or chunk each of the provider's documents is", f)
	}
	m, err := os.ReadFile(pf.mapFile)
	if err != nil {
		return nil, usageError{err}
	}
	if _, err := providers.ParseMap(m); err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", pf.mapFile, err)}
	}
	resp, err := io.ReadAll(io.LimitReader(in, verify.MaxRequestBytes+1))
	if err != nil {
		return nil, usageError{err}
	}
	var v any
	if err := json.Unmarshal(resp, &v); err != nil {
		return nil, usagef("%s: %s: malformed JSON: %v", name, f, err)
	}
	p := &providerInput{format: f, env: providers.Envelope{Response: resp, Map: m, OffsetUnit: u, RequestID: pf.requestID}}
	if principalSet {
		p.env.Principal = principal
	}
	return p, nil
}

// providerInput is a provider's answer with what converts it.
type providerInput struct {
	format providers.Format
	env    providers.Envelope
}

// request converts the answer against a store; bad input is a usage error.
func (p *providerInput) request(db providers.Viewer) (*verify.Request, error) {
	req, err := p.env.Request(db, p.format)
	if errors.Is(err, providers.ErrInput) {
		return nil, usageError{err}
	}
	return req, err
}

// serverVerifyFrom asks a running server to convert and verify the answer
// (POST /v1/verify?from=FORMAT with the envelope).
func serverVerifyFrom(server string, p *providerInput, noTrace bool) (*verify.Report, error) {
	sc, err := newServerClient(server)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(p.env)
	if err != nil {
		return nil, err
	}
	path := "/v1/verify?from=" + url.QueryEscape(string(p.format))
	if noTrace {
		path += "&trace=false"
	}
	rep := &verify.Report{}
	if err := sc.post(path, "", body, rep); err != nil {
		if strings.Contains(err.Error(), ": 400 bad_request: ") {
			return nil, usageError{err} // the input, as the server read it
		}
		return nil, err
	}
	return rep, nil
}

// printProviderRequest prints the request an answer converts to.
func printProviderRequest(o *options, p *providerInput) error {
	db, err := o.openStore(true)
	if err != nil {
		return err
	}
	defer db.Close()
	req, err := p.request(db)
	if err != nil {
		return err
	}
	return o.emit(req)
}
