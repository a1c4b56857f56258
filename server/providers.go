package server

import (
	"errors"
	"net/http"

	"github.com/evidence-rag/evidence/verify"
	"github.com/evidence-rag/evidence/verify/providers"
)

// providerRequest converts the body of POST /v1/verify?from=FORMAT, an
// envelope with a provider's cited answer and its map, into the
// verifier's request, for the principal the caller may act for.
func (s *Server) providerRequest(from string, b []byte, c *caller) (*verify.Request, error) {
	f, err := providers.ParseFormat(from)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	env, err := providers.DecodeEnvelope(b)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	if env.Principal, err = c.bodyPrincipal(env.Principal); err != nil {
		return nil, errorf(http.StatusForbidden, "forbidden", "%v", err)
	}
	req, err := env.Request(s.db, f)
	if errors.Is(err, providers.ErrInput) {
		return nil, errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	return req, err
}
