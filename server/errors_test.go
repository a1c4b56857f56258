package server

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/evidence-rag/evidence/store"
)

// TestStoreError: an unavailable database is a 503 the client may retry,
// never a 500 or a not-found; a failed check keeps its reason; anything
// else is an internal error with no detail.
func TestStoreError(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		code   string
	}{
		{fmt.Errorf("resolve: %w: db: no pooled connection free after 10s", store.ErrUnavailable), http.StatusServiceUnavailable, "unavailable"},
		{errors.New("boom"), http.StatusInternalServerError, "internal"},
	} {
		he := storeError(tc.err)
		if he.status != tc.status || he.code != tc.code || he.reason != "" {
			t.Errorf("%v: %d %s %q, want %d %s", tc.err, he.status, he.code, he.reason, tc.status, tc.code)
		}
	}
}
