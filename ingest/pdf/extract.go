package pdf

import (
	"errors"
	"fmt"
	"strings"

	lpdf "github.com/ledongthuc/pdf"
)

// Limits bound the work Extract does on one document. Zero fields take the
// defaults.
type Limits struct {
	// MaxPages refuses documents with more pages (reason too_large); default 20,000.
	MaxPages int
	// MaxTextBytes stops extraction (reason too_large) once the extracted
	// text, in UTF-8 bytes, exceeds it; default 64 MiB.
	MaxTextBytes int
	// MaxStreamBytes caps the decompressed bytes of one stream; a content
	// stream over it fails its page, a font or form stream over it is
	// ignored. Default 64 MiB.
	MaxStreamBytes int64
	// MaxOps caps the content-stream operators interpreted per page,
	// including those of the forms it draws; default 5,000,000.
	MaxOps int
	// Password, when not empty, is tried as the user and then as the
	// owner password of an encrypted file that the empty user password
	// does not open. (Not a limit; it sits here to keep Extract's
	// signature.)
	Password string
	// keepObjStms reads a file with object streams as it is, without the
	// rewrite that flattens them (open.go): tests hold both readings of a
	// file to the same output.
	keepObjStms bool
}

// Defaults of Limits.
const (
	DefaultMaxPages       = 20000
	DefaultMaxTextBytes   = 64 << 20
	DefaultMaxStreamBytes = 64 << 20
	DefaultMaxOps         = 5_000_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxPages <= 0 {
		l.MaxPages = DefaultMaxPages
	}
	if l.MaxTextBytes <= 0 {
		l.MaxTextBytes = DefaultMaxTextBytes
	}
	if l.MaxStreamBytes <= 0 {
		l.MaxStreamBytes = DefaultMaxStreamBytes
	}
	if l.MaxOps <= 0 {
		l.MaxOps = DefaultMaxOps
	}
	return l
}

// Page is the text of one page.
type Page struct {
	// Number is the physical page number, starting at 1.
	Number int
	// Label is the printed page label from /PageLabels, "" when the
	// document defines none.
	Label string
	// Text is the page text: words separated by spaces, lines by "\n",
	// paragraphs by "\n\n". It never contains "\f". It may hold other
	// control characters a font maps to; the canonical normalization
	// removes them.
	Text string
	// LowConfidence is "" or the quality-gate reason the text is suspect:
	// "replacement_chars", "private_use", "control_chars", "few_letters"
	// or "glued_words".
	LowConfidence string
	// Headings are font-size heading candidates on this page, in order.
	Headings []Heading
	// Err is non-empty when this page failed (a damaged stream, a limit);
	// the page is still reported, with the text extracted before the
	// failure (often none), so numbering never shifts.
	Err string
}

// Heading is a line set clearly larger than the page's body text.
type Heading struct {
	Text string
	// Level is 1 for the largest size on the page, 2 for the next, ...
	Level int
	// Offset is the byte offset of Text in Page.Text.
	Offset int
}

// OutlineEntry is one bookmark.
type OutlineEntry struct {
	Title string
	// Level is the depth in the outline, 1 for top-level entries.
	Level int
	// Page is the 1-based physical page the entry points at, 0 when its
	// destination does not resolve to a page.
	Page int
}

// Doc describes an extracted document.
type Doc struct {
	// Pages is the number of physical pages, as viewers number them: the
	// page objects of the tree, bounded by /Count (see pages.go); /Count
	// alone never adds a page, except to a tree with a cycle or a damaged
	// kid, where the added pages are empty, flagged and last.
	Pages int
	// Outline is the document outline in reading order, nil when none.
	Outline []OutlineEntry
	// Encrypted reports that the file was encrypted (and opened with the
	// empty user password or Limits.Password).
	Encrypted bool
	// Version is the version in the file header, e.g. "1.7" or "2.0".
	Version string
}

// extractor holds one document's state and caches.
type extractor struct {
	doc           *document
	lim           Limits
	res           map[objID]*resources
	fonts         map[resName]*font
	forms         map[objID]*formInfo
	fallback      *font
	formCache     int
	streamsRead   int
	streamsFailed int
}

