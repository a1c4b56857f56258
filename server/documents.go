package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evidence-rag/evidence/ingest"
	"github.com/evidence-rag/evidence/resolve"
	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/verify"
)

// The document routes a pipeline writes and syncs through: a document's
// chunks a page at a time, imports of another pipeline's chunks, rebuilds.

// Pages of GET /v1/documents/{id}/chunks.
const (
	defaultChunkPage = 100
	MaxChunkPage     = 1000
)

// chunkPage is the answer of GET /v1/documents/{id}/chunks.
type chunkPage struct {
	DocumentID      string                 `json:"document_id"`
	DocumentVersion string                 `json:"document_version"`
	VersionStatus   store.Status           `json:"version_status"`
	Chunks          []*resolve.ChunkRecord `json:"chunks"`
	// NextCursor continues the listing in the same version; absent on the
	// last page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// getDocumentChunks lists the servable chunks of a document's current
// version (or ?version=), at most limit a page, in ordinal order, as
// `evidence chunks` exports them. A document the caller may not read is
// not found, as one that does not exist: listings never reveal it. The
// access list is shown to an administrator only, as in GET /v1/documents.
func (s *Server) getDocumentChunks(w http.ResponseWriter, r *http.Request, c *caller) error {
	id := r.PathValue("id")
	q := r.URL.Query()
	limit, err := intParam(q, "limit", defaultChunkPage)
	if err != nil {
		return err
	}
	if limit < 1 || limit > MaxChunkPage {
		return errorf(http.StatusBadRequest, "bad_request", "limit=%d: want 1 to %d records a page", limit, MaxChunkPage)
	}
	version, from := q.Get("version"), uint32(0)
	if cur := q.Get("cursor"); cur != "" {
		v, o, err := store.ParseChunkID(cur)
		if err != nil || (version != "" && v != version) {
			return errorf(http.StatusBadRequest, "bad_request", "cursor=%q: not a next_cursor of this listing", cur)
		}
		version, from = v, o
	}
	notFound := errorf(http.StatusNotFound, "not_found", "no document %q", id)
	out := chunkPage{DocumentID: id, Chunks: []*resolve.ChunkRecord{}}
	err = s.db.View(func(tx *store.Tx) error {
		doc, err := tx.Document(id)
		if errors.Is(err, store.ErrNotFound) || err == nil && !c.admin && !doc.Allows(c.principal) {
			return notFound
		}
		if err != nil {
			return err
		}
		if version == "" {
			if version = doc.Current; version == "" {
				return errorf(http.StatusGone, "deleted", "document %q has no current version: it was deleted", id)
			}
		}
		v, err := tx.Version(version)
		if errors.Is(err, store.ErrNotFound) || err == nil && v.DocumentID != id {
			return errorf(http.StatusNotFound, "not_found", "no version %q of document %q", version, id)
		}
		if err != nil {
			return err
		}
		if v.Status == store.StatusDeleted {
			return errorf(http.StatusGone, "deleted", "version %s of %q was deleted", version, id)
		}
		out.DocumentVersion, out.VersionStatus = v.ID, v.Status
		next, err := resolve.ExportPage(tx, v, doc, from, limit, func(rec *resolve.ChunkRecord) error {
			if !c.admin {
				rec.ACL = nil // other principals' names are not the caller's business
			}
			out.Chunks = append(out.Chunks, rec)
			return nil
		})
		if next >= 0 {
			out.NextCursor = store.ChunkID(v.ID, uint32(next))
		}
		return err
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}

// RebuildRequest is the body of POST /v1/documents/{id}/rebuild: the chunk
// settings of `evidence rebuild`.
type RebuildRequest struct {
	ChunkSize *int `json:"chunk_size,omitempty"`
	Overlap   *int `json:"overlap,omitempty"`
	DryRun    bool `json:"dry_run,omitempty"`
}

// postRebuild re-chunks a document's current version from its stored text
// (ingest.Rebuild). A service acting for an end user may rebuild only what
// that user may read; others get the 404 of a document that does not exist.
func (s *Server) postRebuild(w http.ResponseWriter, r *http.Request, c *caller) error {
	id := r.PathValue("id")
	b, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	var req RebuildRequest
	if len(strings.TrimSpace(string(b))) > 0 {
		if err := decodeStrict(b, &req); err != nil {
			return err
		}
	}
	opts := ingest.RebuildOptions{Chunk: ingest.DefaultChunkOptions, DryRun: req.DryRun}
	if req.ChunkSize != nil {
		opts.Chunk.Size = *req.ChunkSize
	}
	if opts.Chunk.Size < 1 {
		return errorf(http.StatusBadRequest, "bad_request", "chunk_size %d: want a chunk size of 1 or more code points", opts.Chunk.Size)
	}
	max := ingest.MaxOverlap(opts.Chunk.Size)
	switch {
	case req.Overlap != nil && (*req.Overlap < 0 || *req.Overlap > max):
		return errorf(http.StatusBadRequest, "bad_request", "overlap %d: want 0 to %d code points with chunk_size %d (less than half a chunk)", *req.Overlap, max, opts.Chunk.Size)
	case req.Overlap != nil:
		opts.Chunk.Overlap = *req.Overlap
	case opts.Chunk.Overlap >= opts.Chunk.Size:
		opts.Chunk.Overlap = max // the default overlap fits itself to a small chunk size, as the CLI's
	}
	err = s.db.View(func(tx *store.Tx) error {
		doc, err := tx.Document(id)
		if errors.Is(err, store.ErrNotFound) || err == nil && !c.admin && !doc.Allows(c.principal) {
			return errorf(http.StatusNotFound, "not_found", "no document %q", id)
		}
		if err == nil && doc.Current == "" {
			return errorf(http.StatusGone, "deleted", "document %q has no current version to rebuild: it was deleted", id)
		}
		return err
	})
	if err != nil {
		return err
	}
	sum, err := ingest.Rebuild(r.Context(), s.db, []string{id}, opts)
	if errors.Is(err, ingest.ErrOptions) {
		return errorf(http.StatusBadRequest, "bad_request", "%v", fieldNames.Replace(err.Error()))
	}
	if err != nil {
		return err
	}
	if len(sum.Results) != 1 {
		return fmt.Errorf("rebuild of one document gave %d results", len(sum.Results))
	}
	res := *sum.Results[0]
	status := http.StatusCreated
	switch {
	case res.Status == ingest.Failed:
		status = http.StatusUnprocessableEntity
	case res.Status == ingest.Unchanged || opts.DryRun:
		status = http.StatusOK
	}
	if !opts.DryRun {
		s.metrics.ingested(sum)
		s.metrics.invalidateQuarantine()
	}
	return writeJSON(w, status, uploadResult{Result: res, DryRun: opts.DryRun})
}

// uploadResult is the answer of an upload or a rebuild: ingest's result,
// whether it was a dry run, and the request's metadata echoed.
type uploadResult struct {
	ingest.Result
	DryRun   bool            `json:"dry_run,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// fieldNames turns the CLI's flag names in ingest's messages into the
// upload's field names.
var fieldNames = strings.NewReplacer("--chunks-format", "chunks_format", "--chunks", "manifest", "--text FILE", "a text part", "--text", "text",
	"--offsets", "offsets", "--max-quarantined", "max_quarantined", "--repair", "repair=true", "--id", "id")

// upload holds an upload's parts in memory, the body limit bounding them
// all: the source, and for an import the manifest and the pipeline's own
// canonical text (ingest.RunSource takes all three as bytes: nothing of an
// upload goes to a file but the store).
type upload struct {
	source               []byte
	hasSource            bool
	manifest, text       []byte // nil: no such part
	hasManifest, hasText bool
}

// uploadFields are the multipart fields besides the file parts, with the
// most bytes each may hold.
var uploadFields = map[string]int{
	"id": 4 << 10, "filename": 4 << 10, "url": 4 << 10, "acl": 64 << 10, "chunk_size": 32, "overlap": 32,
	"undelete": 8, "repair": 8, "dry_run": 8, "chunks_format": 32, "offsets": 32, "max_quarantined": 32,
	"metadata": verify.MaxMetadataBytes,
}

// readMultipart reads the "file" part (the source), the "manifest" part
// (JSON Lines chunks of another pipeline) and the "text" part (that
// pipeline's canonical text) into memory, and adds the other fields to
// fields.
func (u *upload) readMultipart(r *http.Request, fields url.Values, limit int64) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return errorf(http.StatusBadRequest, "bad_request", "multipart body: %v", err)
	}
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return uploadError(err, limit)
		}
		name := part.FormName()
		if (name == "file" || name == "manifest" || name == "text") && seen[name] {
			return errorf(http.StatusBadRequest, "bad_request", "multipart part %q given twice", name)
		}
		seen[name] = true
		switch name {
		case "file":
			if fields.Get("filename") == "" && part.FileName() != "" {
				fields.Set("filename", filepath.Base(part.FileName()))
			}
			if u.source, err = io.ReadAll(part); err != nil {
				return uploadError(err, limit)
			}
			u.hasSource = true
		case "manifest":
			if u.manifest, err = io.ReadAll(part); err != nil {
				return uploadError(err, limit)
			}
			u.hasManifest = true
		case "text":
			if u.text, err = io.ReadAll(part); err != nil {
				return uploadError(err, limit)
			}
			u.hasText = true
		default:
			max, ok := uploadFields[name]
			if !ok {
				names := []string{"file", "manifest", "text"}
				for n := range uploadFields {
					names = append(names, n)
				}
				slices.Sort(names[3:])
				return errorf(http.StatusBadRequest, "bad_request", "multipart field %q: want one of %s", name, strings.Join(names, ", "))
			}
			v, err := io.ReadAll(io.LimitReader(part, int64(max)+1))
			if err != nil {
				return uploadError(err, limit)
			}
			if len(v) > max {
				return errorf(http.StatusBadRequest, "bad_request", "multipart field %q: longer than %d bytes", name, max)
			}
			fields.Add(name, string(v))
		}
	}
	if !u.hasSource {
		return errorf(http.StatusBadRequest, "bad_request", `multipart body without a "file" part (the source document)`)
	}
	return nil
}

// importOptions reads the fields of an import (repair, chunks_format,
// offsets, max_quarantined) and dry_run into opts; the parts themselves go
// to ingest in its Source. The fields read a manifest, so without a
// manifest part they are refused rather than ignored.
func (u *upload) importOptions(fields url.Values, opts *ingest.Options) error {
	var err error
	if opts.DryRun, err = boolField(fields, "dry_run"); err != nil {
		return err
	}
	if !u.hasManifest {
		if u.hasText {
			return errorf(http.StatusBadRequest, "bad_request", "a text part goes with a manifest part: it is the canonical text the manifest's offsets count in")
		}
		for _, f := range []string{"repair", "chunks_format", "offsets", "max_quarantined"} {
			if fields.Has(f) {
				return errorf(http.StatusBadRequest, "bad_request", "%s reads an imported manifest: send the chunks as a manifest part", f)
			}
		}
		return nil
	}
	if opts.Repair, err = boolField(fields, "repair"); err != nil {
		return err
	}
	opts.ChunksFormat = ingest.FormatAuto
	if f := fields.Get("chunks_format"); f != "" {
		if !slices.Contains(ingest.ChunksFormats, f) {
			return errorf(http.StatusBadRequest, "bad_request", "chunks_format=%q: want one of %s", f, strings.Join(ingest.ChunksFormats, ", "))
		}
		opts.ChunksFormat = f
	}
	opts.Offsets = ingest.OffsetsAuto
	if o := fields.Get("offsets"); o != "" {
		if !ingest.ValidOffsets(o) {
			return errorf(http.StatusBadRequest, "bad_request", "offsets=%q: want auto, document or page", o)
		}
		opts.Offsets = o
	}
	if fields.Has("max_quarantined") {
		l, err := ingest.ParseQuarantineLimit(fields.Get("max_quarantined"))
		if err != nil {
			return errorf(http.StatusBadRequest, "bad_request", "%s", strings.TrimPrefix(fieldNames.Replace(err.Error()), ingest.ErrOptions.Error()+": "))
		}
		opts.MaxQuarantined = &l
	}
	return nil
}

// boolField reads a true/false field; absent is false.
func boolField(fields url.Values, name string) (bool, error) {
	switch v := fields.Get(name); v {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	default:
		return false, errorf(http.StatusBadRequest, "bad_request", "%s=%q: want true or false", name, v)
	}
}

// metadataField reads an upload's metadata field: a JSON object, echoed.
func metadataField(fields url.Values) (json.RawMessage, error) {
	v := fields.Get("metadata")
	if v == "" {
		return nil, nil
	}
	if len(fields["metadata"]) > 1 {
		return nil, errorf(http.StatusBadRequest, "bad_request", "metadata given more than once")
	}
	if err := verify.CheckMetadata(json.RawMessage(v)); err != nil {
		return nil, errorf(http.StatusBadRequest, "bad_request", "%v", err)
	}
	return json.RawMessage(v), nil
}

// signEvidence gives each evidence item of a report that resolved, and
// that the principal may read, a signed link to its chunk in the viewer.
func (s *Server) signEvidence(rep *verify.Report, principal string) {
	for i := range rep.Claims {
		for j := range rep.Claims[i].Evidence {
			e := &rep.Claims[i].Evidence[j]
			if e.DocumentVersion == "" || e.Status == verify.EvidenceUnresolved || e.Status == verify.EvidenceForbidden {
				continue
			}
			e.ViewerURL = s.links.link("/view/"+url.PathEscape(e.ChunkID), nil, chunkResource(e.ChunkID), principal)
		}
	}
}
