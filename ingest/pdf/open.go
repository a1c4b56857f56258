package pdf

import (
	"bytes"
	"fmt"

	lpdf "github.com/ledongthuc/pdf"
)

// document is an opened PDF: the library's reader over our repaired copy.
type document struct {
	r         *lpdf.Reader
	data      []byte // the bytes the library reads: a copy with a fresh xref appended
	version   string
	encrypted bool
	crypt     *crypt // set when streams in data are still encrypted
	table     *xrefTable
	repaired  bool // the xref had to be rebuilt by scanning
}

const headerWindow = 1024

// openDoc finds the header, reads or rebuilds the cross-reference data and
// opens the library's reader. With rewriteAll, or when the file is
// encrypted or has no header, the library reads our rewritten copy.
// Errors are *Error.
func openDoc(src []byte, lim Limits, rewriteAll bool) (doc *document, err error) {
	idx := bytes.Index(src[:min(len(src), headerWindow)], []byte("%PDF-"))
	data := src
	version := ""
	if idx >= 0 {
		data = src[idx:]
		version = headerVersion(data)
	} else {
		// No header where the specification wants it: readers still try,
		// and so do we, through a rewrite, if objects and a catalog are found.
		rewriteAll = true
	}

	t, xerr := readXrefFrom(data, lim.MaxStreamBytes)
	repaired := false
	// A damaged chain, entries that miss their objects, or a retry after
	// the library failed: complete the table from a scan of the file.
	if xerr != nil || t.damaged || rewriteAll || !verifyXref(data, t) {
		s := scanXref(data, lim.MaxStreamBytes)
		repaired = true
		switch {
		case s == nil && t == nil:
			if idx < 0 {
				return nil, newError(ReasonMalformed, ErrNotPDF)
			}
			return nil, errorf(ReasonMalformed, "no objects found: %v", xerr)
		case t == nil:
			t = s
		case s != nil:
			mergeScan(data, t, s)
		}
	}
	_, encrypted := t.trailer["Encrypt"]
	var cr *crypt
	if encrypted {
		var err error
		if cr, err = setupCrypt(data, t, lim.Password); err != nil {
			return nil, newError(ReasonEncrypted, err)
		}
		rewriteAll = true
	}
	var buf []byte
	if rewriteAll {
		t, buf = rewrite(data, t, cr, lim.MaxStreamBytes)
		buf = writeXrefStream(buf, nil, t)
		repaired = true
	} else if !lim.keepObjStms && inObjStms(t) > 0 {
		// The library re-reads an object stream from its start, inflating
		// it again, for every object it resolves inside it: fonts, page
		// and outline objects cost a pass over their stream each, 60% of
		// the time on the shared corpus. Our copy holds them as top-level
		// objects, one parse of each in all.
		t, buf = rewrite(data, t, nil, lim.MaxStreamBytes)
		buf = writeXrefStream(buf, nil, t)
	} else {
		if _, ok := t.trailer["Root"].(objRef); !ok {
			return nil, errorf(ReasonMalformed, "no document catalog")
		}
		dropBadObjStmRefs(t)
		extra := fixMissingEndobj(data, t)
		buf = writeXrefStream(data, extra, t)
		if !validHeader(buf) {
			// The library accepts only "%PDF-1.0" to "%PDF-1.7" followed
			// by an end of line; PDF 2.0 and odd headers are patched in our
			// copy, same length, so no offset moves.
			copy(buf, "%PDF-1.7")
			if buf[8] != '\r' && buf[8] != '\n' {
				buf[8] = '\n'
			}
		}
	}
	if _, ok := t.trailer["Root"].(objRef); !ok {
		return nil, errorf(ReasonMalformed, "no document catalog")
	}
	r, err := newReader(buf)
	if err != nil {
		return nil, newError(ReasonMalformed, err)
	}
	return &document{r: r, data: buf, version: version, encrypted: encrypted, table: t, repaired: repaired}, nil
}

// inObjStms counts the objects of t that live in object streams.
func inObjStms(t *xrefTable) int {
	n := 0
	for _, e := range t.entries {
		if e.typ == 2 {
			n++
		}
	}
	return n
}

