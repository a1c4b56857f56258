package pdf

// A small PDF/PostScript tokenizer over a byte slice. It serves three
// readers: content streams (interp.go), CMaps (cmap.go) and the file-level
// syntax the repair code needs (xref.go). The library's own lexer works on an
// io.Reader, panics on odd bytes and cannot skip inline-image data, so a
// content stream with an inline image would otherwise lose the rest of its
// page.

type tokKind uint8

const (
	tEOF tokKind = iota
	tNum
	tName
	tString
	tOp // keyword or operator, including true, false, null, R, obj
	tArrOpen
	tArrClose
	tDictOpen
	tDictClose
	tProcOpen
	tProcClose
)

type token struct {
	kind  tokKind
	num   float64
	isInt bool
	// b holds the name (without the slash), the decoded string, or the
	// keyword. It aliases the source or the lexer's scratch arena and is
	// valid until the arena is reset.
	b   []byte
	pos int // offset of the token's first byte in the source
}

type lexer struct {
	src   []byte
	pos   int
	arena []byte // decoded strings and escaped names live here
}

func isWhite(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func isDelim(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isRegular(c byte) bool { return !isWhite(c) && !isDelim(c) }

// skipSpace skips white space and comments.
func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if isWhite(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.src) && l.src[l.pos] != '\n' && l.src[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		return
	}
}

// next returns the next token. It never fails: malformed input yields
// operators made of the odd bytes, which interpreters ignore.
func (l *lexer) next() token {
	l.skipSpace()
	if l.pos >= len(l.src) {
		return token{kind: tEOF, pos: l.pos}
	}
	start := l.pos
	c := l.src[l.pos]
	switch c {
	case '[':
		l.pos++
		return token{kind: tArrOpen, pos: start}
	case ']':
		l.pos++
		return token{kind: tArrClose, pos: start}
	case '{':
		l.pos++
		return token{kind: tProcOpen, pos: start}
	case '}':
		l.pos++
		return token{kind: tProcClose, pos: start}
	case '<':
		if l.pos+1 < len(l.src) && l.src[l.pos+1] == '<' {
			l.pos += 2
			return token{kind: tDictOpen, pos: start}
		}
		l.pos++
		return token{kind: tString, b: l.hexString(), pos: start}
	case '>':
		if l.pos+1 < len(l.src) && l.src[l.pos+1] == '>' {
			l.pos += 2
			return token{kind: tDictClose, pos: start}
		}
		l.pos++
		return token{kind: tOp, b: l.src[start:l.pos], pos: start}
	case '(':
		l.pos++
		return token{kind: tString, b: l.literalString(), pos: start}
	case ')':
		l.pos++
		return token{kind: tOp, b: l.src[start:l.pos], pos: start}
	case '/':
		l.pos++
		return token{kind: tName, b: l.name(), pos: start}
	}
	for l.pos < len(l.src) && isRegular(l.src[l.pos]) {
		l.pos++
	}
	w := l.src[start:l.pos]
	if n, isInt, ok := parseNumber(w); ok {
		return token{kind: tNum, num: n, isInt: isInt, b: w, pos: start}
	}
	return token{kind: tOp, b: w, pos: start}
}

// parseNumber parses PDF integers and reals ("12", "-3.5", ".5", "4.",
// "+7"). It tolerates a doubled sign as some producers write "--5".
func parseNumber(w []byte) (float64, bool, bool) {
	i := 0
	neg := false
	for i < len(w) && (w[i] == '-' || w[i] == '+') {
		if w[i] == '-' {
			neg = !neg
		}
		i++
	}
	if i == len(w) {
		return 0, false, false
	}
	var ip float64
	digits := 0
	for i < len(w) && w[i] >= '0' && w[i] <= '9' {
		ip = ip*10 + float64(w[i]-'0')
		i++
		digits++
	}
	isInt := true
	if i < len(w) && w[i] == '.' {
		isInt = false
		i++
		scale := 0.1
		for i < len(w) && w[i] >= '0' && w[i] <= '9' {
			ip += float64(w[i]-'0') * scale
			scale /= 10
			i++
			digits++
		}
	}
	if i != len(w) || digits == 0 {
		return 0, false, false
	}
	if neg {
		ip = -ip
	}
	return ip, isInt, true
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (l *lexer) hexString() []byte {
	start := len(l.arena)
	hi := -1
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		v := unhex(c)
		if v < 0 {
			continue // white space or junk: skipped, as readers do
		}
		if hi < 0 {
			hi = v
		} else {
			l.arena = append(l.arena, byte(hi<<4|v))
			hi = -1
		}
	}
	if hi >= 0 {
		l.arena = append(l.arena, byte(hi<<4)) // odd digit count: last one padded with 0
	}
	return l.arena[start:len(l.arena):len(l.arena)]
}

func (l *lexer) literalString() []byte {
	// Fast path: no escapes and no nested parentheses, alias the source.
	for i := l.pos; i < len(l.src); i++ {
		c := l.src[i]
		if c == ')' {
			s := l.src[l.pos:i:i]
			l.pos = i + 1
			return s
		}
		if c == '\\' || c == '(' || c == '\r' {
			break
		}
	}
	start := len(l.arena)
	depth := 1
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return l.arena[start:len(l.arena):len(l.arena)]
			}
		case '\r':
			// An unescaped end of line is read as \n whatever its form.
			if l.pos < len(l.src) && l.src[l.pos] == '\n' {
				l.pos++
			}
			c = '\n'
		case '\\':
			if l.pos >= len(l.src) {
				continue
			}
			e := l.src[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.src) && l.src[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '7'; k++ {
						v = v*8 + int(l.src[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e // \( \) \\ and unknown escapes stand for the byte itself
				}
			}
		}
		l.arena = append(l.arena, c)
	}
	return l.arena[start:len(l.arena):len(l.arena)]
}

func (l *lexer) name() []byte {
	start := l.pos
	esc := false
	for l.pos < len(l.src) && isRegular(l.src[l.pos]) {
		if l.src[l.pos] == '#' {
			esc = true
		}
		l.pos++
	}
	raw := l.src[start:l.pos]
	if !esc {
		return raw
	}
	a := len(l.arena)
	for i := 0; i < len(raw); i++ {
		if raw[i] == '#' && i+2 < len(raw) && unhex(raw[i+1]) >= 0 && unhex(raw[i+2]) >= 0 {
			l.arena = append(l.arena, byte(unhex(raw[i+1])<<4|unhex(raw[i+2])))
			i += 2
			continue
		}
		l.arena = append(l.arena, raw[i])
	}
	return l.arena[a:len(l.arena):len(l.arena)]
}
