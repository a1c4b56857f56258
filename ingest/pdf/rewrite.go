package pdf

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
)

// rewrite writes a clean copy of the document for the library: every
// object parsed by our tolerant parser and written back in plain syntax,
// objects from object streams written as top-level objects, strings and
// streams decrypted, stream lengths set from the data, one flat
// cross-reference stream. It is the repair for what the library cannot
// read in place: encrypted files (the library lacks AES-256 and gets RC4-40
// wrong), files without a header, malformed dictionaries, broken object
// streams. It costs one parse of every object, so plain files that open
// as they are skip it.
func rewrite(data []byte, t *xrefTable, cr *crypt, maxStream int64) (*xrefTable, []byte) {
	var out bytes.Buffer
	out.Grow(len(data) + len(data)/4)
	out.WriteString("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n")
	nt := &xrefTable{entries: map[uint32]xrefEntry{}, trailer: map[string]any{}}
	objStms := map[uint32]*objStm{}
	var catalog *objRef
	var pageObjs []any
	for _, num := range slices.Sorted(maps.Keys(t.entries)) {
		e := t.entries[num]
		var obj any
		var raw []byte
		isStream := false
		gen := uint16(0)
		switch e.typ {
		case 1:
			l := lexer{src: data, pos: int(e.off)}
			n, g, o, start, err := parseIndirect(&l, l.next())
			if err != nil || n != num {
				continue
			}
			gen = g
			obj = o
			if start >= 0 {
				d, _ := o.(map[string]any)
				if d == nil {
					continue
				}
				switch dictName(d, "Type") {
				case "XRef", "ObjStm":
					continue // replaced by our table and by top-level objects
				}
				isStream = true
				raw = streamData(data, d, start)
				if cr != nil {
					dec, err := cr.stream(objID{num, g}, raw)
					if err != nil {
						continue
					}
					raw = dec
				}
			}
			if cr != nil {
				obj = decryptStrings(obj, cr, objID{num, g}, 0)
			}
		case 2:
			s := objStms[uint32(e.off)]
			if s == nil {
				s = loadObjStm(data, t, uint32(e.off), cr, maxStream)
				objStms[uint32(e.off)] = s
			}
			o, ok := s.object(num, e.idx)
			if !ok {
				continue
			}
			obj = o
		default:
			continue
		}
		if d, ok := obj.(map[string]any); ok {
			switch dictName(d, "Type") {
			case "Catalog":
				catalog = &objRef{num, gen}
			case "Page":
				if len(pageObjs) < maxScanObjects {
					pageObjs = append(pageObjs, objRef{num, gen})
				}
			}
		}
		nt.entries[num] = xrefEntry{typ: 1, off: int64(out.Len()), gen: gen}
		out.WriteString(strconv.FormatUint(uint64(num), 10))
		out.WriteByte(' ')
		out.WriteString(strconv.FormatUint(uint64(gen), 10))
		out.WriteString(" obj\n")
		if isStream {
			d := obj.(map[string]any)
			d["Length"] = int64(len(raw))
			writeObject(&out, d, 0)
			out.WriteString("\nstream\n")
			out.Write(raw)
			out.WriteString("\nendstream")
		} else {
			writeObject(&out, obj, 0)
		}
		out.WriteString("\nendobj\n")
	}
	// A fallback page tree of every page object, in object order, for
	// files whose own tree leads nowhere; found under the trailer key
	// fallbackRootKey.
	if len(pageObjs) > 0 {
		next := uint32(1)
		if len(nt.entries) > 0 {
			next = slices.Max(slices.Collect(maps.Keys(nt.entries))) + 1
		}
		pagesNum, catNum := next, next+1
		nt.entries[pagesNum] = xrefEntry{typ: 1, off: int64(out.Len())}
		out.WriteString(strconv.FormatUint(uint64(pagesNum), 10) + " 0 obj\n")
		writeObject(&out, map[string]any{"Type": pdfName("Pages"), "Kids": pageObjs, "Count": int64(len(pageObjs))}, 0)
		out.WriteString("\nendobj\n")
		nt.entries[catNum] = xrefEntry{typ: 1, off: int64(out.Len())}
		out.WriteString(strconv.FormatUint(uint64(catNum), 10) + " 0 obj\n")
		writeObject(&out, map[string]any{"Type": pdfName("Catalog"), "Pages": objRef{pagesNum, 0}}, 0)
		out.WriteString("\nendobj\n")
		nt.trailer[fallbackRootKey] = objRef{catNum, 0}
	}
	for _, k := range []string{"Root", "Info", "ID"} {
		if v, ok := t.trailer[k]; ok {
			nt.trailer[k] = v
		}
	}
	if r, ok := nt.trailer["Root"].(objRef); !ok || nt.entries[r.num].typ != 1 {
		if catalog != nil {
			nt.trailer["Root"] = *catalog
		}
	}
	return nt, out.Bytes()
}

const fallbackRootKey = "EvidenceFallbackRoot"

// decryptStrings returns o with every string decrypted with id's key.
func decryptStrings(o any, cr *crypt, id objID, depth int) any {
	if depth > maxObjDepth {
		return o
	}
	switch v := o.(type) {
	case pdfString:
		return pdfString(cr.string(id, v))
	case []any:
		for i := range v {
			v[i] = decryptStrings(v[i], cr, id, depth+1)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = decryptStrings(e, cr, id, depth+1)
		}
	}
	return o
}

// objStm is a decoded object stream.
type objStm struct {
	data  []byte
	first int
	nums  []uint32
	offs  []int
}

func loadObjStm(data []byte, t *xrefTable, num uint32, cr *crypt, maxStream int64) *objStm {
	s := &objStm{}
	e, ok := t.entries[num]
	if !ok || e.typ != 1 {
		return s
	}
	l := lexer{src: data, pos: int(e.off)}
	n, g, obj, start, err := parseIndirect(&l, l.next())
	d, _ := obj.(map[string]any)
	// The type is not checked: /N and /First are what matter, and some
	// writers get /Type wrong.
	if err != nil || n != num || d == nil || start < 0 {
		return s
	}
	raw := streamData(data, d, start)
	if cr != nil {
		if raw, err = cr.stream(objID{num, g}, raw); err != nil {
			return s
		}
	}
	buf, err := decodeStream(d, raw, maxStream)
	if err != nil {
		return s
	}
	first, _ := dictInt(d, "First")
	count, _ := dictInt(d, "N")
	if first < 0 || first > int64(len(buf)) {
		return s
	}
	s.data, s.first = buf, int(first)
	hl := lexer{src: buf[:first]}
	for k := int64(0); k < count && k < maxScanObjects; k++ {
		t1, t2 := hl.next(), hl.next()
		if t1.kind != tNum || t2.kind != tNum || t1.num < 0 || t2.num < 0 {
			break
		}
		s.nums = append(s.nums, uint32(t1.num))
		s.offs = append(s.offs, int(t2.num))
	}
	return s
}

// object returns object num, expected at index idx (found by number when
// the index is wrong).
func (s *objStm) object(num, idx uint32) (any, bool) {
	i := int(idx)
	if i >= len(s.nums) || s.nums[i] != num {
		i = slices.Index(s.nums, num)
		if i < 0 {
			return nil, false
		}
	}
	off := s.first + s.offs[i]
	if off < 0 || off >= len(s.data) {
		return nil, false
	}
	l := lexer{src: s.data, pos: off}
	o := parseObject(&l, 0)
	if _, bad := o.(pdfKeyword); bad {
		return nil, false
	}
	return o, true
}