// Extract parses src and calls page for every page in order, so a caller
// can stream results, then returns the document description. An error from
// page stops extraction and is returned as is. Other errors are *Error.
// With reason no_text, the returned *Doc is also set (all pages were
// delivered, none had text).
func Extract(src []byte, lim Limits, page func(Page) error) (doc *Doc, err error) {
	lim = lim.withDefaults()
	// First the file as it is (with a fresh cross-reference stream); if
	// the library cannot open it or find its pages, our rewritten copy.
	var d *document
	var root lpdf.Value
	var pages []pageRef
	for _, rewriteAll := range []bool{false, true} {
		d, err = openDocSafe(src, lim, rewriteAll)
		if err == nil {
			var werr error
			if perr := protect(func() {
				root = d.r.Trailer().Key("Root")
				nobj := 0 // objects in use: a true /Count cannot exceed it
				for _, e := range d.table.entries {
					if e.typ != 0 {
						nobj++
					}
				}
				pages, werr = walkPages(root, lim.MaxPages, nobj)
				if len(pages) == 0 && werr == nil {
					// The rewrite's tree of all page objects.
					if fb := d.r.Trailer().Key(fallbackRootKey); fb.Kind() == lpdf.Dict {
						pages, werr = walkPages(fb, lim.MaxPages, nobj)
					}
				}
			}); perr != nil {
				err = newError(ReasonMalformed, perr)
			} else if werr != nil {
				err = werr
			} else if len(pages) == 0 {
				err = newError(ReasonMalformed, ErrNoPages)
			}
		}
		var e *Error
		if err == nil || (errors.As(err, &e) && e.Reason != ReasonMalformed) || (d != nil && d.repaired && rewriteAll) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if len(pages) > lim.MaxPages {
		return nil, newError(ReasonTooLarge, fmt.Errorf("%w: more than %d", ErrTooManyPages, lim.MaxPages))
	}
	x := &extractor{doc: d, lim: lim, res: map[objID]*resources{}, fonts: map[resName]*font{}, forms: map[objID]*formInfo{}}
	out := &Doc{Pages: len(pages), Encrypted: d.encrypted, Version: d.version}

	var labels []string
	_ = protect(func() { labels = x.pageLabels(root, len(pages)) })
	_ = protect(func() { out.Outline = x.readOutline(root, pages) })

	total := 0
	withText := 0
	for i, pr := range pages {
		p := x.page(pr, i+1)
		if i < len(labels) {
			p.Label = labels[i]
		}
		total += len(p.Text)
		if total > lim.MaxTextBytes {
			return nil, newError(ReasonTooLarge, fmt.Errorf("%w: over %d bytes", ErrTextTooLarge, lim.MaxTextBytes))
		}
		if strings.TrimSpace(p.Text) != "" {
			withText++
		}
		// Encrypted files the library "opens" with a wrong key decode no
		// stream at all: report encryption, not an empty document.
		if d.encrypted && withText == 0 && x.streamsRead >= 8 && x.streamsFailed == x.streamsRead {
			return nil, newError(ReasonEncrypted, fmt.Errorf("%w: no stream decrypts", ErrEncryption))
		}
		if err := page(p); err != nil {
			return nil, err
		}
	}
	if withText == 0 {
		if d.encrypted && x.streamsRead > 0 && x.streamsFailed == x.streamsRead {
			return nil, newError(ReasonEncrypted, fmt.Errorf("%w: no stream decrypts", ErrEncryption))
		}
		return out, newError(ReasonNoText, ErrNoText)
	}
	return out, nil
}

func openDocSafe(src []byte, lim Limits, rewriteAll bool) (d *document, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, newError(ReasonMalformed, panicError(p))
		}
	}()
	return openDoc(src, lim, rewriteAll)
}

// protect runs f and turns a panic into an error.
func protect(f func()) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	f()
	return nil
}

// page extracts one page. A failure is recorded in Page.Err.
func (x *extractor) page(pr pageRef, num int) (p Page) {
	p.Number = num
	if pr.err != "" {
		p.Err = pr.err
		return p
	}
	lay := &layout{maxBytes: x.lim.MaxTextBytes + 1}
	in := newInterp(x, lay)
	var streamErr error
	err := protect(func() {
		res := x.resourcesFor(pr.resources)
		contents := pr.v.Key("Contents")
		var streams []lpdf.Value
		switch contents.Kind() {
		case lpdf.Stream:
			streams = append(streams, contents)
		case lpdf.Array:
			for i := 0; i < contents.Len() && i < 4096; i++ {
				if s := contents.Index(i); s.Kind() == lpdf.Stream {
					streams = append(streams, s)
				}
			}
		}
		// A page's streams form one program: an operator may span two.
		var data []byte
		for _, s := range streams {
			b, err := x.streamBytes(s, x.lim.MaxStreamBytes)
			if err != nil {
				streamErr = err
				if errors.Is(err, ErrStreamTooLarge) {
					return
				}
				continue
			}
			data = append(data, b...)
			data = append(data, '\n')
		}
		in.run(data, res)
	})
	if err == nil && in.err != nil {
		err = in.err
	}
	if err == nil && streamErr != nil {
		err = streamErr
	}
	p.Text = lay.finish()
	if err != nil {
		p.Err = err.Error()
	}
	p.LowConfidence = quality(p.Text)
	p.Headings = headings(p.Text, lay.lines)
	return p
}
