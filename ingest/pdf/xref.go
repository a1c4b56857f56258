package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Cross-reference handling. The library follows /Prev chains without a
// visited set (a loop hangs it), allocates whatever /Size or /Index claims
// (a fuzzed size runs it out of memory), ignores hybrid files' /XRefStm,
// knows one PNG predictor, and resolves an object stream that lists itself
// by recursing until the stack dies. So the package reads the
// cross-reference data itself, bounded and cycle-safe, checks every entry
// against the bytes it points at, falls back to scanning the file for
// "N G obj" where the table is missing or wrong, and hands the library one
// fresh, flat cross-reference stream appended to a copy of the file.

const (
	maxXrefSections = 256     // /Prev chain length
	maxObjects      = 1 << 22 // object numbers at or above are dropped: the library allocates a slot per number
)

type xrefEntry struct {
	typ uint8  // 1: at offset; 2: inside object stream
	off int64  // offset (typ 1) or object-stream number (typ 2)
	idx uint32 // index inside the object stream (typ 2)
	gen uint16
}

type xrefTable struct {
	entries map[uint32]xrefEntry
	trailer map[string]any
	damaged bool // the chain had a loop or an unreadable section
}

var errNoXref = errors.New("no usable cross-reference data")

// findStartxref returns the offset after the last "startxref".
func findStartxref(data []byte) (int64, bool) {
	tail := data
	if len(tail) > 4096 {
		tail = tail[len(tail)-4096:]
	}
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return 0, false
	}
	l := lexer{src: tail, pos: i + len("startxref")}
	t := l.next()
	if t.kind != tNum || !t.isInt || t.num < 0 || t.num >= float64(len(data)) {
		return 0, false
	}
	return int64(t.num), true
}

// readXref reads the cross-reference chain from startxref. It returns
// errNoXref-wrapped errors when the chain is unusable.
func readXref(data []byte, start int64, maxStream int64) (*xrefTable, error) {
	t := &xrefTable{entries: map[uint32]xrefEntry{}}
	defer func() {
		if t != nil && t.damaged {
			t.entries = maps.Clone(t.entries) // keep the map compact after deletes
		}
	}()
	seen := map[int64]bool{}
	queue := []int64{start}
	for len(queue) > 0 {
		off := queue[0]
		queue = queue[1:]
		if seen[off] {
			t.damaged = true // a /Prev loop: older sections may be unreachable
			continue
		}
		if len(seen) >= maxXrefSections {
			break
		}
		seen[off] = true
		if off < 0 || off >= int64(len(data)) {
			t.damaged = true
			if len(seen) == 1 {
				return nil, fmt.Errorf("%w: startxref %d out of range", errNoXref, off)
			}
			continue
		}
		trailer, err := readXrefSection(data, off, t, maxStream)
		if err != nil {
			if len(seen) == 1 {
				return nil, err
			}
			t.damaged = true
			continue // a broken older section: keep what the newer ones said
		}
		if t.trailer == nil {
			t.trailer = trailer
		} else {
			for k, v := range trailer {
				if _, ok := t.trailer[k]; !ok && k != "Prev" && k != "XRefStm" {
					t.trailer[k] = v
				}
			}
		}
		// Hybrid files: the /XRefStm section takes precedence over /Prev.
		if x, ok := dictInt(trailer, "XRefStm"); ok {
			queue = append([]int64{x}, queue...)
		}
		if p, ok := dictInt(trailer, "Prev"); ok {
			queue = append(queue, p)
		}
	}
	if t.trailer == nil {
		return nil, fmt.Errorf("%w: no trailer", errNoXref)
	}
	return t, nil
}

// readXrefSection reads a table or stream section at off into t (entries
// already present, from newer sections, win) and returns its trailer.
func readXrefSection(data []byte, off int64, t *xrefTable, maxStream int64) (map[string]any, error) {
	l := lexer{src: data, pos: int(off)}
	tok := l.next()
	if tok.kind == tOp && string(tok.b) == "xref" {
		return readXrefTableSection(&l, t)
	}
	if tok.kind == tNum {
		return readXrefStreamSection(data, &l, tok, t, maxStream)
	}
	return nil, fmt.Errorf("%w: no xref at offset %d", errNoXref, off)
}

