package pdf

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
)

// Stream filters for the streams this package decodes itself: cross-reference
// and object streams read by the repair code, and content streams whose
// filter the library does not know (LZW, RunLength, ASCIIHex, predictors
// other than PNG-Up). Every decoder is capped at max output bytes, so a
// decompression bomb costs at most max bytes of memory.

var errStreamCap = errors.New("pdf: decoded stream over the size cap")

// decodeFilter applies one named filter with its parameters (nil when absent).
func decodeFilter(name string, parms map[string]any, data []byte, max int64) ([]byte, error) {
	switch name {
	case "FlateDecode", "Fl":
		out, err := inflate(data, max)
		if err != nil && len(out) == 0 {
			return nil, err
		}
		out2, err2 := unpredict(out, parms)
		if err2 != nil {
			return out, err2
		}
		return out2, err
	case "LZWDecode", "LZW":
		early := int64(1)
		if v, ok := dictInt(parms, "EarlyChange"); ok {
			early = v
		}
		out, err := lzwDecode(data, early != 0, max)
		out2, err2 := unpredict(out, parms)
		if err2 != nil {
			return out, err2
		}
		return out2, err
	case "ASCIIHexDecode", "AHx":
		return asciiHexDecode(data), nil
	case "ASCII85Decode", "A85":
		return ascii85Decode(data)
	case "RunLengthDecode", "RL":
		return runLengthDecode(data, max)
	}
	return nil, fmt.Errorf("unsupported filter %s", name)
}

func inflate(data []byte, max int64) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	n, err := io.Copy(&out, io.LimitReader(zr, max+1))
	if n > max {
		return nil, errStreamCap
	}
	if err != nil {
		return out.Bytes(), err
	}
	return out.Bytes(), nil
}

// unpredict reverses a TIFF (2) or PNG (10..15) predictor.
func unpredict(data []byte, parms map[string]any) ([]byte, error) {
	pred, _ := dictInt(parms, "Predictor")
	if pred <= 1 {
		return data, nil
	}
	colors, ok := dictInt(parms, "Colors")
	if !ok || colors < 1 {
		colors = 1
	}
	bpc, ok := dictInt(parms, "BitsPerComponent")
	if !ok || bpc < 1 {
		bpc = 8
	}
	cols, ok := dictInt(parms, "Columns")
	if !ok || cols < 1 {
		cols = 1
	}
	if colors > 64 || bpc > 16 || cols > 1<<20 {
		return nil, fmt.Errorf("bad predictor parameters")
	}
	bpp := int((colors*bpc + 7) / 8)
	rowLen := int((colors*bpc*cols + 7) / 8)
	if pred == 2 {
		if bpc != 8 {
			return data, nil
		}
		out := bytes.Clone(data)
		for r := 0; r+rowLen <= len(out); r += rowLen {
			row := out[r : r+rowLen]
			for i := bpp; i < len(row); i++ {
				row[i] += row[i-bpp]
			}
		}
		return out, nil
	}
	out := make([]byte, 0, len(data))
	prev := make([]byte, rowLen)
	for r := 0; r < len(data); r += rowLen + 1 {
		ft := data[r]
		end := r + 1 + rowLen
		if end > len(data) {
			end = len(data)
		}
		row := bytes.Clone(data[r+1 : end])
		for i := range row {
			var a, b, c byte
			if i >= bpp {
				a = row[i-bpp]
				c = prev[i-bpp]
			}
			b = prev[i]
			switch ft {
			case 1:
				row[i] += a
			case 2:
				row[i] += b
			case 3:
				row[i] += byte((int(a) + int(b)) / 2)
			case 4:
				row[i] += paeth(a, b, c)
			}
		}
		copy(prev, row)
		out = append(out, row...)
	}
	return out, nil
}

