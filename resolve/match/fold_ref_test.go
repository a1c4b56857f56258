package match

import (
	"encoding/binary"
	"slices"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The folding as it was before the folded texts kept their map to the
// original as runs (fseg): one from and one to per byte. It is the oracle
// of TestFoldMapsAsBefore and FuzzFoldMaps; nothing else uses it.

// foldArrays folds s as foldText did and returns the folded text with
// its per-byte map.
func foldArrays(s string, normalized bool) (string, []int32, []int32) {
	f := refFolder{norm: normalized, track: true}
	f.fold(s)
	return string(f.out), f.from, f.to
}

type refFolder struct {
	norm  bool
	track bool
	out   []byte
	from  []int32
	to    []int32
	space bool // the last rune emitted is a (collapsed) space
	last  rune // the last rune emitted
	memo  map[rune]string
}

func (f *refFolder) emit(r rune, from, to int32) {
	switch {
	case unicode.IsSpace(r):
		if f.space {
			// One space stands for the whole run: widen its source range.
			if f.track {
				f.to[len(f.to)-1] = to
			}
			return
		}
		r = ' '
		f.space = true
	case dropped(r):
		return
	default:
		f.space = false
	}
	f.last = r
	n := len(f.out)
	if r < utf8.RuneSelf {
		f.out = append(f.out, byte(r))
	} else {
		f.out = utf8.AppendRune(f.out, r)
	}
	if f.track {
		for range len(f.out) - n {
			f.from = append(f.from, from)
			f.to = append(f.to, to)
		}
	}
}

func (f *refFolder) fold(s string) {
	out, from, to := f.out, f.from, f.to
	space, last := f.space, f.last
	norm, track := f.norm, f.track
	cp := int32(0)
	for i := 0; i < len(s); {
		// Eight bytes at a time while they are plain: printable ASCII with
		// single spaces and no hyphen, the bulk of prose.
		if i+8 <= len(s) {
			if w, ok := plain8(s, i, norm, space); ok {
				out = binary.LittleEndian.AppendUint64(out, w)
				if track {
					o := len(from)
					from, to = slices.Grow(from, 8)[:o+8], slices.Grow(to, 8)[:o+8]
					fr, tr := from[o:o+8:o+8], to[o:o+8:o+8]
					fr[0], fr[1], fr[2], fr[3], fr[4], fr[5], fr[6], fr[7] = cp, cp+1, cp+2, cp+3, cp+4, cp+5, cp+6, cp+7
					tr[0], tr[1], tr[2], tr[3], tr[4], tr[5], tr[6], tr[7] = cp+1, cp+2, cp+3, cp+4, cp+5, cp+6, cp+7, cp+8
				}
				space = w>>56 == ' '
				last = rune(w >> 56)
				i += 8
				cp += 8
				continue
			}
		}
		// A run of ASCII letters, digits and punctuation, the bulk of most
		// texts, is copied (lowercased at the normalized level) without the
		// per-byte decisions below.
		if j := i; s[j] < utf8.RuneSelf && asciiClass[s[j]] <= asciiUpper {
			lower := &asciiSame
			if norm {
				lower = &asciiLower
			}
			for j < len(s) && s[j] < utf8.RuneSelf && asciiClass[s[j]] <= asciiUpper {
				j++
			}
			if norm && j < len(s) && s[j] >= utf8.RuneSelf {
				j-- // the last letter may take a combining mark
			}
			if n := j - i; n > 0 {
				o := len(out)
				out = slices.Grow(out, n)[:o+n]
				for k, c := range []byte(s[i:j]) {
					out[o+k] = lower[c&0x7f]
				}
				if track {
					o := len(from)
					from, to = slices.Grow(from, n)[:o+n], slices.Grow(to, n)[:o+n]
					fr, tr := from[o:o+n], to[o:o+n]
					for k := range fr {
						fr[k] = cp + int32(k)
						tr[k] = cp + int32(k) + 1
					}
				}
				cp += int32(n)
				space = false
				last = rune(out[len(out)-1])
				i = j
				continue
			}
		}
		c := s[i]
		// At the normalized level an ASCII letter followed by a combining
		// mark must go through NFKC with it, hence the look at the next
		// byte.
		if c < utf8.RuneSelf && (!norm || i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			switch asciiClass[c] {
			case asciiSpace:
				if space {
					// One space stands for the whole run: widen its source.
					if track {
						to[len(to)-1] = cp + 1
					}
					i++
					cp++
					continue
				}
				c = ' '
			case asciiUpper:
				if norm {
					c += 'a' - 'A'
				}
			case asciiHyphen:
				if norm {
					f.last = last
					if j, n, ok := f.join(s, i+1); ok {
						i, cp = j, cp+1+n
						continue
					}
				}
			}
			out = append(out, c)
			if track {
				from = append(from, cp)
				to = append(to, cp+1)
			}
			space = c == ' '
			last = rune(c)
			i++
			cp++
			continue
		}
		f.out, f.from, f.to, f.space, f.last = out, from, to, space, last
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !norm || (r == utf8.RuneError && size == 1):
			// An invalid byte is one code point, refFolded to U+FFFD, the way
			// Go's range loop and utf8.RuneCount count it.
			f.emit(r, cp, cp+1)
			i += size
			cp++
		default:
			if hyphen(r) {
				if j, n, ok := f.join(s, i+size); ok {
					i, cp = j, cp+1+n
					break
				}
			}
			seg := s[i : i+size]
			if i+size < len(s) && s[i+size] >= utf8.RuneSelf {
				// A non-ASCII rune may be followed by combining marks;
				// before an ASCII byte a segment always ends.
				seg = s[i : i+segmentLen(s[i:], size)]
			}
			n := int32(utf8.RuneCountInString(seg))
			for _, o := range f.foldSegment(seg, size) {
				f.emit(o, cp, cp+n)
			}
			i += len(seg)
			cp += n
		}
		out, from, to, space, last = f.out, f.from, f.to, f.space, f.last
	}
	f.out, f.from, f.to, f.space, f.last = out, from, to, space, last
}

