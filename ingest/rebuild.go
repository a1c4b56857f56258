package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evidence-rag/evidence/store"
)

// RebuildOptions configure a rebuild.
type RebuildOptions struct {
	Chunk ChunkOptions
	// Chunks and ChunksFormat, Repair: a new import manifest for the one
	// document rebuilt, as for ingest --chunks.
	Chunks       string
	ChunksFormat string
	Repair       bool
	// Offsets and MaxQuarantined read and gate the manifest as for ingest
	// --chunks; DryRun reports what would be stored and writes nothing.
	Offsets        string
	MaxQuarantined *QuarantineLimit
	DryRun         bool
}

// Rebuild makes new versions of documents (all current ones when ids is
// empty) from their stored canonical text, never re-extracting a source:
// cut again with new chunk settings, or with the chunks of a new import
// manifest. Each new version becomes current and the old one stays
// resolvable as superseded, so chunk ids that answers already cite keep
// resolving. The version id is the one an ingest of the same source with
// the same settings would give, so a rebuild back to earlier settings
// restores that version. Failures are per document; err is set only when
// the rebuild could not run.
func Rebuild(ctx context.Context, db Store, ids []string, opts RebuildOptions) (*Summary, error) {
	if opts.Chunk.Size <= 0 {
		opts.Chunk = DefaultChunkOptions
	}
	if opts.Chunk.Overlap < 0 || opts.Chunk.Overlap >= opts.Chunk.Size {
		return nil, fmt.Errorf("%w: overlap %d must be at least 0 and less than the chunk size %d", ErrOptions, opts.Chunk.Overlap, opts.Chunk.Size)
	}
	if err := checkImportOptions(opts.Chunks != "", opts.Offsets, opts.MaxQuarantined); err != nil {
		return nil, err
	}
	if opts.Chunks != "" && len(ids) != 1 {
		return nil, fmt.Errorf("%w: --chunks rebuilds one document, but %d were named", ErrOptions, len(ids))
	}
	if len(ids) == 0 {
		err := db.View(func(tx *store.Tx) error {
			return tx.ForEachDocument(func(d *store.Document) error {
				if d.Current != "" {
					ids = append(ids, d.ID)
				}
				return nil
			})
		})
		if err != nil {
			return nil, err
		}
	}
	var imp *importInput
	if opts.Chunks != "" {
		var err error
		if imp, err = readImport("", Options{Chunks: opts.Chunks, ChunksFormat: opts.ChunksFormat, Offsets: opts.Offsets}); err != nil {
			return nil, err
		}
	}
	sum := &Summary{DryRun: opts.DryRun}
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r := &Result{Path: id, DocumentID: id}
		if imp != nil {
			r.ChunksFormat = imp.format
		}
		nv, conv, err := rebuildOne(db, id, opts, imp)
		switch {
		case errors.Is(err, store.ErrNotFound):
			r.Status, r.Reason, r.Error = Failed, ReasonNotFound, "no document of this id in the store"
		case err != nil:
			r.Status, r.Reason, r.Error = Failed, ReasonStore, err.Error()
		case nv == nil:
			r.Status = Unchanged
			currentCounts(db, r)
		default:
			r.count(nv)
			if conv != nil && r.gateImport(db, nv, *conv, opts.MaxQuarantined, textStored, opts.Repair) {
				break // held back: the current version stays
			}
			if opts.DryRun {
				predict(db, r, nv)
				break
			}
			if err := put(db, []*store.NewVersion{nv}, []*Result{r}); err != nil {
				r.Error = err.Error()
			}
		}
		sum.Results = append(sum.Results, r)
	}
	sum.total()
	return sum, nil
}

// rebuildOne reads a document's current version and builds its
// replacement; nil when the settings give the current version again.
func rebuildOne(db Store, id string, opts RebuildOptions, imp *importInput) (*store.NewVersion, *Convention, error) {
	var (
		old *store.Version
		ex  *Extracted
	)
	err := db.View(func(tx *store.Tx) error {
		doc, err := tx.Document(id)
		if err != nil {
			return err
		}
		if doc.Current == "" {
			return fmt.Errorf("ingest: %s has no current version to rebuild", id)
		}
		if old, err = tx.Version(doc.Current); err != nil {
			return err
		}
		txt, err := tx.Text(old)
		if err != nil {
			return err
		}
		if err := store.VerifyText(old, txt); err != nil {
			return err
		}
		l, err := tx.Layout(old)
		if err != nil {
			return err
		}
		// Copy out: the text and layout point into the mapped file.
		ex = &Extracted{Text: string(bytes.Clone(txt.Bytes())), Layout: cloneLayout(l), MediaType: old.MediaType, Extractor: old.Extractor}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	rc := recipe{extractor: old.Extractor, chunk: opts.Chunk, imp: imp, repair: opts.Repair}
	versionID := store.VersionID(id, old.SourceHash, rc.fingerprint())
	if versionID == old.ID {
		return nil, nil, nil
	}
	nv, conv := rc.newVersion(id, versionID, ex, nil)
	nv.Version.SourceHash = old.SourceHash
	nv.Version.SourceURL = old.SourceURL
	nv.Version.SourcePath = old.SourcePath
	nv.Version.SourceBytes = old.SourceBytes
	return nv, conv, nil
}

func cloneLayout(l *store.Layout) store.Layout {
	c := store.Layout{PageStarts: slices.Clone(l.PageStarts), PageLabels: slices.Clone(l.PageLabels),
		LowConfidence: slices.Clone(l.LowConfidence), Sections: make([]store.Section, len(l.Sections))}
	for i, s := range l.Sections {
		c.Sections[i] = store.Section{Start: s.Start, End: s.End, Path: slices.Clone(s.Path)}
	}
	return c
}

// currentCounts fills an unchanged rebuild's result from the document's
// current version, which the rebuild would have made again.
func currentCounts(db Store, r *Result) {
	_ = db.View(func(tx *store.Tx) error {
		d, err := tx.Document(r.DocumentID)
		if err != nil || d.Current == "" {
			return err
		}
		v, err := tx.Version(d.Current)
		if err != nil {
			return err
		}
		r.DocumentVersion, r.MediaType, r.Pages, r.SourceBytes = v.ID, v.MediaType, v.Pages, v.SourceBytes
		r.Chunks, r.Quarantined, r.Repaired = v.Chunks-v.Quarantined, v.Quarantined, v.Repaired
		return nil
	})
}
