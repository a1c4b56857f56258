package verify

import (
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// names: a proper name, defined term or drug of the claim that none of its
// accepted chunks (nor their section headings or document id) holds is
// not supported. The first word of a sentence, reference words (Clause,
// Section), months and a name that ends in a document word ("the Expense
// Policy") are not checked.
func (m *meaningScanner) names(evs []meaningEvidence, res *meaningResult) {
	toks := m.claim.toks
	for k := 0; k < len(toks); k++ {
		// A run of capitalized words: one name.
		if toks[k].cap && !toks[k].initial && toks[k].flags&fNameStop == 0 && !hasDigit(toks[k].w) {
			end := k + 1
			for end < len(toks) && toks[end].cap && toks[end].brk == brkNone {
				end++
			}
			docName := toks[end-1].flags&fDocWord != 0
			// "Side A" for the evidence's "Insuring Agreement A": a trade's
			// name for a part the evidence designates by the same letter.
			docName = docName || end-k == 2 && m.designatedIn(evs, end-1)
			// A name spelt out where the evidence abbreviates it ("Chief
			// Financial Officer" for "CFO") is the evidence's own.
			spelt := end-k >= 2 && heldBy(evs, m.claim.initials(k, end))
			for j := k; j < end && !docName && !spelt; j++ {
				tok := &toks[j]
				w := strings.TrimSuffix(strings.TrimSuffix(m.claim.s[tok.start:tok.end], "'s"), "’s")
				if tok.flags&fNameStop != 0 || hasDigit(tok.w) || utf8.RuneCountInString(w) < 2 || currencyCodes[w] || currencyWords[tok.w] != "" || moneyWords[tok.w] ||
					unitOfNumber(m.claim.s, tok.start, w) {
					continue
				}
				if !heldBy(evs, w) && !m.cutWord(j, evs) && !(acronym(w) && len(w) <= 8 && spelledOut(evs, w)) &&
					!(dotted(m.claim.s, tok.end) && acronym(strings.ReplaceAll(w, ".", "")) && spelledOut(evs, strings.ReplaceAll(w, ".", ""))) &&
					!(pluralAcronym(w) && spelledOut(evs, w[:len(w)-1])) && !m.inHead(evs, w) &&
					!heldAnotherWay(evs, w) {
					m.add(res, "name", reasonName+":"+w, w, "")
					res.unsupported = true
				}
			}
			k = end - 1
			continue
		}
		if !toks[k].cap && lex.drugName(toks[k].w) && !heldBy(evs, toks[k].w) && !m.cutWord(k, evs) && !m.inHead(evs, toks[k].w) &&
			!heldAnotherWay(evs, toks[k].w) {
			w := m.claim.s[toks[k].start:toks[k].end]
			m.add(res, "name", reasonName+":"+w, w, "")
			res.unsupported = true
		}
	}
}

// designatedIn reports whether claim token d is a one-letter or numeral
// designator ("A", "B", "2") that a cited chunk puts after a capitalized
// word of its own ("Insuring Agreement A", "Coverage B").
func (m *meaningScanner) designatedIn(evs []meaningEvidence, d int) bool {
	t := &m.claim.toks[d]
	w := m.claim.s[t.start:t.end]
	if len(w) != 1 || !(w[0] >= 'A' && w[0] <= 'Z' || w[0] >= '1' && w[0] <= '9') {
		return false
	}
	for i := range evs {
		c := evs[i].chunk
		for from := 0; ; {
			j := strings.Index(c[from:], " "+w)
			if j < 0 {
				break
			}
			j += from
			end := j + 1 + len(w)
			from = end
			if end < len(c) && isWordByte(c[end]) {
				continue
			}
			k := j
			for k > 0 && isWordByte(c[k-1]) {
				k--
			}
			if k < j && c[k] >= 'A' && c[k] <= 'Z' && j-k >= 3 {
				return true
			}
		}
	}
	return false
}

// codeNames: a path, setting, identifier or package name of the claim
// ("/usr/lib/python3/dist-packages", "panicnil=1", "pull.rebase",
// "child_process.fork()", "python3-doc") that no accepted chunk, section
// heading, document id or document opening holds, as written, is not
// supported: code is a name whose every character counts, and an answer
// that changes one names something the passage does not.
func (m *meaningScanner) codeNames(evs []meaningEvidence, res *meaningResult) {
	s := m.claim.s
	for i := 0; i < len(s); {
		for i < len(s) && isSpaceByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isSpaceByte(s[j]) {
			j++
		}
		field := s[i:j]
		i = j
		if !codeMark(field) {
			continue // most words of a claim
		}
		w := strings.Trim(field, "\"'`()[]{},;:.!?“”‘’")
		// "fork()'s stdio option": the possessive is English, not code.
		if base, ok := strings.CutSuffix(w, "'s"); ok {
			w = base
		} else if base, ok := strings.CutSuffix(w, "’s"); ok {
			w = base
		}
		if !codeLike(w) || m.codeHeld(evs, w) {
			continue
		}
		m.add(res, "name", reasonName+":"+w, w, "")
		res.unsupported = true
	}
}

// codeMark reports whether a field holds a mark code needs: a slash, an
// underscore, an equals sign, a parenthesis, a hyphen after its first
// byte, or a dot before a word character (not a sentence's stop).
func codeMark(f string) bool {
	for k := 0; k < len(f); k++ {
		switch f[k] {
		case '/', '_', '=', '(':
			return true
		case '-':
			if k > 0 {
				return true
			}
		case '.':
			if k+1 < len(f) && isWordByteASCII(f[k+1]) {
				return true
			}
		}
	}
	return false
}

// codeLike reports whether a word of a claim is code: a path or URL, or a
// word joined by an underscore, an equals sign, a dot between two
// two-letter parts of a lower-case word ("pull.rebase"; not "e.g.", "x.f"
// or the product name "Node.js"), a call's "()", or a
// hyphen in a lower-case word that starts with a letter and holds a digit
// ("python3-doc"; "8-bit" is English). Numbers,
// dates and versions ("1.21", "2024-06-30") are figures, not code.
func codeLike(w string) bool {
	if len(w) < 3 {
		return false
	}
	letters, digits, upper := 0, 0, false
	for k := 0; k < len(w); k++ {
		switch c := w[k]; {
		case 'a' <= c && c <= 'z':
			letters++
		case 'A' <= c && c <= 'Z':
			letters, upper = letters+1, true
		case '0' <= c && c <= '9':
			digits++
		}
	}
	if letters == 0 {
		return false
	}
	switch {
	case strings.Contains(w, "://"), w[0] == '/' && letters > 1, strings.Count(w, "/") >= 2,
		strings.Contains(w, "()"):
		return true
	}
	for k := 1; k+1 < len(w); k++ {
		c := w[k]
		if (c == '_' || c == '=') && isWordByteASCII(w[k-1]) && isWordByteASCII(w[k+1]) {
			return true
		}
		if c == '.' && !upper && k >= 2 && k+2 < len(w) && asciiLetter(w[k-2]) && asciiLetter(w[k-1]) &&
			asciiLetter(w[k+1]) && asciiLetter(w[k+2]) {
			return true
		}
	}
	return !upper && digits > 0 && asciiLetter(w[0]) && strings.Contains(w, "-") && !sizeCompound(w) && !prefixedNumber(w)
}

// prefixedNumber reports whether w is an English prefix on a number or a
// version: "pre-1.24", "post-2020", "non-3rd".
func prefixedNumber(w string) bool {
	for _, p := range [...]string{"pre-", "post-", "non-", "mid-", "sub-", "over-", "under-"} {
		if rest, ok := strings.CutPrefix(w, p); ok && rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			return true
		}
	}
	return false
}