func paeth(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := abs(p-int(a)), abs(p-int(b)), abs(p-int(c))
	if pa <= pb && pa <= pc {
		return a
	}
	if pb <= pc {
		return b
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func asciiHexDecode(data []byte) []byte {
	out := make([]byte, 0, len(data)/2)
	hi := -1
	for _, c := range data {
		if c == '>' {
			break
		}
		v := unhex(c)
		if v < 0 {
			continue
		}
		if hi < 0 {
			hi = v
			continue
		}
		out = append(out, byte(hi<<4|v))
		hi = -1
	}
	if hi >= 0 {
		out = append(out, byte(hi<<4))
	}
	return out
}

func ascii85Decode(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data)*4/5+4)
	var group [5]byte
	n := 0
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c == '~' {
			break
		}
		if isWhite(c) {
			continue
		}
		if c == 'z' && n == 0 {
			out = append(out, 0, 0, 0, 0)
			continue
		}
		if c < '!' || c > 'u' {
			return out, fmt.Errorf("ascii85: bad byte %#x", c)
		}
		group[n] = c - '!'
		n++
		if n == 5 {
			v := uint32(0)
			for _, g := range group {
				v = v*85 + uint32(g)
			}
			out = append(out, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
			n = 0
		}
	}
	if n > 1 {
		for k := n; k < 5; k++ {
			group[k] = 84
		}
		v := uint32(0)
		for _, g := range group {
			v = v*85 + uint32(g)
		}
		b := []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, b[:n-1]...)
	}
	return out, nil
}

func runLengthDecode(data []byte, max int64) ([]byte, error) {
	var out []byte
	for i := 0; i < len(data); {
		n := int(data[i])
		i++
		switch {
		case n == 128:
			return out, nil
		case n < 128:
			end := i + n + 1
			if end > len(data) {
				end = len(data)
			}
			out = append(out, data[i:end]...)
			i = end
		default:
			if i >= len(data) {
				return out, nil
			}
			for k := 0; k < 257-n; k++ {
				out = append(out, data[i])
			}
			i++
		}
		if int64(len(out)) > max {
			return nil, errStreamCap
		}
	}
	return out, nil
}

// lzwDecode decodes PDF's LZW variant (MSB first, 9..12-bit codes, code 256
// clears, 257 ends; with EarlyChange the width grows one code early). Go's
// compress/lzw has no early change, which PDF uses by default.
func lzwDecode(data []byte, early bool, max int64) ([]byte, error) {
	var out []byte
	var bitBuf uint32
	var bits uint
	width := uint(9)
	type entry struct {
		prefix int
		c      byte
		length int
	}
	table := make([]entry, 4096)
	for i := 0; i < 256; i++ {
		table[i] = entry{-1, byte(i), 1}
	}
	next := 258
	prev := -1
	emit := func(code int) []byte {
		e := table[code]
		start := len(out)
		out = append(out, make([]byte, e.length)...)
		for k := start + e.length - 1; code >= 0; k-- {
			out[k] = table[code].c
			code = table[code].prefix
		}
		return out[start:]
	}
	pos := 0
	for {
		for bits < width && pos < len(data) {
			bitBuf = bitBuf<<8 | uint32(data[pos])
			pos++
			bits += 8
		}
		if bits < width {
			return out, nil
		}
		code := int(bitBuf>>(bits-width)) & (1<<width - 1)
		bits -= width
		switch {
		case code == 256:
			width, next, prev = 9, 258, -1
			continue
		case code == 257:
			return out, nil
		}
		if prev < 0 {
			if code > 255 {
				return out, fmt.Errorf("lzw: bad first code")
			}
			emit(code)
			prev = code
			continue
		}
		var first byte
		if code < next {
			s := emit(code)
			first = s[0]
		} else if code == next {
			s := emit(prev)
			first = s[0]
			out = append(out, first)
		} else {
			return out, fmt.Errorf("lzw: bad code")
		}
		if next < 4096 {
			table[next] = entry{prev, first, table[prev].length + 1}
			next++
		}
		prev = code
		limit := next
		if early {
			limit++
		}
		if limit >= 1<<width && width < 12 {
			width++
		}
		if int64(len(out)) > max {
			return nil, errStreamCap
		}
	}
}
