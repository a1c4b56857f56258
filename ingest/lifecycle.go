package ingest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// Version lifecycle rules that a batch ingest applies before it extracts
// anything:
//
//   - Remembered settings: without explicit chunk settings (ChunkOptions
//     Size <= 0) and without a manifest, a document is cut as its current
//     version was (a rebuild's --chunk-size, read back from its pipeline
//     fingerprint), so a plain re-ingest of unchanged bytes is unchanged
//     against it and never undoes a rebuild. A current version made from
//     imported chunks, or from an external text, is kept as it is while the
//     bytes are unchanged (the manifest cannot be read again); changed
//     bytes are then cut with DefaultChunkOptions.
//   - Deleted stays deleted: a file whose document was deleted, whose
//     version is a tombstone, or whose bytes only a deleted version held
//     (store.DeletedReason), or a new document whose bytes are those of a
//     deleted version of another document (ReasonSourceDeleted), is skipped
//     with status Deleted unless Options.Undelete.
//   - A version stored already is never extracted again: it is unchanged,
//     or its metadata (access list, a named URL) is updated, or it is made
//     current again, by a store.NewVersion with Stored set.

// ReasonSourceDeleted is why a new document is skipped whose source bytes
// are those of a deleted version of another document.
const ReasonSourceDeleted = "source_deleted"

// chunkSettings reads the chunk settings back from a fingerprint that
// recipe.fingerprint made for our own chunker; ok is false for imported
// chunks or a fingerprint of another form.
func chunkSettings(fp string) (ChunkOptions, bool) {
	i := strings.LastIndexByte(fp, ';')
	tail := fp[i+1:]
	if !strings.HasPrefix(tail, "chunk/") {
		return ChunkOptions{}, false
	}
	_, params, ok := strings.Cut(tail, ":")
	if !ok {
		return ChunkOptions{}, false
	}
	var o ChunkOptions
	seen := 0
	for _, kv := range strings.Split(params, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			return ChunkOptions{}, false
		}
		switch k {
		case "size":
			o.Size, seen = n, seen|1
		case "overlap":
			o.Overlap, seen = n, seen|2
		default:
			return ChunkOptions{}, false // a setting this build does not know
		}
	}
	return o, seen == 3 && o.Size > 0
}

// plan is what the store says about one source before extraction.
type plan struct {
	versionID string
	rc        recipe
	stored    *store.Version // the version of that id, when stored and not deleted
	deleted   string         // reason to skip, "" when none
	message   string         // why, for a person
	duplicate []string       // other documents that hold the same source bytes
}

// planSource decides a source's recipe and version id, and what the store
// holds of it, in one read transaction.
func planSource(db Store, s source, sourceHash store.ID, rc recipe, explicit bool, undelete bool) (*plan, error) {
	p := &plan{rc: rc}
	err := db.View(func(tx *store.Tx) error {
		tx.PrefetchPlan(s.id) // one round trip for the reads below, on a database server
		version := func(id string) (*store.Version, error) {
			v, err := tx.Version(id)
			if errors.Is(err, store.ErrNotFound) {
				return nil, nil
			}
			return v, err
		}
		doc, err := tx.Document(s.id)
		if errors.Is(err, store.ErrNotFound) {
			doc, err = nil, nil
		}
		if err != nil {
			return err
		}
		var current *store.Version
		if doc != nil && doc.Current != "" {
			if current, err = version(doc.Current); err != nil {
				return err
			}
		}
		if !explicit {
			p.rc.chunk = DefaultChunkOptions
			if current != nil {
				if cs, ok := chunkSettings(current.Fingerprint); ok {
					p.rc.chunk = cs
				} else if current.SourceHash == sourceHash {
					p.versionID = current.ID // imported, or an external text: kept while the bytes are the same
				}
			}
		}
		if p.versionID == "" {
			p.versionID = store.VersionID(s.id, sourceHash, p.rc.fingerprint())
		}
		others, err := tx.VersionsOfSource(sourceHash)
		if err != nil {
			return err
		}
		if !undelete {
			if p.deleted, err = store.DeletedReason(doc, p.versionID, sourceHash, version); err != nil {
				return err
			}
			switch p.deleted {
			case store.ReasonDocumentDeleted:
				p.message = "document " + s.id + " was deleted"
			case store.ReasonVersionDeleted:
				p.message = "a version of document " + s.id + " with these bytes was deleted"
			}
			if p.deleted == "" && doc == nil {
				for _, v := range others {
					if v.Status == store.StatusDeleted {
						p.deleted, p.message = ReasonSourceDeleted, "these bytes were deleted as document "+v.DocumentID
						break
					}
				}
			}
			if p.deleted != "" {
				return nil
			}
		}
		for _, v := range others {
			if v.DocumentID != s.id && v.Status != store.StatusDeleted && !slices.Contains(p.duplicate, v.DocumentID) {
				p.duplicate = append(p.duplicate, v.DocumentID)
			}
		}
		if v, err := version(p.versionID); err != nil {
			return err
		} else if v != nil && v.Status != store.StatusDeleted {
			p.stored = v
		}
		return nil
	})
	return p, err
}

// duplicateWarning says that a file's bytes are stored under other ids.
func duplicateWarning(ids []string) string {
	return fmt.Sprintf("the same source bytes are stored already as %s: one file, one document id (see --base, or delete the other)",
		strings.Join(quoteAll(ids), ", "))
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// fromStored fills a result's counts from a stored version header.
func (r *Result) fromStored(v *store.Version) {
	r.DocumentVersion, r.MediaType, r.Pages = v.ID, v.MediaType, v.Pages
	r.Chunks, r.Quarantined, r.Repaired = v.Chunks-v.Quarantined, v.Quarantined, v.Repaired
}

// sameMetadata reports whether a stored current version already has the
// access list and (when the caller named one) the URL asked for.
func sameMetadata(v *store.Version, acl []string, url string, urlSet bool) bool {
	return (acl == nil || slices.Equal(v.ACL, acl)) && (!urlSet || v.SourceURL == url)
}