// sizeCompound reports whether w is letters, a hyphen and digits: English
// for a size or a rank ("a length-5 vector", "a top-10 list"), not a
// package name ("python3-doc", "libc6-dev").
func sizeCompound(w string) bool {
	i := strings.IndexByte(w, '-')
	if i <= 0 || i == len(w)-1 {
		return false
	}
	for k := 0; k < len(w); k++ {
		if c := w[k]; k < i && !asciiLetter(c) || k > i && !('0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func asciiLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// codeHeld reports whether a cited chunk, its section headings, its
// document id or its document's opening holds w, ignoring case.
func (m *meaningScanner) codeHeld(evs []meaningEvidence, w string) bool {
	for i := range evs {
		e := &evs[i]
		if containsFold(e.chunk, w) || containsFold(e.document, w) {
			return true
		}
		for _, h := range e.section {
			if containsFold(h, w) {
				return true
			}
		}
		if m.head != nil && containsFold(m.head(e.version), w) {
			return true
		}
	}
	return false
}

func containsFold(s, w string) bool {
	if strings.Contains(s, w) || strings.Contains(strings.ToLower(s), strings.ToLower(w)) {
		return true
	}
	// "within =chapter" holds "within=chapter": a PDF's spacing around an
	// equals sign is no other setting.
	if strings.Contains(w, "=") && strings.Contains(strings.ToLower(strings.NewReplacer(" =", "=", "= ", "=").Replace(s)), strings.ToLower(w)) {
		return true
	}
	// "fork(modulePath[, args])" holds "fork()": a call named without its
	// arguments.
	if base, ok := strings.CutSuffix(w, "()"); ok && base != "" && strings.Contains(strings.ToLower(s), strings.ToLower(base)+"(") {
		return true
	}
	// "unwind protect" holds "unwind_protect": a PDF's font may draw the
	// underscore as a gap, which its text keeps as a space.
	if strings.Contains(w, "_") && strings.Contains(strings.ToLower(s), strings.ToLower(strings.ReplaceAll(w, "_", " "))) {
		return true
	}
	// "fips140=only" is held where the setting is named and "only" is one
	// of its values, quoted: a list of a setting's values.
	if name, value, ok := strings.Cut(w, "="); ok && name != "" && isLetters(value) &&
		strings.Contains(strings.ToLower(s), strings.ToLower(name)) && quotedIn(s, value) {
		return true
	}
	// ”1”/”I”/”l” holds 1/I/l: prose quotes the parts of what it names.
	if strings.ContainsAny(s, "\"'`“”‘’") {
		return strings.Contains(strings.ToLower(quoteMarks.Replace(s)), strings.ToLower(w))
	}
	return false
}

// isLetters reports whether s is one or more ASCII letters.
func isLetters(s string) bool {
	for k := 0; k < len(s); k++ {
		if !asciiLetter(s[k]) {
			return false
		}
	}
	return s != ""
}

// quotedIn reports whether s holds v between quotation marks or backticks.
func quotedIn(s, v string) bool {
	for _, q := range [...][2]string{{"\"", "\""}, {"`", "`"}, {"“", "”"}, {"”", "”"}, {"'", "'"}, {"‘", "’"}} {
		if strings.Contains(s, q[0]+v+q[1]) {
			return true
		}
	}
	return false
}

// quoteMarks removes quotation marks.
var quoteMarks = strings.NewReplacer("\"", "", "'", "", "`", "", "“", "", "”", "", "‘", "", "’", "")

// initials returns the first letters of the capitalized tokens [from, to).
func (t *mtext) initials(from, to int) string {
	var b [16]byte
	n := 0
	for k := from; k < to && n < len(b); k++ {
		if c := t.s[t.toks[k].start]; 'A' <= c && c <= 'Z' {
			b[n] = c
			n++
		}
	}
	return string(b[:n])
}

// spelledOut reports whether a cited chunk spells out an acronym of the
// claim as capitalized words ("Chief Financial Officer" for "CFO";
// "of", "and", "the", "for" and "&" may stand between them; an X may
// stand for "ex").
func spelledOut(evs []meaningEvidence, acr string) bool {
	for i := range evs {
		// Hyphens part words too: "first-in-first-out" spells out FIFO.
		words := strings.FieldsFunc(evs[i].chunk, func(r rune) bool { return unicode.IsSpace(r) || r == '-' })
		for start := range words {
			n := 0
			for k := start; k < len(words) && n < len(acr); k++ {
				w := strings.Trim(words[k], ",;:()\"'.")
				if w == "" {
					break
				}
				if n > 0 && (w == "of" || w == "and" || w == "the" || w == "for" || w == "&") {
					continue
				}
				if w[0] != acr[n] && w[0]&^0x20 != acr[n] && !exInitial(w, acr[n]) {
					break
				}
				n++
			}
			if n == len(acr) {
				return true
			}
		}
	}
	return false
}

// exInitial reports whether an acronym's X stands for a word's "ex"
// ("XPL": excess of policy limits; "XOL": excess of loss).
func exInitial(w string, letter byte) bool {
	return letter == 'X' && len(w) > 2 && w[0]|0x20 == 'e' && w[1]|0x20 == 'x'
}

// inHead reports whether the opening of a cited version (its title and
// parties: "KESTREL HARBOR GROUP LTD … Borrower: Kestrel Harbor Group Ltd")
// names w: a name the document states for itself holds for every chunk of
// it. Read only for a name no chunk holds.
func (m *meaningScanner) inHead(evs []meaningEvidence, w string) bool {
	if m.head == nil {
		return false
	}
	for i := range evs {
		if h := m.head(evs[i].version); h != "" && (containsWordFold(h, w) || containsWordFold(h, w+"s")) {
			return true
		}
	}
	return false
}

// cutWord reports whether claim token k is its first or last word and a
// piece of a word of a cited chunk: a quote cut mid-word ("… Policy FI" of
// "FIN-07") names nothing new.
func (m *meaningScanner) cutWord(k int, evs []meaningEvidence) bool {
	toks := m.claim.toks
	if k != 0 && k != len(toks)-1 {
		return false
	}
	w := m.claim.s[toks[k].start:toks[k].end]
	for i := range evs {
		if strings.Contains(evs[i].chunk, w) {
			return true
		}
	}
	return false
}

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}

// heldBy reports whether a word appears, as a whole word and ignoring
// case, in a cited chunk, its section path or its document id.
func heldBy(evs []meaningEvidence, w string) bool {
	// A defined term in the singular or the plural is the same name:
	// "an Event of Default" under "Events of Default".
	if heldExactly(evs, w) || heldExactly(evs, w+"s") {
		return true
	}
	return strings.HasSuffix(w, "s") && (len(w) > 3 || acronym(w[:len(w)-1])) && heldExactly(evs, w[:len(w)-1]) // "NAs" for "NA"
}

// heldAnotherWay reports whether the evidence writes the name w in one of
// the other ways a correct paraphrase meets it (corpus/outside heldout7),
// tried last, since it reads whole chunks again:
// hyphens as spaces, or its parts apart ("D-type" for "D type",
// "MLCFG-to-WhyML" for "from the MLCFG language to regular WhyML"); a
// CamelCase name by its capitals ("NetworkManager" for "NM"); accents
// ("Bezier" for "Bézier"); broken at a line's end ("Be-\nhind"); a unit
// written onto its number ("83MiB").
func heldAnotherWay(evs []meaningEvidence, w string) bool {
	if strings.Contains(w, "-") {
		if heldExactly(evs, strings.ReplaceAll(w, "-", " ")) {
			return true
		}
		all := true
		for part := range strings.SplitSeq(w, "-") {
			all = all && part != "" && heldExactly(evs, part)
		}
		if all {
			return true
		}
	}
	if caps := capitals(w); len(caps) >= 2 && len(caps) < len(w) && heldExactly(evs, caps) {
		return true
	}
	for _, place := range placesOf(w) {
		if heldExactly(evs, place) {
			return true // "North American parts demand" for "parts demand in North America"
		}
	}
	plain := withoutAccents(w)
	for i := range evs {
		c := evs[i].chunk
		if (plain != w || hasAccented(c)) && containsWordFold(withoutAccents(c), plain) {
			return true
		}
		// "83MiB" holds "MiB": a unit written onto its number.
		if afterDigits(c, w) {
			return true
		}
		// "Be-\nhind Bars": a word broken at a line's end.
		if strings.Contains(c, "-\n") && containsWordFold(strings.ReplaceAll(c, "-\n", ""), w) {
			return true
		}
	}
	return false
}

// dotted reports whether the claim's word ending at byte end is a dotted
// abbreviation ("U.S." reads as the word "U.S"): its letters are an
// acronym spelled out as any other ("United States").
func dotted(s string, end int) bool { return end < len(s) && s[end] == '.' }

// pluralAcronym reports whether w is an acronym's plural ("IRAs", for
// "individual retirement accounts").
func pluralAcronym(w string) bool {
	return len(w) >= 3 && len(w) <= 9 && w[len(w)-1] == 's' && acronym(w[:len(w)-1])
}

// placesOf returns the places a demonym may be made from: "American"
// from "America", "European" from "Europe", "Canadian" from "Canada",
// "Japanese" from "Japan", "Chinese" from "China".
func placesOf(w string) []string {
	if p := lex.demonyms[w]; p != nil {
		return p // "Dutch": "Netherlands" (meaning-words.json)
	}
	n := len(w)
	if n < 5 || !isUpper(rune(w[0])) {
		return nil
	}
	switch {
	case strings.HasSuffix(w, "ian"):
		return []string{w[:n-1], w[:n-3] + "a"}
	case strings.HasSuffix(w, "an"):
		return []string{w[:n-1], w[:n-2]}
	case strings.HasSuffix(w, "ese"):
		return []string{w[:n-3], w[:n-3] + "a"}
	}
	return nil
}

// afterDigits reports whether s holds w right after a digit, with no
// word character after it ("83MiB").
func afterDigits(s, w string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if i > 0 && s[i-1] >= '0' && s[i-1] <= '9' && (i+len(w) == len(s) || !isWordByteASCII(s[i+len(w)])) {
			return true
		}
		from = i + 1
	}
}

// capitals returns the capital letters of a CamelCase word, or "" when it
// has fewer than two or ends in one ("NetworkManager": "NM").
func capitals(w string) string {
	var b [8]byte
	n := 0
	for k := 0; k < len(w); k++ {
		if c := w[k]; 'A' <= c && c <= 'Z' {
			if n == len(b) {
				return ""
			}
			b[n] = c
			n++
		} else if !('a' <= c && c <= 'z') {
			return ""
		}
	}
	if n < 2 || isUpper(rune(w[len(w)-1])) {
		return ""
	}
	return string(b[:n])
}

// withoutAccents is s with its combining marks removed (é to e), as
// compared, not as shown: decomposed, without the marks.
func withoutAccents(s string) string {
	if !hasAccented(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(s))
}

// hasAccented reports whether s holds a Latin letter with a diacritic
// (U+00C0 to U+024F, the Latin-1 and Extended letters) or a combining
// mark: what withoutAccents changes, which curly quotes and dashes are not.
func hasAccented(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < utf8.RuneSelf {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0xC0 && r <= 0x24F && r != 0xD7 && r != 0xF7 || r >= 0x300 && r <= 0x36F {
			return true
		}
		i += size - 1
	}
	return false
}

func heldExactly(evs []meaningEvidence, w string) bool {
	for i := range evs {
		// A quote cut mid-word ("… Policy FI" of "FIN-07") holds its own
		// last and first words.
		if e := &evs[i]; e.spanTo > e.spanFrom && e.spanTo <= len(e.context) {
			span := e.context[e.spanFrom:e.spanTo]
			if strings.HasSuffix(span, w) || strings.HasPrefix(span, w) {
				return true
			}
		}
		if containsWordFold(evs[i].chunk, w) || containsWordFold(evs[i].document, w) {
			return true
		}
		for _, s := range evs[i].section {
			if containsWordFold(s, w) {
				return true
			}
		}
	}
	return false
}

// containsWordFold finds w in s as a whole word, ignoring case; the exact
// spelling is tried first, since names keep their capitals.
func containsWordFold(s, w string) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			break
		}
		if wholeWord(s, from+i, from+i+len(w)) {
			return true
		}
		from += i + 1
	}
	n := len(w)
	if n == 0 {
		return false
	}
	if c := w[0]; c < 0x80 && isWordRune(rune(c)) {
		// Only where the first letter stands, in either case.
		lo, up := c|0x20, c&^0x20
		if c < 'A' {
			lo, up = c, c // a digit
		}
		// The next place of each case, each found once: searching both
		// again from every candidate read the text once per candidate.
		end := len(s) - n + 1
		nextLo, nextUp := nextByte(s, 0, end, lo), nextByte(s, 0, end, up)
		for {
			i := min(nextLo, nextUp)
			if i >= end {
				return false
			}
			if strings.EqualFold(s[i:i+n], w) && wholeWord(s, i, i+n) {
				return true
			}
			if nextLo == i {
				nextLo = nextByte(s, i+1, end, lo)
			}
			if nextUp == i {
				nextUp = nextByte(s, i+1, end, up)
			}
		}
	}
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], w) && wholeWord(s, i, i+n) {
			return true
		}
	}
	return false
}

