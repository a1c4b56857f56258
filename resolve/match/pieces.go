package match

import (
	"slices"
	"unicode/utf8"
)

// The pieces stage finds every match within k1 edits without running the
// bit-vector scan over the whole text. Cut the folded quote into k1+1
// pieces: k1 edits touch at most k1 of them, so a match within k1 holds one
// piece unchanged (the pigeonhole filter of Wu and Manber, and Navarro's
// survey §7). Pieces are at least pieceRunes code points, so at least 16
// bytes, and any occurrence of one covers a whole 8-byte word at an offset
// that is a multiple of sampleStep from the start of the region searched.
// The stage reads only those sampled words, one in eight bytes, looks each up
// in a small table of every 8-byte word of every piece, and checks a piece
// where a word fits. Around each piece found, the region that can hold the
// whole match is scanned exactly (search, in myers.go).

const (
	sampleStep = 8  // bytes between sampled words
	pieceRunes = 16 // shortest piece, in code points (bytes ≥ code points)
)

// piece is a part of the folded quote.
type piece struct {
	off, n   int // bytes of the folded quote
	roff, rn int // code points
}

// pword is a sampled word of a piece: the 8 bytes at offset off of piece.
type pword struct {
	w     uint64
	piece int32
	off   int32
	next  int32 // next entry of the chain, -1 at its end
}

// load64 reads 8 bytes of s at i, little-endian (one load on amd64 and
// arm64).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// pieceFilter cuts fq (m code points in sr.runes) into np pieces and leaves
// in sr.regions, sorted and merged, the byte ranges of s[bs:be] that hold
// every match of fq within k1 edits. It reports false, leaving the search
// to the later stages, when the pieces fit so often (a periodic text such as
// "aaaa…") that checking them would cost more than scanning: its work stays
// linear in the text either way.
func (sr *searcher) pieceFilter(s, fq string, bs, be, np, k1 int) bool {
	m := len(sr.runes)
	sr.pieces = sr.pieces[:0]
	off, roff := 0, 0
	for i := range np {
		rn := (m*(i+1))/np - (m*i)/np
		n := 0
		for range rn {
			_, size := utf8.DecodeRuneInString(fq[off+n:])
			n += size
		}
		sr.pieces = append(sr.pieces, piece{off: off, n: n, roff: roff, rn: rn})
		off += n
		roff += rn
	}

	// Every 8-byte word of every piece, chained by bucket, and a mask of
	// the buckets used.
	sr.pmask = [16]uint64{}
	for i := range sr.heads {
		sr.heads[i] = -1
	}
	sr.words = sr.words[:0]
	for pi, pc := range sr.pieces {
		for o := 0; o+8 <= pc.n; o++ {
			w := load64(fq, pc.off+o)
			b := bucket(w)
			sr.pmask[b>>6] |= 1 << (b & 63)
			sr.words = append(sr.words, pword{w: w, piece: int32(pi), off: int32(o), next: sr.heads[b>>2]})
			sr.heads[b>>2] = int32(len(sr.words) - 1)
		}
	}

	sr.regions = sr.regions[:0]
	words, mask := sr.words, &sr.pmask
	budget := (be-bs)/sampleStep + 256 // candidate checks allowed
	for g := bs; g+8 <= be; g += sampleStep {
		w := load64(s, g)
		b := bucket(w)
		if mask[b>>6]&(1<<(b&63)) == 0 {
			continue
		}
		for e := sr.heads[b>>2]; e >= 0; e = words[e].next {
			pw := &words[e]
			if pw.w != w {
				continue
			}
			if budget--; budget < 0 {
				return false
			}
			pc := &sr.pieces[pw.piece]
			p := g - int(pw.off)
			if p < bs || p+pc.n > be || s[p:p+pc.n] != fq[pc.off:pc.off+pc.n] {
				continue
			}
			lo := back(s, bs, p, pc.roff+k1)
			hi := forth(s, be, p+pc.n, m-pc.roff-pc.rn+k1)
			if n := len(sr.regions); n > 0 && lo >= sr.regions[n-1].lo && lo <= sr.regions[n-1].hi {
				sr.regions[n-1].hi = max(sr.regions[n-1].hi, hi)
				continue
			}
			sr.regions = append(sr.regions, region{lo, hi})
			if len(sr.regions) > 64 && len(sr.regions) > 2*(be-bs)/max(m, 1) {
				// A periodic text finds the pieces everywhere: merge now so
				// the list stays proportional to the text over the quote.
				sr.regions = mergeRegions(sr.regions)
			}
		}
	}
	sr.regions = mergeRegions(sr.regions)
	return true
}

// mergeRegions sorts regions and merges those that overlap or touch.
func mergeRegions(rs []region) []region {
	slices.SortFunc(rs, func(a, b region) int { return a.lo - b.lo })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}
