package pdf

import (
	"bytes"
)

// Reconstruction of a cross-reference table by scanning the file for
// "N G obj", as readers do for damaged files. Later definitions win, as
// they would after an incremental update. Stream data is skipped so that
// bytes inside a stream are never taken for objects.

const maxScanObjects = 1 << 21

// scanXref rebuilds a table from the file's bytes. It returns nil when no
// object is found.
func scanXref(data []byte, maxStream int64) *xrefTable {
	t := &xrefTable{entries: map[uint32]xrefEntry{}, trailer: map[string]any{}}
	var objStms []uint32
	var catalog uint32
	catalogGen := uint16(0)
	found := 0
	pos := 0
	for pos < len(data) && found < maxScanObjects {
		i := bytes.Index(data[pos:], []byte("obj"))
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + 3
		start, ok := objHeaderStart(data, at)
		if !ok {
			continue
		}
		l := lexer{src: data, pos: start}
		first := l.next()
		num, gen, obj, dataStart, err := parseIndirect(&l, first)
		if err != nil {
			continue
		}
		found++
		if num < maxObjects {
			t.entries[num] = xrefEntry{typ: 1, off: int64(start), gen: gen}
		}
		d, _ := obj.(map[string]any)
		if dataStart >= 0 {
			raw := streamData(data, d, dataStart)
			pos = dataStart + len(raw)
			switch dictName(d, "Type") {
			case "ObjStm":
				objStms = append(objStms, num)
			case "XRef":
				mergeTrailer(t.trailer, d)
			}
		} else if l.pos > pos {
			pos = l.pos
		}
		if d != nil && dictName(d, "Type") == "Catalog" {
			catalog, catalogGen = num, gen
		}
	}
	// Trailer dictionaries, newest last.
	for pos := 0; ; {
		i := bytes.Index(data[pos:], []byte("trailer"))
		if i < 0 {
			break
		}
		l := lexer{src: data, pos: pos + i + len("trailer")}
		if d, ok := parseObject(&l, 0).(map[string]any); ok {
			mergeTrailer(t.trailer, d)
		}
		pos += i + len("trailer")
	}
	if found == 0 {
		return nil
	}
	if _, ok := t.trailer["Root"].(objRef); !ok && catalog != 0 {
		t.trailer["Root"] = objRef{catalog, catalogGen}
	}
	if _, enc := t.trailer["Encrypt"]; !enc {
		for _, n := range objStms {
			addObjStm(data, t, n, maxStream)
		}
	}
	return t
}

func mergeTrailer(dst, src map[string]any) {
	for _, k := range []string{"Root", "Info", "Encrypt", "ID"} {
		if v, ok := src[k]; ok {
			dst[k] = v
		}
	}
}

// objHeaderStart checks that "obj" at i is preceded by "num gen " and
// returns the offset of num.
func objHeaderStart(data []byte, i int) (int, bool) {
	if i+3 < len(data) && isRegular(data[i+3]) {
		return 0, false
	}
	j := i
	skipWhite := func() bool {
		k := j
		for j > 0 && isWhite(data[j-1]) {
			j--
		}
		return j < k
	}
	digits := func() bool {
		k := j
		for j > 0 && data[j-1] >= '0' && data[j-1] <= '9' && k-j < 20 {
			j--
		}
		return j < k
	}
	if !skipWhite() || !digits() || !skipWhite() || !digits() {
		return 0, false
	}
	if j > 0 && isRegular(data[j-1]) {
		return 0, false
	}
	return j, true
}

// addObjStm registers the objects of object stream n that no top-level
// definition already provides.
func addObjStm(data []byte, t *xrefTable, n uint32, maxStream int64) {
	e := t.entries[n]
	l := lexer{src: data, pos: int(e.off)}
	first := l.next()
	_, _, obj, start, err := parseIndirect(&l, first)
	d, _ := obj.(map[string]any)
	if err != nil || d == nil || start < 0 {
		return
	}
	buf, err := decodeStream(d, streamData(data, d, start), maxStream)
	if err != nil {
		return
	}
	count, _ := dictInt(d, "N")
	hl := lexer{src: buf}
	for k := int64(0); k < count && k < maxScanObjects; k++ {
		t1, t2 := hl.next(), hl.next()
		if t1.kind != tNum || t2.kind != tNum || t1.num < 0 || t1.num >= maxObjects {
			return
		}
		num := uint32(t1.num)
		if num == n {
			continue
		}
		if _, ok := t.entries[num]; !ok {
			t.entries[num] = xrefEntry{typ: 2, off: int64(n), idx: uint32(k)}
		}
	}
}