// nextByte returns the first offset in [from, end) of s holding c, or end.
func nextByte(s string, from, end int, c byte) int {
	if from >= end {
		return end
	}
	if j := strings.IndexByte(s[from:end], c); j >= 0 {
		return from + j
	}
	return end
}

func wholeWord(s string, i, j int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWordRune(r) {
			return false
		}
	}
	if j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); isWordRune(r) {
			return false
		}
	}
	return true
}

// roles: a name the claim binds to a role ("Alder Street Bank is the
// Arranger", "the Insured may cancel") that the evidence binds, without
// ambiguity, to another ("Alder Street Bank, as Agent", "the Insurer may
// cancel"), while it knows the claim's name too.
func (m *meaningScanner) roles(evs []meaningEvidence, res *meaningResult) {
	claimB := bindings(&m.claim, m.claimB[:0])
	m.claimB = claimB
	if len(claimB) == 0 {
		return
	}
	evB := m.evB[:0]
	for i := range evs {
		evB = bindings(&m.ev[i], evB)
	}
	m.evB = evB
	for _, cb := range claimB {
		var others []binding
		same := false
		for _, eb := range evB {
			if eb.verb != cb.verb {
				continue
			}
			switch {
			case cb.verb != "" && eb.role == cb.role, cb.verb == "" && eb.role == cb.role && sameName(eb.name, cb.name):
				same = true
			case cb.verb == "" && sameName(eb.name, cb.name) != (eb.role == cb.role):
				others = append(others, eb)
			case cb.verb != "" && eb.role != cb.role && sameObject(cb, eb):
				// another party doing the same to the same thing: "the
				// Insured pays the premium" does not answer "the Insurer
				// pays claims"
				others = append(others, eb)
			}
		}
		if same || len(others) == 0 || !heldBy(evs, cb.subject()) {
			continue
		}
		if cb.verb != "" && distinctRoles(others) > 1 {
			continue // the evidence gives the verb to several: no clear binding
		}
		o := others[0]
		m.add(res, "role", reasonRole, cb.text, o.text)
		res.contradicted = true
	}
}

