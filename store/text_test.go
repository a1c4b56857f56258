package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// alphabet mixes runes of every UTF-8 width, with ASCII first.
var alphabet = []rune{'a', 'Z', ' ', '\n', '\f', 'é', 'Ж', 'ع', '€', '日', '語', '😀', '𝄞'}

// randomText returns n runes drawn from alphabet, ASCII with probability pASCII.
func randomText(r *rand.Rand, n int, pASCII float64) string {
	var b strings.Builder
	for range n {
		if r.Float64() < pASCII {
			b.WriteRune(alphabet[r.IntN(5)])
		} else {
			b.WriteRune(alphabet[5+r.IntN(len(alphabet)-5)])
		}
	}
	return b.String()
}

// refByteOffset is the byte offset of code point cp of s, by rune slicing.
func refByteOffset(runes []rune, cp int) int { return len(string(runes[:cp])) }

// safely runs fn and turns a panic into a test error, so that one bad case
// does not hide the others.
func safely(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", what, r)
		}
	}()
	fn()
}

// checkText compares every offset conversion of txt with rune slicing of s.
func checkText(t *testing.T, s string, txt Text, spans [][2]int) {
	t.Helper()
	runes := []rune(s)
	n := len(runes)
	if got := txt.Len(); got != n {
		t.Fatalf("Len() = %d, want %d", got, n)
	}
	if got := string(txt.Bytes()); got != s {
		t.Fatalf("Bytes() differ from the input")
	}
	for cp := 0; cp <= n; cp++ {
		want := refByteOffset(runes, cp)
		if got := txt.ByteOffset(cp); got != want {
			t.Fatalf("ByteOffset(%d) = %d, want %d", cp, got, want)
		}
		if got := txt.CodePoint(want); got != cp {
			t.Fatalf("CodePoint(%d) = %d, want %d", want, got, cp)
		}
	}
	for _, sp := range spans {
		got, err := txt.Slice(sp[0], sp[1])
		if err != nil {
			t.Fatalf("Slice(%d, %d): %v", sp[0], sp[1], err)
		}
		if want := string(runes[sp[0]:sp[1]]); string(got) != want {
			t.Fatalf("Slice(%d, %d) = %q, want %q", sp[0], sp[1], got, want)
		}
	}
}

// allSpans returns spans between points around stride boundaries (the
// first and last ten of them) and some long ones.
func allSpans(n int) [][2]int {
	var spans [][2]int
	points := []int{0, 1, n / 3, n / 2, n - 1, n}
	strides := n / cpStride
	for i := 0; i <= strides; i++ {
		if i < 10 || i > strides-10 {
			k := i * cpStride
			points = append(points, k-1, k, k+1)
		}
	}
	for _, a := range points {
		for _, b := range points {
			if 0 <= a && a <= b && b <= n {
				spans = append(spans, [2]int{a, b})
			}
		}
	}
	return spans
}

func TestText(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		ascii bool // stored without an index
	}{
		{"empty", "", true},
		{"ascii", "hello, world\n\fpage two", true},
		{"2-byte", "héllo Ωμέγα", false},
		{"3-byte", "日本語のテキスト€", false},
		{"4-byte", "a😀b𝄞c", false},
		{"only 4-byte", "😀😀😀", false},
		{"long ascii", strings.Repeat("abcdefghij", 100), true},
		{"long 2-byte", strings.Repeat("é", 5*cpStride+7), false},
		{"long 3-byte", strings.Repeat("日", 4*cpStride), false},
		{"long 4-byte", strings.Repeat("😀", 3*cpStride+1), false},
		{"ascii then wide", strings.Repeat("x", 3*cpStride) + strings.Repeat("𝄞", 2*cpStride+5), false},
		{"wide then ascii", strings.Repeat("Ж", 2*cpStride-1) + strings.Repeat("x", 3*cpStride), false},
		{"one wide rune at the end", strings.Repeat("x", 10*cpStride) + "€", false},
		{"mixed", randomText(rand.New(rand.NewPCG(1, 2)), 9*cpStride+3, 0.7), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			txt := NewText([]byte(tt.s))
			if got := txt.index == nil; got != tt.ascii {
				t.Errorf("index == nil: got %v, want %v", got, tt.ascii)
			}
			spans := allSpans(utf8.RuneCountInString(tt.s))
			checkText(t, tt.s, txt, spans)

			loaded, err := loadText([]byte(tt.s), txt.encodeIndex())
			if err != nil {
				t.Fatalf("loadText(encodeIndex()): %v", err)
			}
			checkText(t, tt.s, loaded, spans)
		})
	}
}

