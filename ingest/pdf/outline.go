package pdf

import (
	"strings"

	lpdf "github.com/ledongthuc/pdf"
)

// The outline (bookmarks), walked iteratively with a visited set and caps:
// cyclic /Next or /First chains, which hang or overflow the library's
// recursive Outline, end the walk at the first repeat.

const (
	maxOutlineEntries = 1 << 16
	maxOutlineDepth   = 32
	maxNameTreeNodes  = 4096
)

func (x *extractor) readOutline(root lpdf.Value, pages []pageRef) []OutlineEntry {
	top := root.Key("Outlines")
	if top.Kind() != lpdf.Dict {
		return nil
	}
	pageNum := make(map[objID]int, len(pages))
	for i, p := range pages {
		if p.id != (objID{}) {
			if _, dup := pageNum[p.id]; !dup {
				pageNum[p.id] = i + 1
			}
		}
	}
	dests := &destIndex{x: x, root: root}
	var out []OutlineEntry
	seen := map[objID]bool{idOf(top): true}
	type frame struct {
		item  lpdf.Value
		level int
	}
	// A stack of siblings still to visit: depth first, in reading order.
	stack := []frame{{top.Key("First"), 1}}
	for len(stack) > 0 && len(out) < maxOutlineEntries {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		item := f.item
		if item.Kind() != lpdf.Dict {
			continue
		}
		id := idOf(item)
		if id == (objID{}) || seen[id] {
			continue
		}
		seen[id] = true
		title := strings.TrimSpace(strings.Join(strings.Fields(x.textString(item.Key("Title"))), " "))
		out = append(out, OutlineEntry{Title: title, Level: f.level, Page: x.destPage(item, pageNum, dests)})
		// Push the next sibling first so the children are visited before it.
		stack = append(stack, frame{item.Key("Next"), f.level})
		if f.level < maxOutlineDepth {
			stack = append(stack, frame{item.Key("First"), f.level + 1})
		}
	}
	return out
}

// destPage resolves an outline item's /Dest or GoTo action to a page number.
func (x *extractor) destPage(item lpdf.Value, pageNum map[objID]int, dests *destIndex) int {
	d := item.Key("Dest")
	if d.IsNull() {
		a := item.Key("A")
		if a.Key("S").Name() != "GoTo" {
			return 0
		}
		d = a.Key("D")
	}
	for hops := 0; hops < 4; hops++ {
		switch d.Kind() {
		case lpdf.Array:
			if id, ok := refAt(d, "", 0); ok {
				return pageNum[id] // the page by its reference, not parsed again
			}
			p := d.Index(0)
			if p.Kind() == lpdf.Integer { // a page index, as remote destinations use
				return int(p.Int64()) + 1
			}
			return pageNum[idOf(p)]
		case lpdf.Dict:
			d = d.Key("D")
		case lpdf.Name:
			d = dests.lookup(d.Name())
		case lpdf.String:
			d = dests.lookup(string(x.rawString(d)))
		default:
			return 0
		}
	}
	return 0
}

// destIndex finds named destinations: the catalog's /Dests dictionary
// (PDF 1.1) or the /Names /Dests name tree, read once, bounded.
type destIndex struct {
	x      *extractor
	root   lpdf.Value
	loaded bool
	dests  lpdf.Value // the catalog's /Dests
	names  map[string]nameEntry
}

// nameEntry is where a name tree leaf holds a destination: element i of
// its /Names array, resolved only when an outline item asks for it, since
// the library parses an object anew on every resolve and most named
// destinations are link targets that no outline item names.
type nameEntry struct {
	names lpdf.Value
	i     int
}

func (di *destIndex) lookup(name string) lpdf.Value {
	if !di.loaded {
		di.loaded = true
		di.dests = di.root.Key("Dests")
		di.names = map[string]nameEntry{}
		walkTree(di.root.Key("Names").Key("Dests"), maxNameTreeNodes, func(n lpdf.Value) bool {
			names := n.Key("Names")
			for i := 0; i+1 < names.Len(); i += 2 {
				k := names.Index(i)
				di.names[string(di.x.rawString(k))] = nameEntry{names, i + 1}
			}
			return len(di.names) < maxOutlineEntries
		})
	}
	if di.dests.Kind() == lpdf.Dict {
		if v := di.dests.Key(name); !v.IsNull() {
			return v
		}
	}
	e, ok := di.names[name]
	if !ok {
		return lpdf.Value{}
	}
	return e.names.Index(e.i)
}
