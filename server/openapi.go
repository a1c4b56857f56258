package server

import (
	_ "embed"
	"net/http"
	"strconv"
)

// openAPIJSON is the service's OpenAPI description. It is a copy of
// docs/openapi.json, which a test keeps equal, because go:embed cannot
// reach outside this package's directory.
//
//go:embed openapi.json
var openAPIJSON []byte

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request, c *caller) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(openAPIJSON)))
	_, err := w.Write(openAPIJSON)
	return err
}
