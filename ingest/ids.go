package ingest

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// ReasonOutsideBase is the failure of a file that lies outside
// Options.Base and has no document stored for it: its id cannot be derived.
const ReasonOutsideBase = "outside_base"

// ErrOutsideBase is returned (wrapped) for a file outside Options.Base.
var ErrOutsideBase = errors.New("ingest: outside the base directory")

// Document ids from paths (one file, one document id): with Options.Base
// set, a file's id is its path relative to the base, slash-separated,
// whatever argument named it, so `ingest docs` and `ingest docs/md/a.md`
// give docs/md/a.md both. Builds before the base derived it relative to the
// directory argument (md/a.md), or took a file argument's base name (a.md);
// a store of theirs keeps its ids: when no document is stored under the
// base-relative id but one is under such an older id (a trailing part of
// the path) and its newest version came from this very file, the file keeps
// that id. A file outside the base without such a document fails with
// ReasonOutsideBase.

// assignIDs gives each source its id relative to base; legacy ids are the
// ones collect derived the old way. It returns the sources to ingest and
// the failures.
func assignIDs(db Store, sources []source, base string) ([]source, []*Result, error) {
	root, err := filepath.Abs(base)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: base %s: %v", ErrOptions, base, err)
	}
	var failed []*Result
	kept := sources[:0]
	view := func(fn func(*store.Tx) error) error {
		if db == nil { // Plan: no store to find older ids in
			return fn(nil)
		}
		return db.View(fn)
	}
	err = view(func(tx *store.Tx) error {
		if tx != nil {
			prefetchIDs(tx, root, sources)
		}
		for _, s := range sources {
			abs, err := filepath.Abs(s.path)
			if err != nil {
				return err
			}
			id, inside := relativeID(root, abs)
			if tx != nil && (!inside || !documentExists(tx, id)) {
				if old := storedUnder(tx, abs, s.path); old != "" {
					s.id = old
					kept = append(kept, s)
					continue
				}
			}
			if !inside {
				failed = append(failed, &Result{Path: s.path, Status: Failed, Reason: ReasonOutsideBase,
					Error: fmt.Sprintf("%v %s: ids are paths relative to the base; give a base that holds it, or the file's id", ErrOutsideBase, root)})
				continue
			}
			s.id = id
			kept = append(kept, s)
		}
		return nil
	})
	return kept, failed, err
}

// prefetchIDs reads ahead, in two round trips on a database server, the
// documents assignIDs may look up — each source's id and the ids
// storedUnder tries — and the newest version of each stored one, instead
// of one round trip a lookup.
func prefetchIDs(tx *store.Tx, root string, sources []source) {
	var ids []string
	for _, s := range sources {
		abs, err := filepath.Abs(s.path)
		if err != nil {
			continue // the loop reports it
		}
		if id, inside := relativeID(root, abs); inside {
			ids = append(ids, id)
		}
		parts := strings.Split(strings.TrimPrefix(filepath.ToSlash(abs), "/"), "/")
		for i := range parts {
			ids = append(ids, strings.Join(parts[i:], "/"))
		}
	}
	tx.PrefetchDocuments(ids)
	var versions []string
	for _, id := range ids {
		if doc, err := tx.Document(id); err == nil && len(doc.Versions) > 0 {
			versions = append(versions, doc.Versions[len(doc.Versions)-1])
		}
	}
	tx.PrefetchVersions(versions)
}

// relativeID returns the slash-separated path of abs relative to root and
// whether abs lies inside root.
func relativeID(root, abs string) (string, bool) {
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return "", false
	}
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

func documentExists(tx *store.Tx, id string) bool {
	_, err := tx.Document(id)
	return err == nil
}

// storedUnder returns the id of a document an older build stored this file
// under: a trailing part of its path (the longest first) whose newest
// version, tombstones included, came from the file (its file: URL, or the
// same path as given). "" when there is none.
func storedUnder(tx *store.Tx, abs, given string) string {
	fileURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	given = path.Clean(filepath.ToSlash(given))
	parts := strings.Split(strings.TrimPrefix(filepath.ToSlash(abs), "/"), "/")
	for i := range parts {
		id := strings.Join(parts[i:], "/")
		doc, err := tx.Document(id)
		if err != nil || len(doc.Versions) == 0 {
			continue
		}
		v, err := tx.Version(doc.Versions[len(doc.Versions)-1])
		if err != nil {
			continue
		}
		if v.SourceURL == fileURL || (v.SourcePath != "" && path.Clean(filepath.ToSlash(v.SourcePath)) == given) {
			return id
		}
	}
	return ""
}
