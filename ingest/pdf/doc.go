// Package pdf extracts the text of PDF documents page by page, with printed
// page labels, the outline and font-size heading candidates, and survives
// the malformed, encrypted and hostile files real collections hold.
//
// Extract takes the file's bytes and a Limits value and streams one Page per
// physical page to a callback; it has no global state and touches no file,
// so a worker process can run it with wall-clock and memory limits and keep
// whatever pages were delivered before a kill.
//
// # How it reads a file
//
// Objects are read through github.com/ledongthuc/pdf's Value API. Around it
// the package does what the library cannot safely do itself:
//
//   - Opening: the %PDF- header may sit anywhere in the first 1,024 bytes;
//     PDF 2.0 headers are patched in a copy. The cross-reference data is read
//     by this package, bounded and cycle-safe (xref.go), checked entry by
//     entry, completed by scanning for "N G obj" where it is damaged
//     (repair.go), and handed to the library as one fresh cross-reference
//     stream appended to a copy of the file.
//   - Rewriting: encrypted files, files without a header and files the
//     library cannot open as they are get a clean rewritten copy
//     (rewrite.go): every object re-serialized, object streams flattened,
//     strings and streams decrypted.
//   - Decryption (crypt.go) with the empty user password, then
//     Limits.Password as user or owner password: RC4 40 to 128 bits,
//     AES-128 and AES-256. A file that needs another password fails with
//     reason encrypted.
//   - Streams are decoded by our own filters (filters.go) with a cap on
//     decompressed bytes; /Length is checked against "endstream".
//   - The page tree is walked by the rules in pages.go, which number pages
//     as viewers do even when kids are shared, cyclic or missing and
//     /Count lies; outline, page-label and name tree walks carry visited
//     sets and caps.
//   - A font missing from the resources or unreadable is replaced by
//     Helvetica with the standard encoding, as pdf.js does; indirect
//     /Filter and /DecodeParms are resolved; "/ToUnicode /Identity-H"
//     means the code is the character.
//   - Content streams are tokenized by our lexer (lex.go), which skips
//     inline images, and interpreted with the full text state (interp.go);
//     fonts are decoded once per document (fonts.go, cmap.go).
//   - Every call into the library runs under recover(): a page the library
//     panics on is reported with Page.Err and empty or partial text.
//
// # Text
//
// Glyphs are placed in device space; layout.go inserts a space where the
// gap after a glyph exceeds 0.15 of the font size (TJ kerning included), a
// line break where the baseline moves and a blank line where it moves by
// more than a line. Content-stream order is kept: there is no column or
// reading-order analysis beyond that, so pages drawn out of order (forms,
// overlays, plots) read in drawing order. Hyphens at line ends are kept.
// Text never contains a form feed; the caller joins pages with "\f".
//
// # Caveats
//
//   - OCR is out of scope: a document whose pages hold no text fails with
//     reason no_text (the pages are still delivered, empty).
//   - CID fonts without a ToUnicode map that rely on a predefined character
//     collection (Adobe-Japan1, -GB1, -CNS1, -Korea1) decode to U+FFFD and
//     their pages are flagged low-confidence (replacement_chars): the
//     CID-to-Unicode tables are not bundled. TrueType fonts whose glyph names
//     are not in the Adobe Glyph List are read through their base encoding.
//   - Right-to-left text is emitted in drawing (visual) order.
//   - Some library failures cannot be caught in-process (a runtime fatal
//     error such as a stack overflow); the worker process contains them.
//     None is known on the shared corpus.
package pdf
