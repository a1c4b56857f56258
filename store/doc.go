// Package store keeps immutable, content-hashed document versions in a bbolt
// file: canonical text, page map, section spans, chunk records, quarantine
// findings and failed-ingest records.
//
// Invariants:
//   - A version is written in one bbolt transaction: text, layout, chunks and
//     quarantine records are all visible, or none is.
//   - A version's content never changes after it is written. Only its status
//     (current, superseded, deleted) moves. Deleting removes text and chunks
//     and leaves a tombstone, so a deleted version answers "deleted", never
//     "not found".
//   - Chunk records are keyed by (version sequence, ordinal), both big-endian,
//     so a version's chunks are written in key order; content hashes live
//     inside the records, never in keys.
//   - Every offset is a half-open range of Unicode code points into the
//     version's canonical text, and every page number starts at 1.
//   - Every record is sealed (a CRC-32C, record.go and jsonrecord.go),
//     checked on every read, and refused unless it sits under its own key;
//     a mismatch is ErrCorrupt (CorruptReason says which check), never a
//     value.
//
// Caveats: values read inside a View (such as the bytes returned by
// Tx.TextBytes) are only valid for the life of that transaction; copy them
// out before it ends. bbolt trusts its pages: Open checks the top-level
// tree and its inline buckets (which bbolt copies into the Go heap, where
// a damaged offset would crash the garbage collector), but a damaged page
// deeper in a tree can make bbolt return slices past the file's mapping:
// run programs that read stores with GODEBUG=invalidptr=0 (evidence serve
// sets it for itself), so that the collector does not stop the process
// over one. Check walks every page itself and needs no such help. store
// imports nothing of this project.
package store
