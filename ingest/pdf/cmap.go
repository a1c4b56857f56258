package pdf

import (
	"unicode/utf16"
)

// CMaps: ToUnicode maps (code → text) and embedded encoding CMaps
// (code → CID), parsed with our lexer under the stream-size cap. The
// library's cmap decoder is used by Font.Encoder only when a font has no
// named encoding, scans every range for every code, and reads the stream
// without a cap, so fonts decode their maps here once and look codes up in
// maps afterwards.

const maxCMapEntries = 1 << 17 // bfchar/bfrange/cid entries kept per CMap

type codeRange struct {
	n      int // code length in bytes
	lo, hi uint32
}

type uniRange struct {
	lo, hi uint32
	dst    []uint16   // UTF-16 of lo's text; later codes add to the last unit
	arr    [][]uint16 // or one text per code
}

type cidRange struct {
	lo, hi uint32
	cid    uint32
}

type cmap struct {
	space    []codeRange
	chars    map[uint32]string
	ranges   []uniRange
	cids     []cidRange
	useName  string // /Name usecmap: a predefined parent
	vertical bool
}

func bytesCode(b []byte) uint32 {
	var c uint32
	for _, x := range b {
		c = c<<8 | uint32(x)
	}
	return c
}

func utf16Units(b []byte) []uint16 {
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
	}
	if len(b)%2 == 1 {
		u = append(u, uint16(b[len(b)-1]))
	}
	return u
}

func utf16Text(u []uint16) string {
	return string(utf16.Decode(u))
}

// parseCMap reads a CMap program. It never fails: what it cannot read is left out.
func parseCMap(src []byte) *cmap {
	m := &cmap{chars: map[uint32]string{}}
	l := lexer{src: src}
	type operand struct {
		t   token
		arr [][]byte // for arrays of strings
		isA bool
	}
	var ops []operand
	entries := 0
	for {
		if len(l.arena) > 1<<20 {
			l.arena = nil // values already copied out; keep the scratch bounded
		}
		t := l.next()
		switch t.kind {
		case tEOF:
			return m
		case tArrOpen:
			var arr [][]byte
			for {
				e := l.next()
				if e.kind == tArrClose || e.kind == tEOF {
					break
				}
				if e.kind == tString {
					arr = append(arr, e.b)
				}
			}
			ops = append(ops, operand{arr: arr, isA: true})
			continue
		case tOp:
		default:
			ops = append(ops, operand{t: t})
			if len(ops) > 3*maxCMapEntries {
				ops = ops[:0]
			}
			continue
		}
		switch string(t.b) {
		case "endcodespacerange":
			for i := 0; i+1 < len(ops); i += 2 {
				lo, hi := ops[i].t, ops[i+1].t
				if lo.kind == tString && hi.kind == tString && len(lo.b) >= 1 && len(lo.b) <= 4 && len(lo.b) == len(hi.b) {
					m.space = append(m.space, codeRange{len(lo.b), bytesCode(lo.b), bytesCode(hi.b)})
				}
			}
		case "endbfchar":
			for i := 0; i+1 < len(ops) && entries < maxCMapEntries; i += 2 {
				src, dst := ops[i].t, ops[i+1].t
				if src.kind != tString {
					continue
				}
				switch dst.kind {
				case tString:
					m.chars[bytesCode(src.b)] = utf16Text(utf16Units(dst.b))
				case tName:
					m.chars[bytesCode(src.b)] = glyphText(string(dst.b))
				}
				entries++
			}
		case "endbfrange":
			for i := 0; i+2 < len(ops) && entries < maxCMapEntries; i += 3 {
				lo, hi, dst := ops[i].t, ops[i+1].t, ops[i+2]
				if lo.kind != tString || hi.kind != tString {
					continue
				}
				r := uniRange{lo: bytesCode(lo.b), hi: bytesCode(hi.b)}
				if r.hi < r.lo {
					continue
				}
				if dst.isA {
					for _, s := range dst.arr {
						r.arr = append(r.arr, utf16Units(s))
					}
				} else if dst.t.kind == tString {
					r.dst = utf16Units(dst.t.b)
				} else {
					continue
				}
				m.ranges = append(m.ranges, r)
				entries++
			}
		case "endcidrange":
			for i := 0; i+2 < len(ops) && entries < maxCMapEntries; i += 3 {
				lo, hi, cid := ops[i].t, ops[i+1].t, ops[i+2].t
				if lo.kind == tString && hi.kind == tString && cid.kind == tNum && cid.num >= 0 {
					m.cids = append(m.cids, cidRange{bytesCode(lo.b), bytesCode(hi.b), uint32(cid.num)})
					entries++
				}
			}
		case "endcidchar":
			for i := 0; i+1 < len(ops) && entries < maxCMapEntries; i += 2 {
				src, cid := ops[i].t, ops[i+1].t
				if src.kind == tString && cid.kind == tNum && cid.num >= 0 {
					c := bytesCode(src.b)
					m.cids = append(m.cids, cidRange{c, c, uint32(cid.num)})
					entries++
				}
			}
		case "usecmap":
			if len(ops) > 0 && ops[len(ops)-1].t.kind == tName {
				m.useName = string(ops[len(ops)-1].t.b)
			}
		case "def":
			// /WMode 1 def marks a vertical CMap.
			if len(ops) >= 2 && ops[0].t.kind == tName && string(ops[0].t.b) == "WMode" && ops[1].t.kind == tNum {
				m.vertical = ops[1].t.num == 1
			}
		}
		ops = ops[:0]
	}
}

// lookup returns the text of code and whether the map has it.
func (m *cmap) lookup(code uint32) (string, bool) {
	if s, ok := m.chars[code]; ok {
		return s, true
	}
	for i := range m.ranges {
		r := &m.ranges[i]
		if code < r.lo || code > r.hi {
			continue
		}
		d := code - r.lo
		if r.arr != nil {
			if int(d) < len(r.arr) {
				return utf16Text(r.arr[d]), true
			}
			continue
		}
		if len(r.dst) == 0 {
			return "", true
		}
		u := append([]uint16(nil), r.dst...)
		u[len(u)-1] += uint16(d)
		return utf16Text(u), true
	}
	return "", false
}

// cid maps a code through the cid ranges; ok is false when none matches.
func (m *cmap) cid(code uint32) (uint32, bool) {
	for i := len(m.cids) - 1; i >= 0; i-- {
		r := m.cids[i]
		if code >= r.lo && code <= r.hi {
			return r.cid + code - r.lo, true
		}
	}
	return 0, false
}

// split returns the length in bytes of the code at the start of s under the
// codespace ranges (1 when none matches, as readers do).
func splitCode(space []codeRange, s []byte) int {
	for n := 1; n <= 4 && n <= len(s); n++ {
		c := bytesCode(s[:n])
		for _, r := range space {
			if r.n == n && c >= r.lo && c <= r.hi {
				return n
			}
		}
	}
	// No range matched: take the shortest length the codespace uses.
	short := 0
	for _, r := range space {
		if short == 0 || r.n < short {
			short = r.n
		}
	}
	if short == 0 || short > len(s) {
		return 1
	}
	return short
}
