package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unicode/utf8"
)

// cpStride is the number of code points between two entries of a text's
// code-point index. Converting an offset scans at most cpStride-1 runes.
const cpStride = 128

// Text is a canonical text with a code-point index, so that converting a
// code-point offset to a byte offset costs one index lookup and a short scan
// instead of a scan of the whole text.
type Text struct {
	b []byte
	n int // length in code points
	// index holds, big-endian in 4 bytes each, the byte offset of every
	// cpStride-th code point; nil for ASCII text. It stays in its stored form
	// so loading a text costs nothing.
	index []byte
	// blocks holds the big-endian CRC-32C of each textBlock bytes of b, as
	// stored; nil for a text stored before block checksums, or not stored.
	blocks []byte
}

// textBlock is the size of the blocks of a stored text that have a
// CRC-32C of their own (see VerifySlice).
const textBlock = 4096

func (t Text) entry(i int) int { return int(binary.BigEndian.Uint32(t.index[4*i:])) }

// advance returns the byte offset k runes after byte offset i, stopping at
// the end of the text.
func (t Text) advance(i, k int) int {
	for ; k > 0 && i < len(t.b); k-- {
		if t.b[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRune(t.b[i:])
			i += size
		}
	}
	return i
}

// NewText indexes b, which must be valid UTF-8. The Text refers to b.
func NewText(b []byte) Text {
	n := utf8.RuneCount(b)
	t := Text{b: b, n: n}
	if n == len(b) {
		return t // ASCII: code point offsets are byte offsets
	}
	t.index = make([]byte, 0, 4*(n/cpStride+1))
	cp := 0
	for i := 0; i < len(b); {
		if cp%cpStride == 0 {
			t.index = binary.BigEndian.AppendUint32(t.index, uint32(i))
		}
		if b[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRune(b[i:])
			i += size
		}
		cp++
	}
	return t
}

// Bytes returns the UTF-8 bytes of the text.
func (t Text) Bytes() []byte { return t.b }

// Len returns the length in code points.
func (t Text) Len() int { return t.n }

// ByteOffset converts a code-point offset to a byte offset; offsets are
// clamped to [0, Len()].
func (t Text) ByteOffset(cp int) int {
	cp = max(cp, 0)
	if t.index == nil || cp >= t.n {
		if cp >= t.n {
			return len(t.b)
		}
		return cp
	}
	return t.advance(min(t.entry(cp/cpStride), len(t.b)), cp%cpStride)
}

// CodePoint converts a byte offset that falls on a rune boundary to a
// code-point offset.
func (t Text) CodePoint(off int) int {
	if t.index == nil {
		return off
	}
	// Find the last index entry at or before off.
	lo, hi := 0, len(t.index)/4
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.entry(m) <= off {
			lo = m + 1
		} else {
			hi = m
		}
	}
	k := max(lo-1, 0)
	off = min(off, len(t.b))
	return k*cpStride + utf8.RuneCount(t.b[min(t.entry(k), off):off])
}

// Slice returns the bytes of the half-open code-point range [start, end).
func (t Text) Slice(start, end int) ([]byte, error) {
	bs, be, err := t.byteRange(start, end)
	if err != nil {
		return nil, err
	}
	return t.b[bs:be], nil
}

// byteRange converts the code-point range [start, end) to bytes.
func (t Text) byteRange(start, end int) (bs, be int, err error) {
	if start < 0 || end < start || end > t.n {
		return 0, 0, fmt.Errorf("%w: [%d, %d) of a %d-code-point text", ErrRange, start, end, t.n)
	}
	bs = t.ByteOffset(start)
	be = bs
	if end > start {
		if t.index == nil {
			be = end
		} else if end-start < cpStride {
			// Short span: scan forward from start rather than from an index entry.
			be = t.advance(bs, end-start)
		} else {
			be = t.ByteOffset(end)
		}
	}
	if bs > be || be > len(t.b) { // only a damaged index gets here
		return 0, 0, fmt.Errorf("%w: code-point index maps [%d, %d) to bytes [%d, %d)", ErrCorrupt, start, end, bs, be)
	}
	return bs, be, nil
}

