package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/verify"
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

// viewerKeyForTest is a fixed key, so a second server can share it.
var viewerKeyForTest = bytes.Repeat([]byte{7}, ViewerKeyBytes)

// linkPath is a viewer_url without the public base, to request from the
// test server.
func linkPath(t *testing.T, raw, base string) string {
	t.Helper()
	if !strings.HasPrefix(raw, base+"/view/") {
		t.Fatalf("viewer_url %q does not start with %s/view/", raw, base)
	}
	return strings.TrimPrefix(raw, base)
}

// TestViewerLinks: a signed viewer link opens in a browser without a
// token and shows exactly what its principal may read; a tampered one
// (signature, principal, expiry, target), an expired one and one signed
// with another key get a page that says so, status 403, and no text.
func TestViewerLinks(t *testing.T) {
	const base = "https://evidence.example/ev"
	e := newTestEnvWith(t, true, func(c *serverConfig) { c.links = NewLinkSigner(viewerKeyForTest, 15*time.Minute, base+"/") })
	var got servedBody
	e.do(request{path: "/v1/chunks/" + e.secret, token: analystToken}).decode(t, &got)
	u, q := parseViewerURL(t, got.ViewerURL)
	if u.Scheme != "https" || u.Host != "evidence.example" || q.Get(linkPrincipal) != "analyst@example.com" {
		t.Fatalf("viewer_url %q: want an absolute link under %s for analyst@example.com", got.ViewerURL, base)
	}
	exp, _ := strconv.ParseInt(q.Get(linkExpires), 10, 64)
	if d := time.Until(time.Unix(exp, 0)); d < 14*time.Minute || d > 15*time.Minute+time.Second {
		t.Errorf("link expires in %s, want the TTL of 15m", d)
	}
	link := linkPath(t, got.ViewerURL, base)
	page := func(r request, status int, want ...string) string {
		t.Helper()
		resp := e.do(r)
		body := string(resp.body)
		if resp.status != status || !strings.HasPrefix(resp.header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: got %d %s, want %d HTML", r.path, resp.status, resp.header.Get("Content-Type"), status)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the page lacks %q:\n%.600s", r.path, w, body)
			}
		}
		return body
	}
	// No Authorization header: the link is the proof, for its principal.
	page(request{path: link}, 200, `<mark id="cited">`, "BLUEHERON")
	// Headers do not change whom it acts for.
	page(request{path: link, token: internToken}, 200, "BLUEHERON")

	refused := func(name, path, why string) {
		t.Helper()
		t.Run(name, func(t *testing.T) {
			body := page(request{path: path}, http.StatusForbidden, why, "Nothing of the document is shown")
			assertNoSecret(t, []byte(body))
			if strings.Contains(body, "<mark") {
				t.Error("a refused link shows a passage")
			}
		})
	}
	sig := q.Get(linkSig)
	flipped := []byte(sig)
	flipped[3] ^= 1
	with := func(key, value string) string {
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set(key, value)
		return "/view/" + e.secret + "?" + qq.Encode()
	}
	refused("tampered signature", with(linkSig, string(flipped)), "does not verify")
	refused("other principal", with(linkPrincipal, "intern@example.com"), "does not verify")
	refused("later expiry", with(linkExpires, strconv.FormatInt(exp+3600, 10)), "does not verify")
	refused("other chunk", "/view/"+e.chunkIDs("expense-policy.md")[0]+"?"+q.Encode(), "does not verify")
	refused("incomplete", "/view/"+e.secret+"?"+linkSig+"="+sig, "incomplete")

	t.Run("expired", func(t *testing.T) {
		e.srv.links.now = func() time.Time { return time.Now().Add(16 * time.Minute) }
		defer func() { e.srv.links.now = time.Now }()
		body := page(request{path: link}, http.StatusForbidden, "expired", time.Unix(exp, 0).UTC().Format(time.RFC3339))
		assertNoSecret(t, []byte(body))
	})
	t.Run("revoked key", func(t *testing.T) {
		// The same store served with another key: links of the old key die.
		other := newServer(e.db, serverConfig{tokens: e.srv.tokens, maxBody: 1 << 20, maxUpload: 1 << 20, errlog: io.Discard,
			links: NewLinkSigner(bytes.Repeat([]byte{8}, ViewerKeyBytes), time.Minute, "")})
		rec := httptest.NewRecorder()
		other.ServeHTTP(rec, httptest.NewRequest("GET", link, nil))
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "signed with a key this server no longer uses") {
			t.Errorf("a link of a revoked key: got %d:\n%.400s", rec.Code, rec.Body.String())
		}
		assertNoSecret(t, rec.Body.Bytes())
		// The same key again (a restart with the same --viewer-key): it opens.
		same := newServer(e.db, serverConfig{tokens: e.srv.tokens, maxBody: 1 << 20, maxUpload: 1 << 20, errlog: io.Discard, links: NewLinkSigner(viewerKeyForTest, time.Minute, "")})
		rec = httptest.NewRecorder()
		same.ServeHTTP(rec, httptest.NewRequest("GET", link, nil))
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), "BLUEHERON") {
			t.Errorf("the same key after a restart: got %d", rec.Code)
		}
	})
	t.Run("principal who may not read", func(t *testing.T) {
		// A link for the intern to the secret chunk (the server never
		// issues one: the intern's resolution is forbidden) shows what the
		// intern may see: nothing.
		forged := e.srv.links.link("/view/"+e.secret, nil, chunkResource(e.secret), "intern@example.com")
		body := page(request{path: linkPath(t, forged, base)}, http.StatusForbidden, "may not read")
		assertNoSecret(t, []byte(body))
		var none servedBody
		e.do(request{path: "/v1/chunks/" + e.secret, token: internToken}).decode(t, &none)
		if none.ViewerURL != "" {
			t.Errorf("a forbidden resolution carries viewer_url %q", none.ViewerURL)
		}
	})

	// A range link binds its range.
	version := strings.Split(e.secret, "-")[0]
	e.do(request{path: "/v1/versions/" + version + "/text?start=2&end=15", token: analystToken}).decode(t, &got)
	rangeLink := linkPath(t, got.ViewerURL, base)
	page(request{path: rangeLink}, 200, `<mark id="cited">Board minutes</mark>`)
	refused("other range", strings.Replace(rangeLink, "start=2", "start=0", 1), "does not verify")

	// Verification reports carry links for readable evidence only.
	req := verify.Request{RequestID: "links", Retrieved: []string{e.secret}, Claims: []verify.Claim{{ClaimID: "c", Text: "The merger codename is BLUEHERON.",
		Evidence: []verify.Evidence{{ChunkID: e.secret, Quote: "The merger codename is BLUEHERON"}}}}}
	var rep verify.Report
	e.do(request{method: "POST", path: "/v1/verify", token: analystToken, body: jsonBody(t, req)}).decode(t, &rep)
	ev := rep.Claims[0].Evidence[0]
	if ev.Status != verify.EvidenceOK || ev.ViewerURL == "" {
		t.Fatalf("analyst's evidence: %s viewer_url %q", ev.Status, ev.ViewerURL)
	}
	page(request{path: linkPath(t, ev.ViewerURL, base)}, 200, "BLUEHERON")
	rep = verify.Report{}
	e.do(request{method: "POST", path: "/v1/verify", token: internToken, body: jsonBody(t, req)}).decode(t, &rep)
	if ev := rep.Claims[0].Evidence[0]; ev.Status != verify.EvidenceForbidden || ev.ViewerURL != "" {
		t.Errorf("intern's evidence: %s viewer_url %q, want forbidden without a link", ev.Status, ev.ViewerURL)
	}

	// The secret document came from a local file: the page says so and
	// offers the stored text, by a link signed like the page's.
	body := page(request{path: link}, 200, `id="source-note"`, "a file on the machine that ingested it (secret.md)", `id="download-text"`)
	if strings.Contains(body, "file://") {
		t.Error("the page shows the file:// path")
	}
	m := regexp.MustCompile(`href="([^"]+)" id="download-text"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no download link")
	}
	dl := html.UnescapeString(m[1])
	r := e.do(request{path: dl})
	if r.status != 200 || r.header.Get("Content-Type") != "text/plain; charset=utf-8" || string(r.body) != secretDoc ||
		!strings.Contains(r.header.Get("Content-Disposition"), `attachment; filename=secret.txt`) {
		t.Errorf("download %s: got %d %v %q", dl, r.status, r.header, r.body)
	}
	refused("download of another version", strings.Replace(dl, version, e.chunkIDs("expense-policy.md")[0][:32], 1), "does not verify")
	if r := e.do(request{path: "/view/versions/" + version + "/text", token: internToken}); r.status != 403 || bytes.Contains(r.body, []byte("BLUEHERON")) {
		t.Errorf("download as the intern: got %d", r.status)
	}
}

// TestViewerLinkSupersededPage: on a page opened by a signed link, the
// link to the current version is signed too, for the same principal, and
// expires with the page's.
func TestViewerLinkSupersededPage(t *testing.T) {
	e := newTestEnv(t, true)
	old := e.chunkIDs("expense-policy.md")[0]
	if r := e.do(request{method: "POST", path: "/v1/documents/expense-policy.md/rebuild", token: serviceToken, body: []byte(`{"chunk_size": 400}`)}); r.status != 201 {
		t.Fatalf("rebuild: %d %s", r.status, r.body)
	}
	var got servedBody
	e.do(request{path: "/v1/chunks/" + old, token: internToken}).decode(t, &got)
	_, q := parseViewerURL(t, got.ViewerURL)
	r := e.do(request{path: got.ViewerURL})
	m := regexp.MustCompile(`current version: <a href="([^"]+)"`).FindStringSubmatch(string(r.body))
	if r.status != 200 || m == nil {
		t.Fatalf("superseded page: got %d, no link to the current version:\n%.500s", r.status, r.body)
	}
	cur := html.UnescapeString(m[1])
	u, cq := parseViewerURL(t, cur)
	if !strings.HasPrefix(u.Path, "/view/versions/") || cq.Get(linkPrincipal) != "intern@example.com" || cq.Get(linkExpires) != q.Get(linkExpires) {
		t.Errorf("current-version link %q: want one signed for the intern, expiring with the page", cur)
	}
	if r := e.do(request{path: cur}); r.status != 200 || !strings.Contains(string(r.body), `id="version-status">current<`) {
		t.Errorf("the current version's page: got %d", r.status)
	}
}

