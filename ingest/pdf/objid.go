package pdf

import (
	"reflect"

	lpdf "github.com/ledongthuc/pdf"
)

// objID identifies the indirect object a Value was read from. The library
// keeps that reference in an unexported field and re-parses an object on
// every lookup, so without it there would be no way to cache per object
// (fonts, forms) or to detect cycles (page trees, outlines, XObjects).
// Reading an unexported integer field through reflect is allowed; if a
// future library version renames the field, objID returns the zero id and
// callers fall back to bounded, uncached walks.
type objID struct {
	num uint32
	gen uint16
}

var ptrField = func() []int {
	f, ok := reflect.TypeFor[lpdf.Value]().FieldByName("ptr")
	if !ok || f.Type.Kind() != reflect.Struct || f.Type.NumField() != 2 {
		return nil
	}
	return f.Index
}()

// idOf returns the id of the object v belongs to: v's own object when v was
// reached through a reference, else the object that contains it.
func idOf(v lpdf.Value) objID {
	if ptrField == nil {
		return objID{}
	}
	p := reflect.ValueOf(v).FieldByIndex(ptrField)
	a, b := p.Field(0), p.Field(1)
	if !a.CanUint() || !b.CanUint() {
		return objID{}
	}
	return objID{uint32(a.Uint()), uint16(b.Uint())}
}
