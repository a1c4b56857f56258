package pdf

import (
	lpdf "github.com/ledongthuc/pdf"
)

// The page tree walk. The library's Reader.Page trusts /Count (one file
// claims 9,999,999,999 pages) and re-walks the tree from the root for every
// page, and Page.Resources follows /Parent without a visited set. This walk
// visits each node once, skips nodes already seen (a loop or a node listed
// twice), passes inherited attributes down, and stops past the page limit.

const maxTreeDepth = 64

type pageRef struct {
	v         lpdf.Value // the page dictionary
	id        objID
	resources lpdf.Value // own or inherited /Resources
}

// walkPages returns the pages in order. It stops after limit+1 pages so the
// caller can tell "too many" from "exactly limit".
func walkPages(root lpdf.Value, limit int) []pageRef {
	var pages []pageRef
	seen := map[objID]bool{}
	var walk func(node lpdf.Value, res lpdf.Value, depth int)
	walk = func(node lpdf.Value, res lpdf.Value, depth int) {
		if len(pages) > limit || depth > maxTreeDepth {
			return
		}
		if r := node.Key("Resources"); r.Kind() == lpdf.Dict {
			res = r
		}
		kids := node.Key("Kids")
		typ := node.Key("Type").Name()
		if typ == "Page" || (typ != "Pages" && kids.Kind() != lpdf.Array && kids.Kind() != lpdf.Dict) {
			pages = append(pages, pageRef{v: node, id: idOf(node), resources: res})
			return
		}
		parent := idOf(node)
		n := kids.Len()
		if kids.Kind() == lpdf.Dict {
			n = 1 // "/Kids 3 0 R" without brackets: one kid, as readers accept
		}
		for i := 0; i < n && len(pages) <= limit; i++ {
			kid := kids
			if kids.Kind() == lpdf.Array {
				kid = kids.Index(i)
			}
			if kid.Kind() != lpdf.Dict {
				continue
			}
			id := idOf(kid)
			if id != parent && id != (objID{}) {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
			walk(kid, res, depth+1)
		}
	}
	pagesRoot := root.Key("Pages")
	if pagesRoot.Kind() != lpdf.Dict {
		return nil
	}
	seen[idOf(pagesRoot)] = true
	walk(pagesRoot, lpdf.Value{}, 0)
	return pages
}
