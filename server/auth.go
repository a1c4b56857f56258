package server

import (
	"bufio"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// PrincipalHeader names the end user a service token acts for (and, without
// tokens, the caller's principal).
const PrincipalHeader = "X-Evidence-Principal"

// serviceKeyword in a token file's second column marks a service token.
const serviceKeyword = "service"

// minTokenLen refuses tokens short enough to guess.
const minTokenLen = 16

// tokenEntry is one line of a token file. Tokens are kept as SHA-256
// digests: comparing fixed-length digests hides a token's length, and the
// file's tokens do not sit in memory as they are.
type tokenEntry struct {
	digest    [sha256.Size]byte
	principal string // "" for a service token
	service   bool
}

// Tokens is the bearer tokens the server accepts.
type Tokens struct{ entries []tokenEntry }

func (ts *Tokens) Len() int { return len(ts.entries) }

// LoadTokens reads a token file: one "<token> <principal>" or
// "<token> service" a line; blank lines and lines starting with # are
// skipped. Tokens must be unique and at least minTokenLen bytes.
func LoadTokens(path string) (*Tokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	defer f.Close()
	ts := &Tokens{}
	seen := map[[sha256.Size]byte]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("--tokens %s:%d: want \"<token> <principal>\" or \"<token> service\"", path, n)
		}
		if len(fields[0]) < minTokenLen {
			return nil, fmt.Errorf("--tokens %s:%d: token shorter than %d characters", path, n, minTokenLen)
		}
		e := tokenEntry{digest: sha256.Sum256([]byte(fields[0])), principal: fields[1]}
		if fields[1] == serviceKeyword {
			e.principal, e.service = "", true
		}
		if seen[e.digest] {
			return nil, fmt.Errorf("--tokens %s:%d: token given twice", path, n)
		}
		seen[e.digest] = true
		ts.entries = append(ts.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--tokens %s: %w", path, err)
	}
	if len(ts.entries) == 0 {
		return nil, fmt.Errorf("--tokens %s: no tokens", path)
	}
	return ts, nil
}

// lookup finds the entry of a presented token. It compares the token's
// digest with every entry's in constant time and without an early exit, so
// neither which entry matched nor how much of a token was right shows in
// the time taken.
func (ts *Tokens) lookup(token string) (tokenEntry, bool) {
	d := sha256.Sum256([]byte(token))
	found, idx := 0, 0
	for i := range ts.entries {
		eq := subtle.ConstantTimeCompare(d[:], ts.entries[i].digest[:])
		idx = subtle.ConstantTimeSelect(eq, i, idx)
		found |= eq
	}
	if found != 1 {
		return tokenEntry{}, false
	}
	return ts.entries[idx], true
}

// access is what a route requires of its caller.
type access int

const (
	accessPublic  access = iota // no token (health, OpenAPI description)
	accessToken                 // any valid token (metrics)
	accessRead                  // a principal's or a service's token; access lists apply
	accessService               // a service token (ingest, rebuild)
	accessAdmin                 // an administrator: a service acting for no end user (delete)
	accessViewer                // a signed viewer link, else as accessRead (the viewer)
)

// caller is who a request acts for.
type caller struct {
	principal string // whose access lists apply; "" is anonymous
	service   bool   // a service token, or a server without tokens
	// admin callers see every document, access list and failed ingest: a
	// service acting for no end user, or a server without tokens asked
	// without X-Evidence-Principal.
	admin bool
	// bound is set when the principal was fixed by the token or the
	// header: a request body may not name another.
	bound bool
	// link is set for a viewer request that carries a signed link: the
	// handler checks it and acts for the principal it names, whatever the
	// headers say.
	link bool
}

// httpError is an error answer: status, code and a message that never
// holds stored text.
type httpError struct {
	status  int
	code    string
	message string
	reason  string // of a refused corrupt read: store.CorruptReason
	// shed, for a 503 of the server's limits, is the reason counted in
	// evidence_http_shed_total; the answer carries Retry-After.
	shed string
}

func (e *httpError) Error() string { return e.message }

func errorf(status int, code, format string, args ...any) *httpError {
	return &httpError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// authenticate works out who a request acts for. With an error it may
// still return the caller it found, for the log only.
func (s *Server) authenticate(r *http.Request, need access) (*caller, *httpError) {
	if need == accessPublic {
		return &caller{}, nil
	}
	if need == accessViewer {
		if r.URL.Query().Has(linkSig) {
			return &caller{link: true}, nil
		}
		need = accessRead
	}
	header, named := r.Header.Get(PrincipalHeader), len(r.Header.Values(PrincipalHeader)) > 0
	if len(r.Header.Values(PrincipalHeader)) > 1 {
		return nil, errorf(http.StatusBadRequest, "bad_request", "%s given more than once", PrincipalHeader)
	}
	if s.tokens == nil { // loopback only: trusted like the CLI's --principal
		c := &caller{principal: header, service: true, admin: !named, bound: named}
		if need == accessAdmin && !c.admin {
			return c, errorf(http.StatusForbidden, "forbidden", "only an administrator may do this: a request naming no principal (no %s header)", PrincipalHeader)
		}
		return c, nil
	}
	auth := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(auth, " ")
	if auth == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return nil, errorf(http.StatusUnauthorized, "unauthorized", "a bearer token is required (Authorization: Bearer TOKEN)")
	}
	e, ok := s.tokens.lookup(strings.TrimSpace(token))
	if !ok {
		return nil, errorf(http.StatusUnauthorized, "unauthorized", "invalid token")
	}
	c := &caller{principal: e.principal, service: e.service, bound: true}
	switch {
	case e.service:
		c.principal, c.admin, c.bound = header, !named, named
	case named && header != e.principal:
		return nil, errorf(http.StatusForbidden, "forbidden", "this token acts for its own principal only; %s names another", PrincipalHeader)
	}
	if (need == accessService || need == accessAdmin) && !c.service {
		return c, errorf(http.StatusForbidden, "forbidden", "a service token is required") // c: for the request log
	}
	if need == accessAdmin && !c.admin {
		return c, errorf(http.StatusForbidden, "forbidden", "only an administrator may do this: a service token acting for no end user (no %s header)", PrincipalHeader)
	}
	return c, nil
}

// bodyPrincipal settles the principal of a request that names one in its
// body (verify, batch resolve): a caller bound to a principal may only
// repeat it; an unbound service acts for the principal the body names.
func (c *caller) bodyPrincipal(named string) (string, error) {
	switch {
	case named == "" || named == c.principal:
		return c.principal, nil
	case c.bound:
		return "", errors.New("the request names another principal than the caller acts for")
	}
	return named, nil
}