// sameName reports whether two lower-cased names are one, or one is the
// other shortened at word boundaries ("street bank", "alder street bank").
func sameName(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.Contains(" "+b+" ", " "+a+" ")
}

func distinctRoles(bs []binding) int {
	n := 0
	for i, b := range bs {
		dup := false
		for _, c := range bs[:i] {
			if c.role == b.role {
				dup = true
			}
		}
		if !dup {
			n++
		}
	}
	return n
}

// binding ties a name to a role ("X, as Agent": name X, role agent) or a
// defined term to what it does ("the Insurer may cancel": role insurer,
// verb cancel).
type binding struct {
	name, role, verb string
	text             string
	object           [4]uint32 // stems of the content words after the verb
}

// moneyWords name money without being names: the figure check reads the
// amount ("75 Pounds").
var moneyWords = map[string]bool{"pound": true, "pounds": true, "pence": true, "cent": true, "cents": true,
	"rupee": true, "rupees": true, "krona": true, "kronor": true, "krone": true, "kroner": true}

// sameObject reports whether two verb bindings share a word of their
// objects, or neither has one ("may cancel" / "may cancel").
func sameObject(a, b binding) bool {
	if a.object[0] == 0 && b.object[0] == 0 {
		return true
	}
	for _, x := range a.object {
		for _, y := range b.object {
			if x != 0 && x == y {
				return true
			}
		}
	}
	return false
}