func readXrefTableSection(l *lexer, t *xrefTable) (map[string]any, error) {
	for {
		tok := l.next()
		if tok.kind == tOp && string(tok.b) == "trailer" {
			break
		}
		if tok.kind != tNum || !tok.isInt {
			return nil, fmt.Errorf("%w: bad xref subsection", errNoXref)
		}
		first := int64(tok.num)
		tok = l.next()
		if tok.kind != tNum || !tok.isInt || tok.num < 0 {
			return nil, fmt.Errorf("%w: bad xref subsection count", errNoXref)
		}
		count := int64(tok.num)
		if first < 0 || count > maxObjects || first+count > maxObjects*4 {
			return nil, fmt.Errorf("%w: xref subsection %d %d out of range", errNoXref, first, count)
		}
		for i := int64(0); i < count; i++ {
			t1, t2, t3 := l.next(), l.next(), l.next()
			if t1.kind != tNum || t2.kind != tNum || t3.kind != tOp {
				return nil, fmt.Errorf("%w: bad xref entry", errNoXref)
			}
			num := first + i
			if num >= maxObjects {
				continue
			}
			if _, ok := t.entries[uint32(num)]; ok {
				continue
			}
			switch string(t3.b) {
			case "n":
				t.entries[uint32(num)] = xrefEntry{typ: 1, off: int64(t1.num), gen: uint16(t2.num)}
			case "f":
				t.entries[uint32(num)] = xrefEntry{typ: 0}
			default:
				return nil, fmt.Errorf("%w: bad xref entry type %q", errNoXref, t3.b)
			}
		}
	}
	d, ok := parseObject(l, 0).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: no trailer dictionary", errNoXref)
	}
	return d, nil
}

// parseIndirect parses "N G obj <object> [stream ... ]" at the lexer and
// returns the object and, for a stream, the offset of its first data byte.
func parseIndirect(l *lexer, first token) (num uint32, gen uint16, obj any, dataStart int, err error) {
	t2, t3 := l.next(), l.next()
	if first.kind != tNum || !first.isInt || t2.kind != tNum || !t2.isInt || t3.kind != tOp || string(t3.b) != "obj" ||
		first.num < 0 || first.num >= 1<<32 || t2.num < 0 {
		return 0, 0, nil, 0, errors.New("not an indirect object")
	}
	if t2.num >= 1<<16 {
		t2.num = 0 // an overflowing generation (fuzzed files): read as 0, as references will say
	}
	obj = parseObject(l, 0)
	dataStart = -1
	save := l.pos
	if tok := l.next(); tok.kind == tOp && string(tok.b) == "stream" {
		p := l.pos
		if p < len(l.src) && l.src[p] == '\r' {
			p++
		}
		if p < len(l.src) && l.src[p] == '\n' {
			p++
		}
		dataStart = p
	} else {
		l.pos = save
	}
	return uint32(first.num), uint16(t2.num), obj, dataStart, nil
}

// streamData returns a stream's raw bytes: /Length when it is a direct
// integer that lands on "endstream", else up to the next "endstream".
func streamData(data []byte, dict map[string]any, start int) []byte {
	if start < 0 || start > len(data) {
		return nil
	}
	if n, ok := dictInt(dict, "Length"); ok && n >= 0 && int64(start)+n <= int64(len(data)) {
		end := start + int(n)
		rest := data[end:min(len(data), end+32)]
		if bytes.Contains(rest, []byte("endstream")) {
			return data[start:end]
		}
	}
	i := bytes.Index(data[start:], []byte("endstream"))
	if i < 0 {
		return data[start:]
	}
	end := start + i
	// Trim the end-of-line that precedes endstream.
	if end > start && data[end-1] == '\n' {
		end--
	}
	if end > start && data[end-1] == '\r' {
		end--
	}
	return data[start:end]
}