func newReader(buf []byte) (r *lpdf.Reader, err error) {
	defer func() {
		if x := recover(); x != nil {
			r, err = nil, panicError(x)
		}
	}()
	return lpdf.NewReader(bytes.NewReader(buf), int64(len(buf)))
}

func readXrefFrom(data []byte, maxStream int64) (*xrefTable, error) {
	start, ok := findStartxref(data)
	if !ok {
		return nil, fmt.Errorf("%w: no startxref", errNoXref)
	}
	return readXref(data, start, maxStream)
}

// verifyXref reports whether every in-file entry points at its object and
// the trailer names a catalog.
func verifyXref(data []byte, t *xrefTable) bool {
	if t == nil {
		return false
	}
	if _, ok := t.trailer["Root"].(objRef); !ok {
		return false
	}
	for num, e := range t.entries {
		if e.typ == 1 && !objectAt(data, e.off, num, e.gen) {
			return false
		}
	}
	return true
}

// mergeScan fixes t's wrong entries with what the scan found, and adds the
// objects the table did not list.
func mergeScan(data []byte, t, s *xrefTable) {
	for num, e := range t.entries {
		if e.typ == 1 && !objectAt(data, e.off, num, e.gen) {
			if se, ok := s.entries[num]; ok {
				t.entries[num] = se
			} else {
				delete(t.entries, num)
			}
		}
	}
	for num, se := range s.entries {
		if e, ok := t.entries[num]; !ok || e.typ == 0 {
			t.entries[num] = se
		}
	}
	for _, k := range []string{"Root", "Info", "Encrypt", "ID"} {
		if _, ok := t.trailer[k]; !ok {
			if v, ok := s.trailer[k]; ok {
				t.trailer[k] = v
			}
		}
	}
	if r, ok := t.trailer["Root"].(objRef); ok {
		if e, ok := t.entries[r.num]; !ok || e.typ == 0 {
			if sr, ok := s.trailer["Root"]; ok {
				t.trailer["Root"] = sr
			}
		}
	}
}

// dropBadObjStmRefs removes compressed entries whose object stream is not
// itself an in-file object: the library would recurse on such a chain.
func dropBadObjStmRefs(t *xrefTable) {
	for num, e := range t.entries {
		if e.typ != 2 {
			continue
		}
		if se, ok := t.entries[uint32(e.off)]; !ok || se.typ != 1 || uint32(e.off) == num || e.off >= maxObjects {
			delete(t.entries, num)
		}
	}
}

func validHeader(b []byte) bool {
	return len(b) > 9 && bytes.HasPrefix(b, []byte("%PDF-1.")) && b[7] >= '0' && b[7] <= '7' && (b[8] == '\r' || b[8] == '\n')
}

// headerVersion returns the version the header states, e.g. "1.7" or "2.0".
func headerVersion(b []byte) string {
	i := len("%PDF-")
	j := i
	for j < len(b) && j < i+8 && (b[j] == '.' || b[j] >= '0' && b[j] <= '9') {
		j++
	}
	return string(b[i:j])
}

// setupCrypt reads the encryption dictionary and the file ID and derives
// the key for the empty user password or password.
func setupCrypt(data []byte, t *xrefTable, password string) (*crypt, error) {
	enc, _ := t.trailer["Encrypt"].(map[string]any)
	if ref, ok := t.trailer["Encrypt"].(objRef); ok {
		e, ok := t.entries[ref.num]
		if !ok || e.typ != 1 {
			return nil, fmt.Errorf("%w: encryption dictionary not found", ErrEncryption)
		}
		l := lexer{src: data, pos: int(e.off)}
		_, _, obj, _, err := parseIndirect(&l, l.next())
		if err != nil {
			return nil, fmt.Errorf("%w: encryption dictionary: %v", ErrEncryption, err)
		}
		enc, _ = obj.(map[string]any)
	}
	if enc == nil {
		return nil, fmt.Errorf("%w: encryption dictionary not found", ErrEncryption)
	}
	var id []byte
	if ids, ok := t.trailer["ID"].([]any); ok && len(ids) > 0 {
		id, _ = ids[0].(pdfString)
	}
	return newCrypt(enc, id, password)
}
