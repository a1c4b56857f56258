package pdf

import (
	"bytes"
	"errors"
	"io"

	lpdf "github.com/ledongthuc/pdf"
)

// Resource lookups and the per-document caches. The library re-parses an
// object on every Key call, so every font, form and resource dictionary is
// decoded once per document and found again by object identity.

type resources struct {
	v         lpdf.Value
	fontDict  lpdf.Value
	xobjDict  lpdf.Value
	haveFonts bool
	haveXObjs bool
	fonts     map[string]*font
	forms     map[string]*formInfo
}

type resName struct {
	id   objID
	name string
}

func (x *extractor) resourcesFor(v lpdf.Value) *resources {
	id := idOf(v)
	if id != (objID{}) {
		if r, ok := x.res[id]; ok {
			return r
		}
	}
	r := &resources{v: v, fonts: map[string]*font{}, forms: map[string]*formInfo{}}
	if id != (objID{}) {
		x.res[id] = r
	}
	return r
}

// font returns the font named in the resources, nil when there is none.
func (r *resources) font(x *extractor, name []byte) *font {
	if r == nil {
		return nil
	}
	if f, ok := r.fonts[string(name)]; ok {
		return f
	}
	f := x.lookupFont(r, string(name))
	r.fonts[string(name)] = f
	return f
}

func (x *extractor) lookupFont(r *resources, name string) (f *font) {
	defer func() {
		if p := recover(); p != nil {
			f = nil // a font the library cannot read: its text is lost, not the page
		}
	}()
	if !r.haveFonts {
		r.fontDict = r.v.Key("Font")
		r.haveFonts = true
	}
	// An indirect font met before is known by its reference: resolving it
	// again would make the library parse the object anew, decompressing
	// the whole object stream that holds it, on every page.
	if id, ok := refAt(r.fontDict, name, 0); ok {
		if f, ok := x.fonts[resName{id, ""}]; ok && id != idOf(r.fontDict) {
			return f
		}
	}
	fv := r.fontDict.Key(name)
	if fv.Kind() != lpdf.Dict {
		return nil
	}
	id, dictID := idOf(fv), idOf(r.fontDict)
	key := resName{dictID, name}
	if id != dictID && id != (objID{}) {
		key = resName{id, ""} // an indirect font: shared by every page that uses it
	}
	if f, ok := x.fonts[key]; ok {
		return f
	}
	f = x.loadFont(fv)
	x.fonts[key] = f
	return f
}

func (r *resources) form(x *extractor, name []byte) *formInfo {
	if r == nil {
		return nil
	}
	if f, ok := r.forms[string(name)]; ok {
		return f
	}
	f := x.lookupForm(r, string(name))
	r.forms[string(name)] = f
	return f
}

func (x *extractor) lookupForm(r *resources, name string) (f *formInfo) {
	defer func() {
		if p := recover(); p != nil {
			f = nil
		}
	}()
	if !r.haveXObjs {
		r.xobjDict = r.v.Key("XObject")
		r.haveXObjs = true
	}
	v := r.xobjDict.Key(name)
	if v.Kind() != lpdf.Stream {
		return nil
	}
	id := idOf(v)
	if f, ok := x.forms[id]; ok && id != (objID{}) {
		return f
	}
	if v.Key("Subtype").Name() != "Form" {
		x.forms[id] = nil
		return nil
	}
	f = &formInfo{id: id, v: v, matrix: identity}
	if m := v.Key("Matrix"); m.Len() == 6 {
		var mm matrix
		for i := range mm {
			mm[i] = m.Index(i).Float64()
		}
		if finite(mm) {
			f.matrix = mm
		}
	}
	if rv := v.Key("Resources"); rv.Kind() == lpdf.Dict {
		f.res = x.resourcesFor(rv)
	}
	if id != (objID{}) {
		x.forms[id] = f
	}
	return f
}

const maxFormCache = 32 << 20 // bytes of decoded forms kept per document

func (x *extractor) formBytes(f *formInfo) ([]byte, error) {
	if f.loaded {
		return f.data, f.err
	}
	data, err := x.streamBytes(f.v, x.lim.MaxStreamBytes)
	if x.formCache+len(data) <= maxFormCache {
		f.data, f.err, f.loaded = data, err, true
		x.formCache += len(data)
	}
	return data, err
}