// decodeStream applies a stream dictionary's filters to raw bytes.
func decodeStream(dict map[string]any, raw []byte, max int64) ([]byte, error) {
	var names []string
	var parms []map[string]any
	switch f := dict["Filter"].(type) {
	case pdfName:
		names = []string{string(f)}
		p, _ := dict["DecodeParms"].(map[string]any)
		parms = []map[string]any{p}
	case []any:
		pa, _ := dict["DecodeParms"].([]any)
		for i, e := range f {
			n, _ := e.(pdfName)
			names = append(names, string(n))
			var p map[string]any
			if i < len(pa) {
				p, _ = pa[i].(map[string]any)
			}
			parms = append(parms, p)
		}
	}
	out := raw
	for i, n := range names {
		var err error
		out, err = decodeFilter(n, parms[i], out, max)
		if err != nil && (len(out) == 0 || errors.Is(err, errStreamCap)) {
			return nil, err
		}
	}
	if int64(len(out)) > max {
		return nil, errStreamCap
	}
	return out, nil
}

func readXrefStreamSection(data []byte, l *lexer, first token, t *xrefTable, maxStream int64) (map[string]any, error) {
	_, _, obj, start, err := parseIndirect(l, first)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoXref, err)
	}
	d, ok := obj.(map[string]any)
	if !ok || start < 0 || dictName(d, "Type") != "XRef" {
		return nil, fmt.Errorf("%w: not an xref stream", errNoXref)
	}
	size, _ := dictInt(d, "Size")
	if size < 0 || size > maxObjects*4 {
		return nil, fmt.Errorf("%w: xref stream /Size %d", errNoXref, size)
	}
	var w [3]int
	wa, _ := d["W"].([]any)
	if len(wa) < 3 {
		return nil, fmt.Errorf("%w: bad /W", errNoXref)
	}
	total := 0
	for i := 0; i < 3; i++ {
		v, ok := wa[i].(int64)
		if !ok || v < 0 || v > 8 {
			return nil, fmt.Errorf("%w: bad /W", errNoXref)
		}
		w[i] = int(v)
		total += int(v)
	}
	if total == 0 {
		return nil, fmt.Errorf("%w: /W all zero", errNoXref)
	}
	index := []int64{0, size}
	if ia, ok := d["Index"].([]any); ok {
		index = index[:0]
		for _, e := range ia {
			v, _ := e.(int64)
			index = append(index, v)
		}
	}
	buf, err := decodeStream(d, streamData(data, d, start), maxStream)
	if err != nil {
		return nil, fmt.Errorf("%w: xref stream: %v", errNoXref, err)
	}
	field := func(b []byte) int64 {
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v
	}
	pos := 0
	for i := 0; i+1 < len(index); i += 2 {
		firstNum, count := index[i], index[i+1]
		if firstNum < 0 || count < 0 || count > maxObjects {
			return nil, fmt.Errorf("%w: bad /Index", errNoXref)
		}
		for k := int64(0); k < count; k++ {
			if pos+total > len(buf) {
				return d, nil // short stream: keep what was there
			}
			rec := buf[pos : pos+total]
			pos += total
			typ := int64(1)
			if w[0] > 0 {
				typ = field(rec[:w[0]])
			}
			f2 := field(rec[w[0] : w[0]+w[1]])
			f3 := field(rec[w[0]+w[1]:])
			num := firstNum + k
			if num >= maxObjects {
				continue
			}
			if _, ok := t.entries[uint32(num)]; ok {
				continue
			}
			switch typ {
			case 0:
				t.entries[uint32(num)] = xrefEntry{typ: 0}
			case 1:
				t.entries[uint32(num)] = xrefEntry{typ: 1, off: f2, gen: uint16(f3)}
			case 2:
				t.entries[uint32(num)] = xrefEntry{typ: 2, off: f2, idx: uint32(f3)}
			}
		}
	}
	return d, nil
}

// objectAt reports whether "num gen obj" starts at off.
func objectAt(data []byte, off int64, num uint32, gen uint16) bool {
	if off < 0 || off >= int64(len(data)) {
		return false
	}
	l := lexer{src: data[:min(len(data), int(off)+64)], pos: int(off)}
	t1, t2, t3 := l.next(), l.next(), l.next()
	return t1.kind == tNum && t1.isInt && uint32(t1.num) == num && t1.num == float64(num) &&
		t2.kind == tNum && t2.isInt && t2.num == float64(gen) && t3.kind == tOp && string(t3.b) == "obj"
}