func TestTextSliceRange(t *testing.T) {
	for _, s := range []string{"", "abc", "aé😀", strings.Repeat("日", 3*cpStride)} {
		txt := NewText([]byte(s))
		n := txt.Len()
		tests := []struct {
			start, end int
			ok         bool
		}{
			{0, 0, true},
			{0, n, true},
			{n, n, true},
			{-1, 0, false},
			{-1, n, false},
			{0, n + 1, false},
			{n + 1, n + 1, false},
			{n, n + 1, false},
			{1, 0, false},
			{n, n - 1, false},
			{-200, -100, false},
			{0, 1 << 40, false},
		}
		for _, tt := range tests {
			name := fmt.Sprintf("%d code points: [%d, %d)", n, tt.start, tt.end)
			safely(t, name, func() {
				got, err := txt.Slice(tt.start, tt.end)
				switch {
				case tt.ok && err != nil:
					t.Errorf("%s: got error %v, want none", name, err)
				case tt.ok && len(got) != txt.ByteOffset(tt.end)-txt.ByteOffset(tt.start):
					t.Errorf("%s: got %d bytes, want %d", name, len(got), txt.ByteOffset(tt.end)-txt.ByteOffset(tt.start))
				case !tt.ok && !errors.Is(err, ErrRange):
					t.Errorf("%s: got error %v, want ErrRange", name, err)
				case !tt.ok && got != nil:
					t.Errorf("%s: got %q with the error, want nil", name, got)
				}
			})
		}
	}
}

// TestTextRandom compares Text with []rune slicing on random strings of
// every mix of rune widths, directly and after a round trip through the
// stored form.
func TestTextRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 7))
	iters := 400
	if testing.Short() {
		iters = 50
	}
	for i := range iters {
		n := r.IntN(6 * cpStride)
		s := randomText(r, n, []float64{0, 0.5, 0.95, 1}[i%4])
		var spans [][2]int
		for range 50 {
			a, b := r.IntN(n+1), r.IntN(n+1)
			spans = append(spans, [2]int{min(a, b), max(a, b)})
		}
		txt := NewText([]byte(s))
		checkText(t, s, txt, spans)
		loaded, err := loadText([]byte(s), txt.encodeIndex())
		if err != nil {
			t.Fatalf("loadText: %v", err)
		}
		checkText(t, s, loaded, spans)
	}
}

func TestEncodeIndex(t *testing.T) {
	tests := []struct {
		s       string
		entries int
	}{
		{"", 0},
		{"ascii only", 0},
		{"é", 1},
		{strings.Repeat("é", cpStride), 1},
		{strings.Repeat("é", cpStride+1), 2},
		{strings.Repeat("x", 5*cpStride) + "é", 6},
	}
	for _, tt := range tests {
		idx := NewText([]byte(tt.s)).encodeIndex()
		if got, want := len(idx), 8+4*tt.entries+4*blockCount(len(tt.s))+4; got != want { // count, entries, block CRCs, seal
			t.Errorf("%.20q: index of %d bytes, want %d", tt.s, got, want)
			continue
		}
		if got, want := binary.BigEndian.Uint64(idx), uint64(utf8.RuneCountInString(tt.s)); got != want {
			t.Errorf("%.20q: index records %d code points, want %d", tt.s, got, want)
		}
	}
}

func flipped(b []byte, i int) []byte {
	b = append([]byte(nil), b...)
	b[i] ^= 0x10
	return b
}

// TestLoadTextUnsealed: an index written before seals (no CRC) still
// loads, and maps offsets as the sealed one does.
func TestLoadTextUnsealed(t *testing.T) {
	for _, s := range []string{"", "ascii only", strings.Repeat("é", 3*cpStride+5), strings.Repeat("x", 5*cpStride) + "é"} {
		txt := NewText([]byte(s))
		idx := txt.encodeIndex()
		old, err := loadText([]byte(s), idx[:8+len(txt.index)])
		if err != nil {
			t.Errorf("%.20q: unsealed index: %v", s, err)
			continue
		}
		sealed, err := loadText([]byte(s), idx)
		if err != nil {
			t.Fatalf("%.20q: sealed index: %v", s, err)
		}
		if old.blocks != nil || len(s) > 0 && sealed.blocks == nil {
			t.Errorf("%.20q: block checksums %x unsealed, %x sealed", s, old.blocks, sealed.blocks)
		}
		if old.Len() != sealed.Len() || string(old.index) != string(sealed.index) {
			t.Errorf("%.20q: unsealed index reads %d code points %x, sealed %d %x", s, old.Len(), old.index, sealed.Len(), sealed.index)
		}
	}
}

