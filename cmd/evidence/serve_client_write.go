package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evidence-rag/evidence/server"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
)

// The write commands (ingest, rebuild, delete) and the chunks export go
// through a running server with --server, as the read commands do: the
// server is the store's single writer, so nothing needs to stop it.

// writeFlagHelp is the help of --server on the write commands.
const writeFlagHelp = "write through the running evidence serve at this `URL` instead of opening the store (env EVIDENCE_SERVER; token from EVIDENCE_TOKEN: a service token)"

// writeClient is a serverClient for requests that may take as long as the
// server's own write timeout (an upload's ingest): no overall time limit.
func writeClient(server string) (*serverClient, error) {
	sc, err := newServerClient(server)
	if err != nil {
		return nil, err
	}
	sc.http = &http.Client{}
	return sc, nil
}

// sendBody makes a request with a body of its own content type.
func (c *serverClient) sendBody(method, path, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(method, c.base.String()+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return c.http.Do(req)
}

// result reads an answer that carries an ingest result (any status); an
// error body becomes an *answerErr.
func (c *serverClient) result(resp *http.Response) (*ingest.Result, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("server %s: reading the answer: %w", c.base, err)
	}
	if err := c.answerError(resp.StatusCode, b); err != nil {
		return nil, &answerErr{status: resp.StatusCode, err: err}
	}
	var r ingest.Result
	if err := json.Unmarshal(b, &r); err != nil || r.Status == "" {
		return nil, fmt.Errorf("server %s: %d: not an ingest result: %.200s", c.base, resp.StatusCode, b)
	}
	return &r, nil
}

// answerErr is an error answer with its HTTP status.
type answerErr struct {
	status int
	err    error
}

func (e *answerErr) Error() string { return e.err.Error() }
func (e *answerErr) Unwrap() error { return e.err }

// errLocalFile marks a file of an upload that could not be opened here.
var errLocalFile = errors.New("cannot read the local file")

// upload sends one source (and, for an import, its manifest and text) as
// POST /v1/documents, streaming the parts.
func (c *serverClient) upload(source string, fields url.Values, manifest, text string) (*ingest.Result, error) {
	type part struct {
		name string
		file *os.File
	}
	var parts []part
	defer func() {
		for _, p := range parts {
			p.file.Close()
		}
	}()
	for _, p := range []struct{ name, path string }{{"file", source}, {"manifest", manifest}, {"text", text}} {
		if p.path == "" {
			continue
		}
		fh, err := os.Open(p.path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errLocalFile, err)
		}
		parts = append(parts, part{p.name, fh})
	}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := func() error {
			for name, vs := range fields {
				for _, v := range vs {
					if err := mw.WriteField(name, v); err != nil {
						return err
					}
				}
			}
			for _, p := range parts {
				w, err := mw.CreateFormFile(p.name, filepath.Base(p.file.Name()))
				if err != nil {
					return err
				}
				if _, err := io.Copy(w, p.file); err != nil {
					return err
				}
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	resp, err := c.sendBody(http.MethodPost, "/v1/documents", mw.FormDataContentType(), pr)
	pr.Close() // the writer stops if the request ended early
	if err != nil {
		return nil, err
	}
	return c.result(resp)
}

// rebuild asks for POST /v1/documents/{id}/rebuild.
func (c *serverClient) rebuild(id string, req server.RebuildRequest) (*ingest.Result, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.sendBody(http.MethodPost, "/v1/documents/"+url.PathEscape(id)+"/rebuild", "application/json", strings.NewReader(string(b)))
	if err != nil {
		return nil, err
	}
	return c.result(resp)
}

// deleteDocument asks for DELETE /v1/documents/{id}.
func (c *serverClient) deleteDocument(id, version string) ([]string, error) {
	path := "/v1/documents/" + url.PathEscape(id)
	if version != "" {
		path += "?version=" + url.QueryEscape(version)
	}
	var out struct {
		DeletedVersions []string `json:"deleted_versions"`
	}
	if err := c.do(http.MethodDelete, path, "", nil, &out); err != nil {
		return nil, err
	}
	return out.DeletedVersions, nil
}

// documentIDs lists the documents the token may read that have a current
// version (GET /v1/documents).
func (c *serverClient) documentIDs() ([]string, error) {
	var out struct {
		Documents []docSummary `json:"documents"`
	}
	if err := c.get("/v1/documents", "", &out); err != nil {
		return nil, err
	}
	var ids []string
	for _, d := range out.Documents {
		if d.CurrentVersion != "" {
			ids = append(ids, d.DocumentID)
		}
	}
	return ids, nil
}

// chunks pages through GET /v1/documents/{id}/chunks (of version, or the
// current one), calling fn for every record.
func (c *serverClient) chunks(id, version string, fn func(*resolve.ChunkRecord) error) error {
	q := url.Values{"limit": {strconv.Itoa(server.MaxChunkPage)}}
	if version != "" {
		q.Set("version", version)
	}
	for {
		var page struct {
			Chunks     []*resolve.ChunkRecord `json:"chunks"`
			NextCursor string                 `json:"next_cursor"`
		}
		if err := c.get("/v1/documents/"+url.PathEscape(id)+"/chunks?"+q.Encode(), "", &page); err != nil {
			return err
		}
		for _, r := range page.Chunks {
			if err := fn(r); err != nil {
				return err
			}
		}
		if page.NextCursor == "" {
			return nil
		}
		q.Set("cursor", page.NextCursor)
	}
}