// streamBytes returns a stream's decoded bytes, at most max of them. It
// reads through the library (which decrypts) and falls back to our own
// filters when the library does not know a filter.
func (x *extractor) streamBytes(v lpdf.Value, max int64) (data []byte, err error) {
	x.streamsRead++
	// Streams are decoded from the file's bytes by our own code: it checks
	// /Length against "endstream" (a wrong length is common and the
	// library trusts it), knows more filters and decrypts. The library's
	// reader is the fallback for plain files.
	data, err = x.ownStreamBytes(v, max)
	if err == nil || errors.Is(err, ErrStreamTooLarge) || x.doc.crypt != nil {
		if err != nil && len(data) == 0 {
			x.streamsFailed++
		}
		return data, err
	}
	data, err = libStreamBytes(v, max)
	if err != nil && len(data) == 0 {
		x.streamsFailed++
	}
	if err != nil && len(data) > 0 && !errors.Is(err, ErrStreamTooLarge) {
		// A truncated or damaged stream: keep what decoded, as viewers do.
		return data, nil
	}
	return data, err
}

func libStreamBytes(v lpdf.Value, max int64) (data []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	rd := v.Reader()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, io.LimitReader(rd, max+1))
	if int64(buf.Len()) > max {
		return nil, ErrStreamTooLarge
	}
	return buf.Bytes(), err
}

// ownStreamBytes decodes a stream from its raw bytes in the file, located
// through our cross-reference table.
func (x *extractor) ownStreamBytes(v lpdf.Value, max int64) ([]byte, error) {
	id := idOf(v)
	e, ok := x.doc.table.entries[id.num]
	if !ok || e.typ != 1 {
		return nil, errors.New("stream not found")
	}
	l := lexer{src: x.doc.data, pos: int(e.off)}
	first := l.next()
	_, _, obj, start, err := parseIndirect(&l, first)
	if err != nil {
		return nil, err
	}
	d, _ := obj.(map[string]any)
	if d == nil || start < 0 {
		return nil, errors.New("not a stream")
	}
	if _, ok := d["Length"].(objRef); ok {
		if n := v.Key("Length"); n.Kind() == lpdf.Integer {
			d["Length"] = n.Int64() // an indirect /Length, resolved by the library
		}
	}
	// An indirect /Filter or /DecodeParms ("/Filter 3 0 R" naming
	// [/FlateDecode]), resolved by the library too.
	for _, k := range []string{"Filter", "DecodeParms"} {
		if _, ok := d[k].(objRef); ok {
			d[k] = plainValue(v.Key(k), 2)
		}
	}
	raw := streamData(x.doc.data, d, start)
	if x.doc.crypt != nil && dictName(d, "Type") != "XRef" {
		if raw, err = x.doc.crypt.stream(id, raw); err != nil {
			return nil, err
		}
	}
	out, err := decodeStream(d, raw, max)
	if errors.Is(err, errStreamCap) {
		return nil, ErrStreamTooLarge
	}
	return out, err
}

// plainValue converts a library value to this package's parsed form
// (pdfName, int64, []any, map[string]any...), depth levels deep.
func plainValue(v lpdf.Value, depth int) any {
	switch v.Kind() {
	case lpdf.Name:
		return pdfName(v.Name())
	case lpdf.Integer:
		return v.Int64()
	case lpdf.Real:
		return v.Float64()
	case lpdf.Bool:
		return v.Bool()
	case lpdf.String:
		return pdfString(v.RawString())
	case lpdf.Array:
		if depth <= 0 {
			return nil
		}
		out := make([]any, 0, min(v.Len(), 64))
		for i := 0; i < v.Len() && i < 64; i++ {
			out = append(out, plainValue(v.Index(i), depth-1))
		}
		return out
	case lpdf.Dict:
		if depth <= 0 {
			return nil
		}
		out := map[string]any{}
		for _, k := range v.Keys() {
			out[k] = plainValue(v.Key(k), depth-1)
		}
		return out
	}
	return nil
}