func TestLoadTextRejects(t *testing.T) {
	wide := []byte(strings.Repeat("é", 3*cpStride))
	good := NewText(wide).encodeIndex()
	old := good[:8+4*3] // as written before seals: count and entries
	withN := func(idx []byte, n uint64) []byte {
		idx = append([]byte(nil), idx...)
		binary.BigEndian.PutUint64(idx, n)
		return idx
	}
	tests := []struct {
		name string
		b    []byte
		idx  []byte
	}{
		{"nil index", wide, nil},
		{"short header", wide, good[:7]},
		{"partial entry", wide, good[:len(good)-1]},
		{"missing entry", wide, old[:len(old)-4]},
		{"sealed, missing entry", wide, slices.Delete(slices.Clone(good), 12, 16)},
		{"block checksum changed", wide, flipped(good, len(good)-5)},
		{"extra entry", wide, append(append([]byte(nil), good...), 0, 0, 0, 0)},
		{"entry changed", wide, flipped(good, 8+4*1+3)},
		{"seal changed", wide, flipped(good, len(good)-1)},
		{"unsealed entry past the text", wide, flipped(old, 8+4*1)},
		{"unsealed first entry not 0", wide, flipped(old, 8+3)},
		{"no entries for wide text", wide, good[:8]},
		{"ascii with wrong length", []byte("abc"), withN(NewText([]byte("abc")).encodeIndex(), 4)},
		{"length for more entries", wide, withN(good, 3*cpStride+1)},
		{"huge length", wide, withN(good, 1<<63)},
		{"max length", wide, withN(good, 1<<64-1)},
	}
	for _, tt := range tests {
		safely(t, tt.name, func() {
			if _, err := loadText(tt.b, tt.idx); !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: got error %v, want ErrCorrupt", tt.name, err)
			}
		})
	}
}

// exercise calls every method of txt over its range and checks that the
// results stay within the text. It reports a panic as an error.
func exercise(t *testing.T, what string, txt Text, r *rand.Rand) {
	t.Helper()
	safely(t, what, func() {
		n, size := txt.Len(), len(txt.Bytes())
		for cp := 0; cp <= n; cp += 1 + r.IntN(40) {
			if got := txt.ByteOffset(cp); got < 0 || got > size {
				t.Errorf("%s: ByteOffset(%d) = %d, want within [0, %d]", what, cp, got, size)
				return
			}
		}
		for off := 0; off <= size; off++ {
			if off < size && !utf8.RuneStart(txt.Bytes()[off]) {
				continue
			}
			if got := txt.CodePoint(off); got < 0 {
				t.Errorf("%s: CodePoint(%d) = %d, want >= 0", what, off, got)
				return
			}
		}
		spans := allSpans(n)
		for range 50 {
			a, b := r.IntN(n+1), r.IntN(n+1)
			spans = append(spans, [2]int{min(a, b), max(a, b)})
		}
		for _, sp := range spans {
			if _, err := txt.Slice(sp[0], sp[1]); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s: Slice(%d, %d): got error %v, want none or ErrCorrupt", what, sp[0], sp[1], err)
				return
			}
		}
	})
}

// TestLoadTextDamaged damages a stored index: loadText must refuse it, or
// give a Text whose methods return wrong but in-range results, never panic.
func TestLoadTextDamaged(t *testing.T) {
	s := strings.Repeat("x", 100) + strings.Repeat("é日😀", 3*cpStride)
	b := []byte(s)
	good := NewText(b).encodeIndex()
	entries := (len(good) - 8) / 4
	setEntry := func(idx []byte, i int, v uint32) { binary.BigEndian.PutUint32(idx[8+4*i:], v) }
	tests := []struct {
		name   string
		damage func(idx []byte)
	}{
		{"first entry past the end", func(idx []byte) { setEntry(idx, 0, uint32(len(b))) }},
		{"first entry far past the end", func(idx []byte) { setEntry(idx, 0, 1<<32-1) }},
		{"entries descending", func(idx []byte) {
			for i := range entries {
				setEntry(idx, i, uint32(len(b)-i*50))
			}
		}},
		{"entries all zero", func(idx []byte) {
			for i := range entries {
				setEntry(idx, i, 0)
			}
		}},
		{"entries all past the end", func(idx []byte) {
			for i := range entries {
				setEntry(idx, i, uint32(len(b)+1))
			}
		}},
		{"entry inside a rune", func(idx []byte) { setEntry(idx, 2, binary.BigEndian.Uint32(idx[8+8:])+1) }},
		{"last entry at the end", func(idx []byte) { setEntry(idx, entries-1, uint32(len(b))) }},
		{"length one less", func(idx []byte) {
			binary.BigEndian.PutUint64(idx, binary.BigEndian.Uint64(idx)-1)
		}},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			idx := append([]byte(nil), good...)
			tt.damage(idx)
			var txt Text
			var err error
			safely(t, "loadText", func() { txt, err = loadText(b, idx) })
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Errorf("got error %v, want ErrCorrupt", err)
				}
				return
			}
			exercise(t, tt.name, txt, r)
		})
	}
	// Random damage: flip bytes anywhere in the index. Stop at the first
	// failure: one case tells the story.
	t.Run("random", func(t *testing.T) {
		for i := 0; i < 300 && !t.Failed(); i++ {
			idx := append([]byte(nil), good...)
			for range 1 + r.IntN(4) {
				idx[r.IntN(len(idx))] ^= byte(1 + r.IntN(255))
			}
			var txt Text
			var err error
			what := fmt.Sprintf("damage %d", i)
			safely(t, what, func() { txt, err = loadText(b, idx) })
			if err == nil {
				exercise(t, what, txt, r)
			}
		}
	})
}

