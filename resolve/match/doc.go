// Package match locates a quote in a text, the quote matcher of docs/contract.md#quote-match-levels:
// the verifier checks that a cited quote is in the span a citation points
// at, and chunk import re-anchors drifted chunks with it. It imports nothing
// of this project and knows nothing of the store.
//
// # Levels
//
// Find tries the levels in order and reports the first that matches,
// strongest first:
//
//   - exact: the quote's bytes occur in the text.
//   - whitespace: equal after both sides are folded: runs of Unicode white
//     space (unicode.IsSpace, so also no-break spaces, \f page breaks and
//     line separators) become one space, and soft hyphens (U+00AD) and
//     zero-width characters (U+200B–U+200D, U+2060, U+FEFF) are dropped.
//   - normalized: equal after, in addition, typographic quotes (‘’‚‛“”„‟′″)
//     and dashes (‐‑‒–—―−) become ASCII, NFKC (ligatures ﬁ → fi, full-width
//     forms), full Unicode case folding (ß → ss), and a word hyphenated
//     across a line break is joined ("infor-\nmation" = "information"; a
//     hyphen, non-breaking hyphen or soft hyphen between letters, followed
//     by white space holding a line break).
//   - fuzzy: within a bounded edit distance of the normalized quote, for
//     OCR noise; Match.Distance says how far. A fuzzy span ends on word
//     boundaries (see Guarantees).
//   - none: not found.
//
// At the folded levels spaces at either end of the quote are ignored, and a
// match never covers only part of what one source character folds to (a
// quote "f" does not match half of "ﬁ").
//
// # Units
//
// Match.Start and Match.End are half-open offsets in Unicode code points of
// the original text, the unit of docs/contract.md#units, whatever level found the match:
// each folded text keeps a map from its bytes back to code points of the
// original. An invalid UTF-8 byte counts as one code point, as
// utf8.RuneCount counts it, and folds to U+FFFD. Options.Hint and
// Options.Window are code points too. (JavaScript matchers such as
// approx-string-match count UTF-16 code units, which differ outside the
// Basic Multilingual Plane.) Edit distances count code points of the folded
// texts.
//
// # Guarantees
//
//   - Find never panics, whatever the input, and 0 ≤ Start ≤ End ≤ Len().
//   - An exact span is the quote, byte for byte; a whitespace or normalized
//     span, folded at its level, equals the quote folded at that level; a
//     fuzzy span is the place with the least distance in the region
//     searched, at most the bound, which never exceeds half the quote, and
//     Distance is the edit distance of the span returned.
//   - A fuzzy span does not cut a word on an edit. Where the least-distance
//     place ends inside a word and the quote's rune at that end is not the
//     text's (a quote "… within 14 days" is closest to "… within 14 cale"
//     of "14 calendar days"), the end moves to the word's edge or past the
//     separators to the neighbouring word, whichever leaves fewer edits, if
//     that stays within the bound ("… within 14", five edits); a number is
//     never cut ("1,250" of "1,250,000"), even where its digits match. A
//     quote that holds no separator (one word, an identifier), or whose
//     edge letters match the text (a quoted fragment, "xpense reports"),
//     keeps its place; so does a span no boundary within the bound fits.
//   - Ambiguity is reported, never resolved by guessing: Match.Count counts
//     the places that tie at the winning level and distance after the
//     Prefix/Suffix context has broken what ties it can. Count > 1 means
//     ambiguous. Fuzzy places are distinct when their ends are at least
//     m−d code points apart; exact ones when their starts differ.
//   - With a Hint, each level searches the window around it first and the
//     whole text only if the window has no match at that level; Count then
//     counts within the region that produced the match.
//   - Cost is bounded. The exact and folded levels are linear in the text
//     and quote (sampled search that reads one 8-byte word in up to 64
//     bytes of text, with Knuth–Morris–Pratt taking over on periodic or
//     near-miss input; below 2 KiB of text Locate's exact look asks
//     strings.Index, which is faster there and whose worst case is then
//     bounded by the size). The whitespace level folds a text only when it
//     can hold the quote: in a valid text with no character the level
//     drops, the quote's words must stand in it in order with white space
//     between them, which is checked around each occurrence of the longest
//     word, so a noisy quote costs one folding of a large text, not two.
//     The fuzzy level is Myers' bit-parallel algorithm
//     with 64-bit words and multi-word blocks: O(n·⌈m/64⌉) at worst,
//     usually far less because a lossless filter (exact pieces of the
//     quote, then the quote's first 64 code points) confines it to the
//     regions that can hold a match. Quotes longer than MaxFuzzyLen code
//     points are not searched fuzzily.
//
// # Index
//
// NewIndex prepares a text once for many searches: the whitespace and
// normalized folded forms, with their maps, are built on first need (an
// exact match needs neither) and kept, a little over one byte per byte of
// text for each level in prose (the map is kept as runs of bytes copied one
// for one, with an entry only where folding changes the length: a space
// for a run of white space, a character folded to several bytes). An Index
// is safe for concurrent use; re-anchoring keeps one per document version.
// Find(text, quote, opts) is NewIndex(text).Find(quote, opts). Locate,
// which the verifier calls per cited chunk, folds into buffers pooled from
// one call to the next.
//
// # Caveats
//
// Joining hyphenated words also joins a true compound split at a line end
// ("well-\nknown" folds to "wellknown"); the fuzzy level still finds
// "well-known" one edit away. NFKC folds superscripts and fractions ("10²"
// to "102"), and fuzzy matching excuses a changed digit as one edit: figures
// must be checked exactly on their own (docs/contract.md#figures), which is not this
// package's job.
package match