// writeXrefStream appends a flat cross-reference stream holding t's
// entries to a copy of data and returns the result.
// extra holds objects appended after data (their entries already point
// past len(data)).
func writeXrefStream(data, extra []byte, t *xrefTable) []byte {
	nums := slices.Sorted(maps.Keys(t.entries))
	var live []uint32
	maxOff := int64(len(data) + len(extra))
	for _, n := range nums {
		e := t.entries[n]
		if e.typ == 1 || e.typ == 2 {
			live = append(live, n)
			if e.off > maxOff {
				maxOff = e.off
			}
		}
	}
	size := int64(1)
	if len(live) > 0 {
		size = int64(live[len(live)-1]) + 1
	}
	selfNum := uint32(size)
	size++
	w2 := 1
	for v := maxOff + 1024; v > 0xff; v >>= 8 {
		w2++
	}
	var body bytes.Buffer
	var index []any
	for i := 0; i < len(live); {
		j := i
		for j+1 < len(live) && live[j+1] == live[j]+1 {
			j++
		}
		index = append(index, int64(live[i]), int64(j-i+1))
		for k := i; k <= j; k++ {
			e := t.entries[live[k]]
			body.WriteByte(e.typ)
			for s := w2 - 1; s >= 0; s-- {
				body.WriteByte(byte(e.off >> (8 * s)))
			}
			var f3 uint32
			if e.typ == 1 {
				f3 = uint32(e.gen)
			} else {
				f3 = e.idx
			}
			body.WriteByte(byte(f3 >> 24))
			body.WriteByte(byte(f3 >> 16))
			body.WriteByte(byte(f3 >> 8))
			body.WriteByte(byte(f3))
		}
		i = j + 1
	}
	d := map[string]any{
		"Type":   pdfName("XRef"),
		"Size":   size,
		"W":      []any{int64(1), int64(w2), int64(4)},
		"Index":  index,
		"Length": int64(body.Len()),
	}
	for _, k := range []string{"Root", "Info", "Encrypt", "ID", fallbackRootKey} {
		if v, ok := t.trailer[k]; ok {
			d[k] = v
		}
	}
	out := make([]byte, 0, len(data)+len(extra)+body.Len()+512)
	out = append(out, data...)
	out = append(out, extra...)
	out = append(out, '\n')
	off := len(out)
	var hdr bytes.Buffer
	hdr.WriteString(strconv.FormatUint(uint64(selfNum), 10))
	hdr.WriteString(" 0 obj\n")
	writeObject(&hdr, d, 0)
	hdr.WriteString("\nstream\n")
	out = append(out, hdr.Bytes()...)
	out = append(out, body.Bytes()...)
	out = append(out, "\nendstream\nendobj\nstartxref\n"...)
	out = strconv.AppendInt(out, int64(off), 10)
	out = append(out, "\n%%EOF\n"...)
	return out
}

// fixMissingEndobj finds objects not closed by "endobj" before the next
// object starts (the library panics on them) and returns corrected copies
// to append after data, pointing their entries at the copies.
func fixMissingEndobj(data []byte, t *xrefTable) []byte {
	type span struct {
		num uint32
		off int64
	}
	var spans []span
	for num, e := range t.entries {
		if e.typ == 1 {
			spans = append(spans, span{num, e.off})
		}
	}
	slices.SortFunc(spans, func(a, b span) int { return int(a.off - b.off) })
	var extra []byte
	for i, sp := range spans {
		end := int64(len(data))
		if i+1 < len(spans) {
			end = spans[i+1].off
		}
		if end <= sp.off || bytes.Contains(data[sp.off:end], []byte("endobj")) {
			continue
		}
		l := lexer{src: data[:end], pos: int(sp.off)}
		_, _, _, start, err := parseIndirect(&l, l.next())
		if err != nil || start >= 0 {
			continue // streams are read without their endobj
		}
		e := t.entries[sp.num]
		e.off = int64(len(data) + 1 + len(extra))
		t.entries[sp.num] = e
		extra = append(extra, '\n')
		extra = append(extra, data[sp.off:l.pos]...)
		extra = append(extra, "\nendobj\n"...)
	}
	return extra
}
