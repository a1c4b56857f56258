// Package ingest turns source files into immutable document versions: it
// extracts the canonical text of a source once per version, cuts it into
// chunks, validates every chunk's coordinates against that text, and writes
// the version through package store.
//
// Extraction (Extract, ExtractText, ExtractMarkdown, ExtractHTML) yields the
// canonical text and its layout: page starts and section spans. For plain
// text and Markdown the canonical text is the source itself after Normalize,
// with Markdown syntax kept; for HTML it is the visible text. A form feed in
// plain text is a page break.
//
// Run ingests files and directories by path; RunSource ingests one
// document given as bytes (an upload) by the same pipeline, with no
// temporary file: the same bytes under the same id and file extension
// give the same version either way, and the Result names the source by
// its name.
//
// Chunks of other pipelines (ReadManifest, ImportChunks) are validated
// like our own, under one offset convention per manifest, detected among
// those its format allows (Convention). Run and Rebuild hold back an
// import whose quarantined chunks exceed QuarantineLimit (status
// Rejected: nothing stored, the current version stays), and with DryRun
// write nothing at all.
//
// Invariants:
//   - Every offset, in Extracted and in what is stored, counts Unicode code
//     points into the canonical text (not bytes, not UTF-16 units), half-open
//     where it is a range; page numbers start at 1.
//   - Canonical text is valid UTF-8 in NFC, with \n line ends and no control
//     characters other than \n, \t and \f. NormalizeFingerprint and each
//     extractor's name (Extracted.Extractor) are part of the pipeline
//     fingerprint, so a change to either output makes new versions.
//   - Coordinates are computed once, at extraction, and every chunk is
//     checked against the stored text; a chunk that does not resolve is
//     quarantined, never served.
//   - Extraction is bounded for every format: PDFs in a contained worker
//     process, text and HTML in one linear pass, Markdown only when it
//     nests at most MaxMarkdownNesting containers deep (else too_complex).
//   - A batch writes nothing once its context is done (an upload whose
//     client went away is not stored).
//
// Caveats: sources must be UTF-8 (an HTML charset declaration is not
// honoured), and a source that fails extraction is reported as a failed
// ingest with a reason code (see ExtractError), not skipped silently.
// HTML elements hidden by CSS count as visible text.
package ingest
