package ingest

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Source is one document given as bytes instead of a path, as an upload
// is.
type Source struct {
	// Name is the file name the bytes came under, such as policy.md: its
	// extension picks the extractor, and it stands for the source where a
	// Run names the file (Result.Path, messages, the stored source path).
	// It may not hold a path.
	Name string
	// Bytes are the source. They must not be changed until RunSource
	// returns: the canonical text may share them.
	Bytes []byte
	// Manifest, when not nil, is another pipeline's chunk manifest for the
	// source (JSON Lines), imported as Options.Chunks imports a file's;
	// Text, when not nil beside it, is that pipeline's canonical text, as
	// Options.TextFile. Errors name them "manifest" and "text". With them,
	// Options.Chunks and TextFile must be empty.
	Manifest, Text []byte
}

// importParts are an import's manifest and text given in memory
// (Source.Manifest and Text), read instead of Options.Chunks and TextFile.
type importParts struct{ manifest, text []byte }

// UploadURLPrefix begins the source URL of a version stored by RunSource
// when the caller names none: bytes given in memory have no location a
// reader could open (resolve gives such a version no deep link).
const UploadURLPrefix = "urn:evidence:upload:"

// RunSource ingests one document given as bytes by the pipeline of a Run
// of one file: the same extraction, validation, fingerprint, version id,
// lifecycle rules (docs/versions.md) and Result. Nothing is written to
// disk but the store: no temporary file. The document id is opts.ID, else
// src.Name; the source URL of a new version is opts.URL, else
// opts.DefaultURL, else UploadURLPrefix followed by the escaped id (only
// opts.URL replaces the URL of a version stored already). opts.Base
// derives ids from paths, so it is refused; an import's manifest and text
// come from src.Manifest and src.Text, or from the files opts.Chunks and
// opts.TextFile name. As with Run, nothing is written once ctx is done,
// and then ctx's error is returned.
func RunSource(ctx context.Context, db Store, src Source, opts Options) (*Summary, error) {
	if src.Manifest != nil || src.Text != nil {
		switch {
		case opts.Chunks != "" || opts.TextFile != "":
			return nil, fmt.Errorf("%w: a manifest in memory and one in a file (--chunks, --text): give one", ErrOptions)
		case src.Manifest == nil:
			return nil, fmt.Errorf("%w: --text needs --chunks", ErrOptions)
		}
		opts.parts = &importParts{manifest: src.Manifest, text: src.Text}
	}
	opts, err := checkOptions(opts)
	if err != nil {
		return nil, err
	}
	if n := src.Name; n == "" || n == "." || n == ".." || strings.ContainsAny(n, "/\\\x00") {
		return nil, fmt.Errorf("%w: source name %q: want a file name with its extension (policy.md), not a path", ErrOptions, n)
	}
	if opts.Base != "" {
		return nil, fmt.Errorf("%w: Base derives document ids from paths, and a source in memory has none", ErrOptions)
	}
	if opts.TextFile != "" && opts.Chunks == "" {
		return nil, fmt.Errorf("%w: --text needs --chunks", ErrOptions)
	}
	began := time.Now()
	counted := &countingStore{Store: db}
	var sources []source
	var failed []*Result
	if !Supported(src.Name) && !opts.hasText() { // as collect: with --text, nothing is extracted from the source
		failed = append(failed, &Result{Path: src.Name, Status: Failed, Reason: ReasonUnsupported,
			Error: (&ExtractError{Path: src.Name, Reason: ReasonUnsupported, Err: ErrUnsupported}).Error()})
	} else {
		s := source{path: src.Name, id: src.Name, url: opts.URL, urlSet: opts.URL != "", inMemory: true, data: src.Bytes}
		if opts.ID != "" {
			s.id = opts.ID
		}
		if s.url == "" {
			s.url = opts.DefaultURL
		}
		if s.url == "" {
			s.url = UploadURLPrefix + url.PathEscape(s.id)
		}
		sources = append(sources, s)
	}
	if sum := runSources(ctx, counted, sources, failed, opts, began); sum != nil {
		return sum, nil
	}
	return nil, ctx.Err()
}
