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

var dataField = func() []int {
	f, ok := reflect.TypeFor[lpdf.Value]().FieldByName("data")
	if !ok || f.Type.Kind() != reflect.Interface {
		return nil
	}
	return f.Index
}()

// refAt returns the reference stored, unresolved, as element i of array v,
// or as v's entry key when key is not "" (v a dictionary). The library
// resolves references on Index and Key, and a value reached through a
// reference to its own container carries the container's id, so a kid
// "6 0 R" of object 6 could not otherwise be told from a direct
// dictionary. ok is false for a direct value, or when the library's layout
// is not the one expected (callers then treat the value as direct).
func refAt(v lpdf.Value, key string, i int) (id objID, ok bool) {
	if dataField == nil {
		return objID{}, false
	}
	data := reflect.ValueOf(v).FieldByIndex(dataField)
	if data.Kind() != reflect.Interface || data.IsNil() {
		return objID{}, false
	}
	data = data.Elem()
	var elem reflect.Value
	switch {
	case key != "" && data.Kind() == reflect.Map && data.Type().Key().Kind() == reflect.String:
		k := reflect.New(data.Type().Key()).Elem()
		k.SetString(key)
		elem = data.MapIndex(k)
	case key == "" && data.Kind() == reflect.Slice && i >= 0 && i < data.Len():
		elem = data.Index(i)
	default:
		return objID{}, false
	}
	if !elem.IsValid() {
		return objID{}, false
	}
	if elem.Kind() == reflect.Interface {
		if elem.IsNil() {
			return objID{}, false
		}
		elem = elem.Elem()
	}
	if elem.Kind() != reflect.Struct || elem.Type().Name() != "objptr" || elem.NumField() != 2 {
		return objID{}, false
	}
	a, b := elem.Field(0), elem.Field(1)
	if !a.CanUint() || !b.CanUint() {
		return objID{}, false
	}
	return objID{uint32(a.Uint()), uint16(b.Uint())}, true
}
