package main

import (
	"net/url"
	"testing"
)

// parseViewerURL splits a viewer_url into its URL and query.
func parseViewerURL(t *testing.T, raw string) (*url.URL, url.Values) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || raw == "" {
		t.Fatalf("viewer_url %q: %v", raw, err)
	}
	return u, u.Query()
}