// FuzzLoadText feeds arbitrary text and index bytes to loadText; a loaded
// Text must never panic on in-range arguments.
func FuzzLoadText(f *testing.F) {
	for _, s := range []string{"", "abc", "é", strings.Repeat("é日", cpStride+3)} {
		f.Add([]byte(s), NewText([]byte(s)).encodeIndex())
	}
	f.Fuzz(func(t *testing.T, b, idx []byte) {
		txt, err := loadText(b, idx)
		if err != nil {
			return
		}
		exercise(t, "fuzz", txt, rand.New(rand.NewPCG(uint64(len(b)), uint64(len(idx)))))
	})
}

// mixedScript returns about size bytes of text in several scripts.
func mixedScript(size int) string {
	words := []string{"evidence", "the", "citation", "page", "résumé", "naïve", "Ελληνικά", "русский",
		"текст", "العربية", "עברית", "日本語", "中文文本", "한국어", "हिन्दी", "😀", "𝄞", "2024", "3,25", "\n", "\f"}
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	b.Grow(size + 64)
	for b.Len() < size {
		b.WriteString(words[r.IntN(len(words))])
		b.WriteByte(' ')
	}
	return b.String()
}

func BenchmarkSlice(b *testing.B) {
	s := mixedScript(5 << 20)
	txt := NewText([]byte(s))
	n := txt.Len()
	r := rand.New(rand.NewPCG(1, 1))
	spans := make([][2]int, 4096)
	for i := range spans {
		start := r.IntN(n)
		spans[i] = [2]int{start, min(n, start+1+r.IntN(2000))}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		sp := spans[i%len(spans)]
		if _, err := txt.Slice(sp[0], sp[1]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestVerifySlice: a slice is checked against the CRC-32C of the blocks
// that hold it, so damage in its block is refused and damage elsewhere
// does not cost a hash of the whole text; a text stored before block
// checksums is checked whole.
func TestVerifySlice(t *testing.T) {
	s := strings.Repeat("é", 2*textBlock) + strings.Repeat("x", textBlock) // blocks 0-3 é, 4 x
	txt := NewText([]byte(s))
	v := &Version{ID: "v", TextHash: Hash([]byte(s))}
	damaged := []byte(s)
	damaged[textBlock+1] ^= 0x01 // in block 1: code points 2048 to 4095
	sealed, err := loadText(damaged, txt.encodeIndex())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := VerifySlice(v, sealed, 10, 20); err != nil || string(b) != strings.Repeat("é", 10) {
		t.Errorf("slice in an undamaged block: got %q, %v", b, err)
	}
	for _, r := range [][2]int{{2048, 2050}, {2000, 2100}, {0, 5000}} {
		if _, err := VerifySlice(v, sealed, r[0], r[1]); !errors.Is(err, ErrCorrupt) {
			t.Errorf("slice %v over the damaged block: got %v, want ErrCorrupt", r, err)
		}
	}
	if _, err := VerifySlice(v, sealed, 5000, 5000); err != nil {
		t.Errorf("empty slice: %v", err)
	}
	old, err := loadText(damaged, txt.encodeIndex()[:8+len(txt.index)])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySlice(v, old, 10, 20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("unsealed index, damage elsewhere: got %v, want the whole text refused", err)
	}
}
