package pdf

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
)

// File-level objects, parsed by our own lexer for the xref repair code only.
// Everything else reads objects through the library's Value API.

type objRef struct {
	num uint32
	gen uint16
}

type pdfName string

// pdfString is a string object's bytes (decoded, still encrypted if the file is).
type pdfString []byte

type pdfKeyword string

const maxObjDepth = 64 // nesting of arrays and dicts accepted by the repair parser

// parseObject reads one object. Unknown keywords come back as pdfKeyword so
// the caller can see "obj", "stream", "endobj" and friends.
func parseObject(l *lexer, depth int) any {
	t := l.next()
	return parseObjectFrom(l, t, depth)
}

func parseObjectFrom(l *lexer, t token, depth int) any {
	switch t.kind {
	case tEOF:
		return pdfKeyword("")
	case tNum:
		if !t.isInt {
			return t.num
		}
		// "N G R" is a reference; peek two tokens ahead.
		save := l.pos
		t2 := l.next()
		if t2.kind == tNum && t2.isInt {
			t3 := l.next()
			if t3.kind == tOp && string(t3.b) == "R" && t.num >= 0 && t.num < 1<<32 && t2.num >= 0 && t2.num < 1<<16 {
				return objRef{uint32(t.num), uint16(t2.num)}
			}
		}
		l.pos = save
		return int64(t.num)
	case tName:
		return pdfName(t.b)
	case tString:
		return pdfString(bytes.Clone(t.b))
	case tArrOpen:
		var a []any
		if depth > maxObjDepth {
			return a
		}
		for {
			save := l.pos
			t2 := l.next()
			if t2.kind == tArrClose || t2.kind == tEOF {
				return a
			}
			if t2.kind == tDictClose || (t2.kind == tOp && isObjKeyword(t2.b)) {
				l.pos = save // broken array: stop before the next object's syntax
				return a
			}
			a = append(a, parseObjectFrom(l, t2, depth+1))
		}
	case tDictOpen:
		d := map[string]any{}
		if depth > maxObjDepth {
			return d
		}
		for {
			save := l.pos
			t2 := l.next()
			if t2.kind == tDictClose || t2.kind == tEOF {
				return d
			}
			if t2.kind != tName {
				if t2.kind == tOp && isObjKeyword(t2.b) {
					l.pos = save
					return d
				}
				continue // junk key: skipped
			}
			key := string(t2.b)
			save = l.pos
			t3 := l.next()
			if t3.kind == tDictClose {
				return d
			}
			if t3.kind == tOp && isObjKeyword(t3.b) {
				l.pos = save
				return d
			}
			d[key] = parseObjectFrom(l, t3, depth+1)
		}
	case tOp:
		switch string(t.b) {
		case "null":
			return nil
		case "true":
			return true
		case "false":
			return false
		}
		return pdfKeyword(t.b)
	}
	return pdfKeyword("")
}

func isObjKeyword(b []byte) bool {
	switch string(b) {
	case "obj", "endobj", "stream", "endstream", "xref", "trailer", "startxref":
		return true
	}
	return false
}

func dictInt(d map[string]any, key string) (int64, bool) {
	switch v := d[key].(type) {
	case int64:
		return v, true
	case float64:
		return int64(v), v == float64(int64(v))
	}
	return 0, false
}

func dictName(d map[string]any, key string) string {
	n, _ := d[key].(pdfName)
	return string(n)
}

// writeObject serializes an object in PDF syntax.
func writeObject(buf *bytes.Buffer, o any, depth int) {
	if depth > maxObjDepth {
		buf.WriteString("null")
		return
	}
	switch v := o.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	case int64:
		buf.WriteString(strconv.FormatInt(v, 10))
	case float64:
		buf.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
	case pdfName:
		buf.WriteByte('/')
		for i := 0; i < len(v); i++ {
			c := v[i]
			if c <= ' ' || c >= 0x7f || c == '#' || isDelim(c) {
				buf.WriteByte('#')
				buf.WriteString(strconv.FormatUint(uint64(c)>>4, 16))
				buf.WriteString(strconv.FormatUint(uint64(c)&15, 16))
				continue
			}
			buf.WriteByte(c)
		}
	case pdfString:
		buf.WriteByte('<')
		const hexd = "0123456789abcdef"
		for _, c := range v {
			buf.WriteByte(hexd[c>>4])
			buf.WriteByte(hexd[c&15])
		}
		buf.WriteByte('>')
	case objRef:
		buf.WriteString(strconv.FormatUint(uint64(v.num), 10))
		buf.WriteByte(' ')
		buf.WriteString(strconv.FormatUint(uint64(v.gen), 10))
		buf.WriteString(" R")
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(' ')
			}
			writeObject(buf, e, depth+1)
		}
		buf.WriteByte(']')
	case map[string]any:
		buf.WriteString("<<")
		for _, k := range slices.Sorted(maps.Keys(v)) {
			writeObject(buf, pdfName(k), depth+1)
			buf.WriteByte(' ')
			writeObject(buf, v[k], depth+1)
			buf.WriteByte(' ')
		}
		buf.WriteString(">>")
	default:
		buf.WriteString("null")
	}
}
