package server

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Viewer links open in a browser, which sends no Authorization header:
// a link the server hands out carries its own proof. It names the
// principal it was issued for and an expiry, and an HMAC-SHA256 over what
// it shows, that principal and the expiry, under a key only the server
// holds. Whoever opens it sees exactly what that principal may see, until
// it expires; a changed character, a later expiry, another principal or
// another key fails the check.

// Query parameters of a signed viewer link.
const (
	linkPrincipal = "principal"
	linkExpires   = "expires" // Unix seconds
	linkSig       = "sig"     // base64url HMAC-SHA256, unpadded
)

// ViewerKeyBytes is the size of a generated viewer key.
const ViewerKeyBytes = 32

// DefaultViewerTTL is how long a viewer link stays valid.
const DefaultViewerTTL = 15 * time.Minute

// Why a signed link was refused.
var (
	errLinkExpired   = errors.New("the link has expired")
	errLinkSignature = errors.New("the link's signature does not verify")
	errLinkMalformed = errors.New("the link is incomplete")
)

// LinkSigner signs and checks viewer links.
type LinkSigner struct {
	key  []byte
	ttl  time.Duration
	base string // public base URL without a trailing slash; "" gives relative links
	now  func() time.Time
	// hashes are HMACs keyed with key, reused: keying one hashes the key
	// twice, which was most of the cost of signing a link.
	hashes sync.Pool
}

func NewLinkSigner(key []byte, ttl time.Duration, base string) *LinkSigner {
	if ttl <= 0 {
		ttl = DefaultViewerTTL
	}
	return &LinkSigner{key: key, ttl: ttl, base: strings.TrimSuffix(base, "/"), now: time.Now}
}

// EphemeralSigner signs with a random key of its own: its links stop
// working when the server stops.
func EphemeralSigner(ttl time.Duration, base string) (*LinkSigner, error) {
	key := make([]byte, ViewerKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	return NewLinkSigner(key, ttl, base), nil
}

// mac is the signature of a resource for a principal until expires. Each
// field is length-prefixed, so no two field lists sign the same bytes.
func (s *LinkSigner) mac(resource, principal string, expires int64) []byte {
	h, _ := s.hashes.Get().(hash.Hash)
	if h == nil {
		h = hmac.New(sha256.New, s.key)
	}
	defer s.hashes.Put(h)
	h.Reset()
	var buf [256]byte
	var exp [20]byte
	b := buf[:0]
	for _, f := range [][]byte{[]byte("evidence-viewer/1"), []byte(resource), []byte(principal), strconv.AppendInt(exp[:0], expires, 10)} {
		b = strconv.AppendInt(b, int64(len(f)), 10)
		b = append(b, ':')
		b = append(b, f...)
		b = append(b, ';')
	}
	h.Write(b)
	return h.Sum(nil)
}

// link returns path with a signature for resource and principal, valid for
// the signer's TTL, absolute when the public base is known.
func (s *LinkSigner) link(path string, q url.Values, resource, principal string) string {
	return s.base + s.signedPath(path, q, resource, principal, s.now().Add(s.ttl).Unix())
}

// signedPath is path with the query of a link signed for resource and
// principal until expires (Unix seconds); the links a signed page holds
// expire with the page's own.
func (s *LinkSigner) signedPath(path string, q url.Values, resource, principal string, expires int64) string {
	if q == nil { // q.Encode's order (keys sorted), without building the map: one a citation of every answer
		var sig [(sha256.Size*8 + 5) / 6]byte // unpadded base64 of the MAC
		base64.RawURLEncoding.Encode(sig[:], s.mac(resource, principal, expires))
		return path + "?" + linkExpires + "=" + strconv.FormatInt(expires, 10) + "&" + linkPrincipal + "=" + url.QueryEscape(principal) + "&" + linkSig + "=" + string(sig[:])
	}
	q.Set(linkPrincipal, principal)
	q.Set(linkExpires, strconv.FormatInt(expires, 10))
	q.Set(linkSig, base64.RawURLEncoding.EncodeToString(s.mac(resource, principal, expires)))
	return path + "?" + q.Encode()
}

// check verifies a signed link's parameters for resource and returns the
// principal it was issued for and its expiry. The signature is compared in
// constant time, and before the expiry, so that an altered expiry reads
// as what it is.
func (s *LinkSigner) check(resource string, q url.Values) (principal string, expires int64, err error) {
	if len(q[linkPrincipal]) != 1 || len(q[linkExpires]) != 1 || len(q[linkSig]) != 1 {
		return "", 0, errLinkMalformed
	}
	principal = q.Get(linkPrincipal)
	expires, err = strconv.ParseInt(q.Get(linkExpires), 10, 64)
	if err != nil {
		return "", 0, errLinkMalformed
	}
	sig, err := base64.RawURLEncoding.DecodeString(q.Get(linkSig))
	if err != nil || !hmac.Equal(sig, s.mac(resource, principal, expires)) {
		return "", 0, errLinkSignature
	}
	if s.now().Unix() >= expires {
		return "", expires, errLinkExpired
	}
	return principal, expires, nil
}

// Signed resources: what a link shows.
func chunkResource(id string) string { return "chunk " + id }
func rangeResource(version string, start, end int) string {
	return fmt.Sprintf("range %s %d %d", version, start, end)
}
func versionResource(version string) string { return "version " + version }
func textResource(version string) string    { return "text " + version }

// LoadViewerKey reads the viewer key of --viewer-key: 64 hex digits (32
// bytes) on one line. A file that does not exist is created, readable by
// its owner only, with a new random key. It returns a warning when the
// file is readable by others: whoever reads the key can forge links.
func LoadViewerKey(path string) (key []byte, warning string, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key = make([]byte, ViewerKeyBytes)
		if _, err := rand.Read(key); err != nil {
			return nil, "", err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, "", fmt.Errorf("--viewer-key: creating %s: %w", path, err)
		}
		_, err = fmt.Fprintln(f, hex.EncodeToString(key))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, "", fmt.Errorf("--viewer-key: writing %s: %w", path, err)
		}
		return key, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("--viewer-key: %w", err)
	}
	s := strings.TrimSpace(string(b))
	key, err = hex.DecodeString(s)
	if err != nil || len(key) < 16 {
		return nil, "", fmt.Errorf("--viewer-key %s: want a key of at least 32 hex digits (16 bytes) on one line; delete the file to have a new 32-byte key made", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		warning = fmt.Sprintf("--viewer-key %s is readable by others (mode %v): whoever reads it can make viewer links for any principal; chmod 600 it", path, fi.Mode().Perm())
	}
	return key, warning, nil
}

// ChunkLink is the signed viewer link of a chunk for principal ("" for
// an administrator), as resolutions carry it in viewer_url: valid for the
// signer's TTL from now, absolute under its base URL when it has one.
func (s *LinkSigner) ChunkLink(chunkID, principal string) string {
	return s.link("/view/"+url.PathEscape(chunkID), nil, chunkResource(chunkID), principal)
}
