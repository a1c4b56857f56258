// Package resolve turns chunk ids and code-point ranges into the exact
// stored span of an immutable version, with its status and an access
// decision, and validates chunk coordinates against canonical text (the
// check every chunk passes at ingest, and that audit repeats).
//
// Invariants: every span served is canonical_text[start:end] of the stored
// version, and its BLAKE3 is checked against the chunk record on every
// resolve; a mismatch is an error, never served. A principal outside a
// document's access list gets status forbidden and no text, page or section.
// Quarantined and deleted chunks are never served as evidence.
//
// Resolve reads only what ingest stored: it never re-extracts or re-chunks.
package resolve
