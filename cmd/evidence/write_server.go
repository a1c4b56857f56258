package main

import (
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evidence-rag/evidence/server"

	"github.com/spf13/pflag"

	"github.com/evidence-rag/evidence/ingest"
)

// serverSettings are ingest's flags that a running server decides with its
// own: refused beside --server rather than silently ignored.
var serverSettings = []string{"workers", "max-bytes", "pdf-timeout", "pdf-memory", "pdf-max-pages", "pdf-max-text"}

// ingestThroughServer is `ingest --server`: the files are planned by the
// local rules (walks, ids relative to --base, --id) and each is uploaded
// with POST /v1/documents, an import with its manifest and text parts;
// the summary and exit code are the local command's.
func ingestThroughServer(o *options, f *pflag.FlagSet, serverURL string, args []string, opts ingest.Options, maxQuar string) error {
	for _, name := range serverSettings {
		if f.Changed(name) {
			return usagef("--%s is the server's own setting: not with --server", name)
		}
	}
	if opts.Chunks == "" {
		for _, name := range []string{"repair", "offsets", "max-quarantined", "chunks-format"} {
			if f.Changed(name) {
				return usagef("--%s reads an imported manifest: it needs --chunks", name)
			}
		}
	}
	sc, err := writeClient(serverURL)
	if err != nil {
		return err
	}
	start := time.Now()
	files, results, err := ingest.Plan(args, opts)
	if errors.Is(err, ingest.ErrOptions) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	fields := url.Values{}
	if f.Changed("acl") {
		fields.Set("acl", strings.Join(opts.ACL, ","))
	}
	if opts.Chunk.Size > 0 {
		fields.Set("chunk_size", strconv.Itoa(opts.Chunk.Size))
		fields.Set("overlap", strconv.Itoa(opts.Chunk.Overlap))
	}
	setBool := func(name string, v bool) {
		if v {
			fields.Set(name, "true")
		}
	}
	setBool("undelete", opts.Undelete)
	setBool("dry_run", opts.DryRun)
	setBool("repair", opts.Repair)
	if opts.Chunks != "" {
		fields.Set("chunks_format", opts.ChunksFormat)
		fields.Set("offsets", opts.Offsets)
		if f.Changed("max-quarantined") {
			fields.Set("max_quarantined", maxQuar)
		}
	}
	sum := &ingest.Summary{DryRun: opts.DryRun, Results: results}
	for _, file := range files {
		ff := url.Values{}
		for k, v := range fields {
			ff[k] = v
		}
		ff.Set("id", file.DocumentID)
		ff.Set("filename", filepath.Base(file.Path))
		if file.URL != "" {
			ff.Set("url", file.URL)
		}
		r, err := sc.upload(file.Path, ff, opts.Chunks, opts.TextFile)
		if r == nil {
			if r = failedUpload(file, err); r == nil {
				return err
			}
		}
		r.Path = file.Path
		sum.Results = append(sum.Results, r)
	}
	sum.Tally()
	o.writeServer = sc.base.String()
	return finishBatch(o, sum, nil, start, "file")
}

// failedUpload is the failed result of a file the server refused as a
// file (too large, of an unsupported type) or that could not be read here;
// nil for any other error, which ends the batch as local store errors do.
func failedUpload(file ingest.Planned, err error) *ingest.Result {
	r := &ingest.Result{Path: file.Path, DocumentID: file.DocumentID, Status: ingest.Failed, Error: err.Error()}
	var ae *answerErr
	switch {
	case errors.As(err, &ae) && ae.status == http.StatusRequestEntityTooLarge:
		r.Reason = ingest.ReasonTooLarge
	case errors.As(err, &ae) && ae.status == http.StatusUnsupportedMediaType:
		r.Reason = ingest.ReasonUnsupported
	case errors.Is(err, errLocalFile):
		r.Reason = ingest.ReasonUnreadable
	default:
		return nil
	}
	return r
}

// rebuildThroughServer is `rebuild --server`: each document (every one the
// token may read when none is named) is rebuilt with POST
// /v1/documents/{id}/rebuild; the summary and exit code are the local
// command's.
func rebuildThroughServer(o *options, f *pflag.FlagSet, serverURL string, ids []string, opts ingest.RebuildOptions) error {
	if opts.Chunks != "" {
		return usagef("rebuild --chunks reads a manifest the server cannot see: with --server, import it with ingest --server SOURCE --chunks MANIFEST")
	}
	for _, name := range []string{"repair", "offsets", "max-quarantined", "chunks-format"} {
		if f.Changed(name) {
			return usagef("--%s reads an imported manifest: it needs --chunks", name)
		}
	}
	sc, err := writeClient(serverURL)
	if err != nil {
		return err
	}
	start := time.Now()
	if len(ids) == 0 {
		if ids, err = sc.documentIDs(); err != nil {
			return err
		}
	}
	req := server.RebuildRequest{ChunkSize: &opts.Chunk.Size, Overlap: &opts.Chunk.Overlap, DryRun: opts.DryRun}
	sum := &ingest.Summary{DryRun: opts.DryRun}
	for _, id := range ids {
		r, err := sc.rebuild(id, req)
		var ae *answerErr
		if errors.As(err, &ae) && ae.status == http.StatusNotFound {
			r, err = &ingest.Result{Path: id, DocumentID: id, Status: ingest.Failed, Reason: ingest.ReasonNotFound, Error: err.Error()}, nil
		}
		if err != nil {
			return err
		}
		sum.Results = append(sum.Results, r)
	}
	sum.Tally()
	o.writeServer = sc.base.String()
	return finishBatch(o, sum, nil, start, "document")
}