// VerifySlice returns the bytes of the code-point range [start, end) of a
// version's text after checking them (verify on read): against the
// CRC-32C of the blocks of the text that hold them, or, for a text stored
// before block checksums, the whole text against the version's BLAKE3.
// What a reader is shown around a span (a quote's prefix and suffix, a
// title) goes through it, so that no damaged byte is served beside a span
// that passed its own hash.
func VerifySlice(v *Version, txt Text, start, end int) ([]byte, error) {
	bs, be, err := txt.byteRange(start, end)
	if err != nil {
		return nil, err
	}
	if txt.blocks == nil {
		if err := VerifyText(v, txt); err != nil {
			return nil, err
		}
		return txt.b[bs:be], nil
	}
	for i := bs / textBlock; i*textBlock < be; i++ {
		blk := txt.b[i*textBlock : min(len(txt.b), (i+1)*textBlock)]
		if crc32.Checksum(blk, castagnoli) != binary.BigEndian.Uint32(txt.blocks[4*i:]) {
			return nil, &HashMismatchError{What: fmt.Sprintf("text of version %s, bytes [%d, %d)", v.ID, i*textBlock, i*textBlock+len(blk)), Want: v.TextHash, Got: Hash(txt.b)}
		}
	}
	return txt.b[bs:be], nil
}

// blockCount is the number of checksummed blocks of a text of n bytes.
func blockCount(n int) int { return (n + textBlock - 1) / textBlock }

// encodeIndex serializes the code-point index for storage: the code-point
// count, the entries, the CRC-32C of each textBlock bytes of the text,
// then the CRC-32C of all that (the seal). The text has its BLAKE3; the
// seal covers the index, which maps offsets into it, so a damaged entry
// cannot slice another range of a text that passes its hash, and the
// block checksums let a reader check a few bytes of a long text without
// hashing all of it (VerifySlice).
func (t Text) encodeIndex() []byte {
	nb := blockCount(len(t.b))
	out := make([]byte, 8, 12+len(t.index)+4*nb)
	binary.BigEndian.PutUint64(out, uint64(t.n))
	out = append(out, t.index...)
	for i := range nb {
		out = binary.BigEndian.AppendUint32(out, crc32.Checksum(t.b[i*textBlock:min(len(t.b), (i+1)*textBlock)], castagnoli))
	}
	return binary.BigEndian.AppendUint32(out, crc32.Checksum(out, castagnoli))
}

// loadText rebuilds a Text from stored bytes and a stored index without
// scanning or copying either, checking the index's seal. An index written
// before seals has neither block checksums nor a seal, and is read
// unchecked: a damaged one gives wrong offsets, never a panic, and callers
// verify what they slice against its recorded hash.
func loadText(b, idx []byte) (Text, error) {
	if len(idx) < 8 || (len(idx)-8)%4 != 0 {
		return Text{}, fmt.Errorf("%w: code-point index of %d bytes", ErrCorrupt, len(idx))
	}
	n := int(binary.BigEndian.Uint64(idx))
	words := (len(idx) - 8) / 4
	entries := 0 // ASCII: none
	if n != len(b) {
		entries = (n + cpStride - 1) / cpStride
	}
	nb := blockCount(len(b))
	var blocks []byte
	sealed := entries >= 0 && words == entries+nb+1
	switch {
	case words == entries: // written before seals
	case sealed:
		end := len(idx) - 4
		if crc32.Checksum(idx[:end], castagnoli) != binary.BigEndian.Uint32(idx[end:]) {
			return Text{}, fmt.Errorf("%w (code-point index)", ErrChecksum)
		}
		blocks = idx[8+4*entries : end]
		idx = idx[:8+4*entries]
	default:
		return Text{}, fmt.Errorf("%w: code-point index of %d words for %d code points in %d bytes", ErrCorrupt, words, n, len(b))
	}
	t := Text{b: b, n: n, blocks: blocks}
	if entries == 0 {
		if n != len(b) {
			return Text{}, fmt.Errorf("%w: text of %d bytes has no index but claims %d code points", ErrCorrupt, len(b), n)
		}
		if len(b) == 0 {
			t.blocks = nil // nothing to check
		}
		return t, nil
	}
	t.index = idx[8:]
	if !sealed {
		// Unchecked, but at least the shape of an index: the first code
		// point at byte 0, then ascending offsets inside the text. This
		// also keeps a sealed index whose count was damaged from passing
		// for an unsealed one, its CRC read as an entry.
		prev := -1
		for i := range entries {
			if e := t.entry(i); e <= prev || e >= len(b) || (i == 0) != (e == 0) {
				return Text{}, fmt.Errorf("%w: code-point index entry %d is byte %d", ErrCorrupt, i, e)
			}
			prev = t.entry(i)
		}
	}
	return t, nil
}