// TestLoadViewerKey: LoadViewerKey makes a 0600 file with a random key
// when absent and reads it back; a file without a key is refused, one
// others can read is warned about.
func TestLoadViewerKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "viewer.key")
	key, warning, err := LoadViewerKey(path)
	if err != nil || warning != "" || len(key) != ViewerKeyBytes {
		t.Fatalf("new key: %d bytes, %q, %v", len(key), warning, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v, want mode 0600", fi.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	if !regexp.MustCompile(`^[0-9a-f]{64}\n$`).Match(b) {
		t.Errorf("key file holds %q, want 64 hex digits and a newline", b)
	}
	again, _, err := LoadViewerKey(path)
	if err != nil || !bytes.Equal(again, key) {
		t.Errorf("read back: %x, %v; want %x", again, err, key)
	}
	other, _, _ := LoadViewerKey(filepath.Join(dir, "other.key"))
	if bytes.Equal(other, key) {
		t.Error("two new key files got the same key")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, warning, _ := LoadViewerKey(path); !strings.Contains(warning, "readable by others") {
		t.Errorf("a key others can read: warning %q", warning)
	}
	bad := filepath.Join(dir, "bad.key")
	if err := os.WriteFile(bad, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadViewerKey(bad); err == nil || !strings.Contains(err.Error(), "hex digits") {
		t.Errorf("a file without a key: %v", err)
	}
	s := NewLinkSigner(key, DefaultViewerTTL, "https://evidence.example.com/")
	if s.ttl != DefaultViewerTTL || !strings.HasPrefix(s.ChunkLink("x", ""), "https://evidence.example.com/view/x?") {
		t.Errorf("signer: ttl %s, link %s", s.ttl, s.ChunkLink("x", ""))
	}
}

// TestLinkSignatureLayout: a link's signature is HMAC-SHA256, under the
// viewer key, of its fields each written as "len:field;", and its query is
// what url.Values would encode: links signed by an earlier release with
// the same --viewer-key still open, and the reused hashes of the fast path
// sign what a fresh one does, in any order of calls.
func TestLinkSignatureLayout(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	s := NewLinkSigner(key, time.Minute, "")
	want := func(resource, principal string, expires int64) string {
		h := hmac.New(sha256.New, key)
		for _, f := range []string{"evidence-viewer/1", resource, principal, strconv.FormatInt(expires, 10)} {
			fmt.Fprintf(h, "%d:%s;", len(f), f)
		}
		q := url.Values{linkPrincipal: {principal}, linkExpires: {strconv.FormatInt(expires, 10)},
			linkSig: {base64.RawURLEncoding.EncodeToString(h.Sum(nil))}}
		return "/view/x?" + q.Encode()
	}
	for i, c := range []struct {
		resource, principal string
		expires             int64
	}{
		{"chunk:abc", "alice", 1700000000},
		{"chunk:abc", "", 1},
		{"version:v1", "bob & carol/ü?", 1700000123},
		{strings.Repeat("r", 300), strings.Repeat("p", 300), 99}, // past the stack buffer
		{"chunk:abc", "alice", 1700000000},
	} {
		if got, w := s.signedPath("/view/x", nil, c.resource, c.principal, c.expires), want(c.resource, c.principal, c.expires); got != w {
			t.Errorf("%d: got %s, want %s", i, got, w)
		}
		q, _ := url.ParseQuery(strings.TrimPrefix(s.signedPath("/view/x", nil, c.resource, c.principal, c.expires), "/view/x?"))
		if p, _, err := s.check(c.resource, q); err != nil && !errors.Is(err, errLinkExpired) || err == nil && p != c.principal {
			t.Errorf("%d: check: %q %v", i, p, err)
		}
	}
}