// subject is the first word of the bound name: enough to know whether the
// evidence knows the name at all.
func (b binding) subject() string {
	w, _, _ := strings.Cut(b.name, " ")
	return w
}

// bindings finds the role bindings of a text: `NAME (the "ROLE")`,
// `NAME, as ROLE`, `NAME acts as ROLE`, `NAME is the ROLE`, and a defined
// term as the subject of a verb: `the ROLE [may|shall|must …] [not] VERB`,
// `the ROLE's right to VERB`.
func bindings(t *mtext, out []binding) []binding {
	toks := t.toks
	for k := 0; k < len(toks); k++ {
		if !toks[k].cap || toks[k].flags&fNameStop != 0 && toks[k].w != "the" {
			continue
		}
		end := k + 1
		for end < len(toks) && toks[end].cap && (toks[end].brk == brkNone || toks[end].brk == brkComma && corporateSuffix[toks[end].w]) {
			end++
		}
		name := t.lowerRun(k, end)
		if name == "" {
			continue
		}
		j := end
		// NAME (the "ROLE") / NAME, as ROLE / NAME acts as ROLE / NAME is the ROLE
		if j < len(toks) && toks[j].w == "the" && j+1 < len(toks) && toks[j+1].cap && strings.Contains(t.s[toks[end-1].end:toks[j].start], "(") {
			if p := t.placeOf(k); p >= 0 {
				// "Quillmoor Mutual Insurance Company, of Bramford (the
				// "Reinsured")": the company is defined, with its seat (a
				// quote cut at the seat binds that).
				out = append(out, binding{name: t.lowerRun(p, k-1), role: toks[j+1].stem, text: t.words(p, j+2)})
			}
			out = append(out, binding{name: name, role: toks[j+1].stem, text: t.words(k, j+2)})
		} else if j+1 < len(toks) && (toks[j].w == "as" || toks[j].w == "acts" || toks[j].w == "act" || toks[j].w == "acting") {
			r := j + 1
			if toks[j].w != "as" && toks[r].w == "as" {
				r++
			}
			if r < len(toks) && toks[r].w == "the" {
				r++
			}
			if r+1 < len(toks) && toks[r].flags&fRole == 0 && !toks[r].cap && toks[r+1].flags&fRole != 0 {
				r++ // "as administrative agent"
			}
			if r < len(toks) && (toks[r].cap || toks[r].flags&fRole != 0) && (toks[j].w != "as" || toks[j].brk == brkComma || toks[r].flags&fRole != 0) {
				out = append(out, binding{name: name, role: toks[r].stem, text: t.words(k, r+1)})
			}
		} else if j+2 < len(toks) && toks[j].w == "is" && toks[j+1].w == "the" && (toks[j+2].cap || toks[j+2].flags&fRole != 0) &&
			(j+3 >= len(toks) || toks[j+3].brk != brkNone || !toks[j+3].cap) {
			out = append(out, binding{name: name, role: toks[j+2].stem, text: t.words(k, j+3)})
		}
		// the ROLE [modal] [not|only] VERB: a defined term as subject.
		s := k
		if toks[s].w == "the" {
			s++
		}
		if s > 0 && toks[s-1].w == "the" && end-s == 1 {
			v := end
			if v < len(toks) && (toks[v].w == "'s" || strings.HasSuffix(toks[k].w, "'s") || strings.HasSuffix(toks[k].w, "’s")) {
				v++
			}
			if v+1 < len(toks) && (toks[v].w == "right" || toks[v].w == "option" || toks[v].w == "obligation") && toks[v+1].w == "to" {
				v += 2
			}
			for v < len(toks) && v < end+3 && (toks[v].info != nil && len(toks[v].info.phrases) > 0 && !toks[v].content || toks[v].neg || toks[v].flags&fRestrict != 0) && toks[v].brk == brkNone {
				v++
			}
			if v < len(toks) && v > end && toks[v].content && !toks[v].cap && toks[v].brk == brkNone {
				b := binding{name: strings.TrimSuffix(strings.TrimSuffix(toks[s].w, "'s"), "’s"), role: toks[s].stem,
					verb: toks[v].stem, text: t.words(s-1, v+1)}
				n := 0
				for k := v + 1; k < len(toks) && n < len(b.object) && toks[k].brk < brkClause; k++ {
					if toks[k].content {
						b.object[n] = toks[k].hash
						n++
					}
				}
				out = append(out, b)
			}
		}
		k = end - 1
	}
	return out
}