func (f *refFolder) join(s string, j int) (next int, skipped int32, ok bool) {
	if !unicode.IsLetter(f.last) {
		return 0, 0, false
	}
	brk := false
	for j < len(s) {
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case lineBreak(r):
			brk = true
		case unicode.IsSpace(r) || dropped(r):
		default:
			if brk && unicode.IsLetter(r) {
				return j, skipped, true
			}
			return 0, 0, false
		}
		j += size
		skipped++
	}
	return 0, 0, false
}

func (f *refFolder) foldSegment(seg string, size int) string {
	if size != len(seg) {
		return foldSlow(seg)
	}
	r, _ := utf8.DecodeRuneInString(seg)
	if v, ok := f.memo[r]; ok {
		return v
	}
	var v string
	if c, ok := runeFolds.Load(r); ok {
		v = c.(string)
	} else {
		v = foldSlow(seg)
		runeFolds.Store(r, v)
	}
	if f.track {
		if f.memo == nil {
			f.memo = make(map[rune]string)
		}
		f.memo[r] = v
	}
	return v
}

// checkMapsAsBefore fails when the folded text of s, or the code points
// any byte maps to, differ from the per-byte folding's.
func checkMapsAsBefore(t *testing.T, s string, buf *foldBuf) {
	t.Helper()
	for _, norm := range []bool{false, true} {
		want, from, to := foldArrays(s, norm)
		for _, f := range []*folded{foldText(s, norm), buf.fold(s, norm)} {
			if f.s != want {
				t.Fatalf("fold(%q, %v) = %q, was %q", s, norm, f.s, want)
			}
			for i := range len(f.s) {
				if f.fromAt(i) != from[i] || f.toAt(i) != to[i] {
					t.Fatalf("fold(%q, %v): byte %d maps to [%d, %d), was [%d, %d)", s, norm, i, f.fromAt(i), f.toAt(i), from[i], to[i])
				}
			}
		}
	}
}

func TestFoldMapsAsBefore(t *testing.T) {
	var buf foldBuf
	for _, s := range foldMapSeeds() {
		checkMapsAsBefore(t, s, &buf)
	}
}

func foldMapSeeds() []string {
	return []string{"", " ", "  \t\n ", "Plain text, Here.", "Die Infor\u00admation über\u200b alles", "the infor-\nmation über",
		"Le ﬁnancement ﬂotte  ﬃ", "Il dit “Borrower’s” ici — 2010–\n2015", "ab\xffcd\xfeé", "İstanbul ǅemal ß ﬀ",
		"e\u0301te\u0301 A\u030a  x\u00a0\u00a0y\u3000z", "１２３ ＡＢＣ ㎏", "a\u00a8b  \u00a8 c", "東京 office\r\n\r\nnext",
		"Zürich aÅ f\u02b0 x\xc0y A\u0345 K\u212a q\u00dfx I\u0307 \u01c4z", genText(5, 3000), ocrNoise(5, genText(6, 1500), 20)}
}

func FuzzFoldMaps(f *testing.F) {
	for _, s := range foldMapSeeds() {
		f.Add(s)
	}
	var buf foldBuf
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<14 {
			return
		}
		checkMapsAsBefore(t, s, &buf)
	})
}
