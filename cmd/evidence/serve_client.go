package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/server"

	"github.com/spf13/cobra"

	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
)

// A running `evidence serve` holds the store's write lock, so CLI read
// commands cannot open the store beside it; with --server they ask the
// server instead. The token comes from EVIDENCE_TOKEN, never from a flag
// (flags show in process lists).

// serverFlagHelp is the help of --server. The back-quoted word is the
// placeholder pflag shows: --server URL.
const serverFlagHelp = "ask the running evidence serve at this `URL` (http:// or https://) instead of opening the store (env EVIDENCE_SERVER; token from EVIDENCE_TOKEN)"

func defaultServer() string { return os.Getenv("EVIDENCE_SERVER") }

// serverClient calls a running server's JSON API.
type serverClient struct {
	base  *url.URL
	token string
	http  *http.Client
}

func newServerClient(raw string) (*serverClient, error) {
	u, err := url.Parse(strings.TrimSuffix(raw, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("--server %q: want an http:// or https:// URL", raw)
	}
	return &serverClient{base: u, token: os.Getenv("EVIDENCE_TOKEN"), http: &http.Client{Timeout: 30 * time.Second}}, nil
}

// get fetches path and decodes its JSON body into out when the server
// answered with a resolution (any status); an error body becomes an error.
func (c *serverClient) get(path, principal string, out any) error {
	return c.do(http.MethodGet, path, principal, nil, out)
}

// post sends a JSON body and decodes the answer like get.
func (c *serverClient) post(path, principal string, body []byte, out any) error {
	return c.do(http.MethodPost, path, principal, body, out)
}

func (c *serverClient) do(method, path, principal string, body []byte, out any) error {
	resp, err := c.send(c.http, method, path, principal, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return err
	}
	if err := c.answerError(resp.StatusCode, b); err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("server %s: %d: not a JSON answer: %v", c.base, resp.StatusCode, err)
	}
	return nil
}

// send makes a request with the caller's token and principal.
func (c *serverClient) send(client *http.Client, method, path, principal string, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, c.base.String()+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if principal != "" {
		req.Header.Set(server.PrincipalHeader, principal)
	}
	return client.Do(req)
}

// answerError returns the error an error body holds (not found matching
// store.ErrNotFound, for the exit code), or nil for any other body.
func (c *serverClient) answerError(status int, b []byte) error {
	var e struct {
		Error *struct{ Code, Message string } `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Error == nil {
		return nil
	}
	err := fmt.Errorf("server %s: %d %s: %s", c.base, status, e.Error.Code, e.Error.Message)
	if status == http.StatusNotFound {
		err = fmt.Errorf("%w: %v", store.ErrNotFound, err)
	}
	return err
}

// chunk resolves a chunk id through the server.
func (c *serverClient) chunk(id, principal string) (*resolve.Cited, error) {
	out := &resolve.Cited{Resolution: &resolve.Resolution{}}
	if err := c.get("/v1/chunks/"+url.PathEscape(id), principal, out); err != nil {
		return nil, err
	}
	return out, nil
}

// text reads a code-point range of a version through the server; end < 0
// means the end of the text.
func (c *serverClient) text(version string, start, end int, principal string) (*resolve.Cited, error) {
	path := "/v1/versions/" + url.PathEscape(version) + "/text?start=" + strconv.Itoa(start)
	if end >= 0 {
		path += "&end=" + strconv.Itoa(end)
	}
	out := &resolve.Cited{Resolution: &resolve.Resolution{}}
	if err := c.get(path, principal, out); err != nil {
		return nil, err
	}
	return out, nil
}

// snapshotFlagHelp is the help of --server on the inspection commands.
const snapshotFlagHelp = "inspect a snapshot, taken now, of the store of the running evidence serve at this `URL` (env EVIDENCE_SERVER; token from EVIDENCE_TOKEN: a service token, acting for no user)"

// snapshotFlag gives an inspection command --server: it then reads a
// snapshot of the running server's store.
func snapshotFlag(cmd *cobra.Command, o *options) {
	cmd.Flags().StringVar(&o.snapshotServer, "server", defaultServer(), snapshotFlagHelp)
}

// openSnapshot downloads a consistent copy of a running server's store
// (GET /v1/snapshot) and opens it read-only. The temporary file is removed
// at once: the open store keeps it alive until Close.
func openSnapshot(server string) (*store.DB, error) {
	sc, err := newServerClient(server)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "evidence-snapshot-*.db")
	if err != nil {
		return nil, fmt.Errorf("a temporary file for the snapshot of %s: %w", server, err)
	}
	defer os.Remove(f.Name())
	err = sc.download("/v1/snapshot", f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("saving the snapshot of %s: %w", server, cerr)
	}
	if err != nil {
		return nil, err
	}
	db, err := store.Open(f.Name(), &store.Options{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("the snapshot of %s: %w", server, err)
	}
	return db, nil
}

// download copies a binary answer to w; an error answer becomes an error.
func (c *serverClient) download(path string, w io.Writer) error {
	// A large store takes a while: no overall time limit beyond the
	// server's own write timeout.
	resp, err := c.send(&http.Client{}, http.MethodGet, path, "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if err := c.answerError(resp.StatusCode, b); err != nil {
			return err
		}
		return fmt.Errorf("server %s: %d", c.base, resp.StatusCode)
	}
	n, err := io.Copy(w, resp.Body)
	if err != nil {
		return fmt.Errorf("server %s: snapshot cut short after %d bytes: %w", c.base, n, err)
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return fmt.Errorf("server %s: snapshot of %d bytes, announced %d", c.base, n, resp.ContentLength)
	}
	return nil
}
