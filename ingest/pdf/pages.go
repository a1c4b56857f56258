package pdf

import (
	"fmt"
	"math"

	lpdf "github.com/ledongthuc/pdf"
)

// The page tree walk, which decides every page number, so it follows what
// viewers show (pdf.js, poppler and PDFium, checked on crafted trees; see
// docs/pdf.md) rather than the library's Reader.Page, which trusts /Count
// (one file claims 9,999,999,999 pages) and re-walks the tree per page:
//
//  1. Pages are the leaves of a depth-first walk of /Kids in order. A leaf
//     is a dictionary with /Type /Page or without /Kids.
//  2. A kid listed twice, or under two parents, is a page (or a subtree)
//     at each place it appears: all three viewers count it so, and later
//     pages would otherwise be numbered one lower than the viewer shows.
//  3. A kid that refers to one of its own ancestors (a cycle) is not
//     followed and takes no place; neither does a kid that is not a
//     dictionary (a missing object, a number).
//  4. A root /Count that is a positive integer below the pages found is the
//     page count: viewers show no page past it.
//  5. When rule 3 dropped something and the root /Count is above the pages
//     found (and no larger than the number of objects, which a true count
//     cannot be), empty pages flagged with Page.Err are appended up to
//     /Count, as viewers show blank or failing pages there. They only come
//     last, so no page with text is renumbered. Otherwise /Count is ignored,
//     and a tree without any page yields none (Extract then falls back to
//     every page object of the file, see rewrite.go).
//
// The walk keeps an explicit stack, so depth costs no recursion, and a
// budget of kid visits, since a shared subtree is walked again at each
// place: a small file of shared nested nodes could ask for 2^64 visits.

const (
	treeVisitsPerPage = 4
	treeVisitsExtra   = 1 << 14
)

// errMissingPage is the Page.Err of a page rule 5 added.
const errMissingPage = "page tree: page missing (a cycle or a damaged kid); kept empty so the count matches /Count"

type pageRef struct {
	v         lpdf.Value // the page dictionary; null for a page rule 5 added
	id        objID
	resources lpdf.Value // own or inherited /Resources
	err       string     // set for a page rule 5 added
}

// pageTree is the raw result of the walk, before rules 4 and 5.
type pageTree struct {
	pages   []pageRef
	dropped int   // kids not followed under rule 3
	count   int64 // the root's /Count, 0 when not a positive integer
}

type treeFrame struct {
	node    lpdf.Value
	id      objID // the node's own object, zero when it is a direct dictionary
	obj     objID // the object holding the node (idOf)
	res     lpdf.Value
	kids    lpdf.Value
	n, next int
}

// walkPages returns the pages of the tree under catalog's /Pages in order,
// numObjects being the number of objects in the file. It stops after
// limit+1 pages so the caller can tell "too many" from "exactly limit";
// its error is a too_large *Error when the tree exceeds the visit budget.
func walkPages(catalog lpdf.Value, limit, numObjects int) ([]pageRef, error) {
	t, err := walkPageTree(catalog, limit)
	if err != nil {
		return nil, err
	}
	pages := t.pages
	switch n := int64(len(pages)); {
	case t.count >= 1 && n > t.count:
		pages = pages[:t.count]
	case n > 0 && t.dropped > 0 && t.count > n && t.count <= int64(numObjects):
		for int64(len(pages)) < t.count && len(pages) <= limit {
			pages = append(pages, pageRef{err: errMissingPage})
		}
	}
	return pages, nil
}

func walkPageTree(catalog lpdf.Value, limit int) (t pageTree, err error) {
	root := catalog.Key("Pages")
	if root.Kind() != lpdf.Dict {
		return t, nil
	}
	t.count = positiveCount(root.Key("Count"))
	stopAt := limit
	if t.count >= 1 && t.count < int64(limit) {
		stopAt = int(t.count) // rule 4 keeps no more
	}
	budget := treeVisitsPerPage*(limit+1) + treeVisitsExtra
	onPath := map[objID]bool{}
	var stack []treeFrame
	enter := func(node lpdf.Value, id objID, res lpdf.Value) {
		if r := node.Key("Resources"); r.Kind() == lpdf.Dict {
			res = r
		}
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Page" || (kids.Kind() == lpdf.Null && !isRef(node, "Kids")) {
			t.pages = append(t.pages, pageRef{v: node, id: idOf(node), resources: res})
			return
		}
		n := kids.Len()
		if kids.Kind() == lpdf.Dict {
			n = 1 // "/Kids 3 0 R" without brackets: one kid, as readers accept
		} else if kids.Kind() != lpdf.Array {
			t.dropped++ // /Kids names a missing object, or is no array
		}
		if id != (objID{}) {
			onPath[id] = true
		}
		stack = append(stack, treeFrame{node: node, id: id, obj: idOf(node), res: res, kids: kids, n: n})
	}
	rootID, _ := refAt(catalog, "Pages", 0)
	enter(root, rootID, lpdf.Value{})
	for len(stack) > 0 && len(t.pages) <= stopAt {
		f := &stack[len(stack)-1]
		if f.next >= f.n {
			if f.id != (objID{}) {
				delete(onPath, f.id)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		i := f.next
		f.next++
		if budget--; budget < 0 {
			return t, newError(ReasonTooLarge, fmt.Errorf("%w: the page tree needs more than %d node visits", ErrTooManyPages, treeVisitsPerPage*(limit+1)+treeVisitsExtra))
		}
		kid := f.kids
		var ref objID
		var ok bool
		if f.kids.Kind() == lpdf.Array {
			kid = f.kids.Index(i)
			ref, ok = refAt(f.kids, "", i)
		} else {
			ref, ok = refAt(f.node, "Kids", 0)
		}
		if !ok {
			// Without the raw reference (a direct kid, or a library whose
			// layout refAt does not know), a kid carrying another object's
			// id was still reached through a reference.
			if id := idOf(kid); id != (objID{}) && id != f.obj {
				ref, ok = id, true
			}
		}
		if kid.Kind() != lpdf.Dict || (ok && onPath[ref]) {
			t.dropped++
			continue
		}
		if !ok {
			ref = objID{}
		}
		enter(kid, ref, f.res)
	}
	return t, nil
}

// isRef reports whether v's entry key is an indirect reference (it may
// resolve to null when the object is missing).
func isRef(v lpdf.Value, key string) bool {
	_, ok := refAt(v, key, 0)
	return ok
}

// positiveCount returns a /Count that is a positive whole number (viewers
// accept "9.0"), else 0.
func positiveCount(v lpdf.Value) int64 {
	switch v.Kind() {
	case lpdf.Integer:
		if n := v.Int64(); n > 0 {
			return n
		}
	case lpdf.Real:
		if f := v.Float64(); f >= 1 && f < math.MaxInt64/2 && f == math.Trunc(f) {
			return int64(f)
		}
	}
	return 0
}