// placeOf returns, for a name at token k written as a party's seat ("…
// Company, of Bramford"), where the party's name starts, or -1.
func (t *mtext) placeOf(k int) int {
	toks := t.toks
	if k < 2 || toks[k-1].w != "of" || toks[k-1].brk != brkComma || !toks[k-2].cap {
		return -1
	}
	p := k - 2
	for p > 0 && toks[p-1].cap && toks[p].brk == brkNone {
		p--
	}
	if t.lowerRun(p, k-1) == "" {
		return -1
	}
	return p
}

// corporateSuffix ends a company's name after a comma: "Alder Street
// Bank, N.A.", "Kestrel Harbor, Inc.".
var corporateSuffix = map[string]bool{"n.a": true, "inc": true, "ltd": true, "llc": true, "plc": true, "gmbh": true,
	"ag": true, "sa": true, "lp": true, "llp": true, "bv": true, "nv": true, "co": true, "corp": true}

// lowerRun returns the capitalized words [from, to) lower-cased, without
// a leading "the", or "" for a run of stop words.
func (t *mtext) lowerRun(from, to int) string {
	for from < to && t.toks[from].w == "the" {
		from++
	}
	if from >= to {
		return ""
	}
	// Into the text's arena, like its lower-cased words: the names live
	// as long as the scan.
	start := len(t.lower)
	for k := from; k < to; k++ {
		if k > from {
			t.lower = append(t.lower, ' ')
		}
		t.lower = append(t.lower, strings.TrimRightFunc(t.toks[k].w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })...)
	}
	b := t.lower[start:]
	return unsafe.String(unsafe.SliceData(b), len(b))
}
