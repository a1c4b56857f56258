package providers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// Map ties the provider's names for the documents it was given (a
// document index "0", a file id, a source id, a URI) to stored ones.
type Map map[string]Source

// Source is a stored document, version or chunk that a provider's key
// names.
type Source struct {
	// DocumentID names a stored document; its current version is meant
	// unless DocumentVersion names another. The provider saw the version's
	// canonical text (evidence text VERSION): offsets count into it.
	DocumentID      string `json:"document_id,omitempty"`
	DocumentVersion string `json:"document_version,omitempty"`
	// ChunkID names one chunk instead, when the provider was given that
	// chunk's text (the usual RAG prompt): offsets count into the chunk's
	// text, and a citation without range or quote is that chunk.
	ChunkID string `json:"chunk_id,omitempty"`
}

// MaxMapEntries bounds a map.
const MaxMapEntries = 10000

// ParseMap reads a map strictly: a JSON object of keys to sources, each
// naming a document or a chunk, unknown fields refused.
func ParseMap(b []byte) (Map, error) {
	var m Map
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return nil, &InputError{Item: "map", Reason: fmt.Sprintf("want a JSON object of keys to {document_id, document_version, chunk_id}: %v", err)}
	}
	if d.More() {
		return nil, &InputError{Item: "map", Reason: "data after the map object"}
	}
	if m == nil {
		return nil, &InputError{Item: "map", Reason: "null: want a JSON object of keys to {document_id, document_version, chunk_id}"}
	}
	return m, m.Validate()
}

// Validate checks each entry's form (not that it is stored).
func (m Map) Validate() error {
	if len(m) > MaxMapEntries {
		return &InputError{Item: "map", Reason: fmt.Sprintf("%d entries, at most %d", len(m), MaxMapEntries)}
	}
	for _, k := range m.keys() {
		s := m[k]
		bad := func(format string, args ...any) error {
			return &InputError{Item: fmt.Sprintf("map %q", k), Reason: fmt.Sprintf(format, args...)}
		}
		switch {
		case s.ChunkID == "" && strings.TrimSpace(s.DocumentID) == "":
			return bad("names neither a document_id nor a chunk_id")
		case s.DocumentVersion != "" && !store.ValidVersionID(s.DocumentVersion):
			return bad("document_version %q is not a version id (%d hex digits)", s.DocumentVersion, store.VersionIDLen)
		}
		if s.ChunkID != "" {
			v, _, err := store.ParseChunkID(s.ChunkID)
			if err != nil {
				return bad("chunk_id %q: want <version>-<ordinal>", s.ChunkID)
			}
			if s.DocumentVersion != "" && s.DocumentVersion != v {
				return bad("chunk_id %s is not of document_version %s", s.ChunkID, s.DocumentVersion)
			}
		}
	}
	return nil
}

// keys returns the map's keys in order, for deterministic work and messages.
func (m Map) keys() []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// lookup returns the first of keys the map holds.
func (m Map) lookup(keys []string) (string, bool) {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return k, true
		}
	}
	return "", false
}
