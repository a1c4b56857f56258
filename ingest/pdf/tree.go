package pdf

import lpdf "github.com/ledongthuc/pdf"

// maxTreeDepth bounds the recursion of number and name tree walks.
const maxTreeDepth = 64

// walkTree visits the nodes of a number or name tree (page labels, named
// destinations) depth first through their /Kids, bounded: at most maxNodes
// nodes and maxTreeDepth levels, each indirect node once, so a cyclic or
// lying tree cannot hang or overflow the stack. visit returns false to stop.
func walkTree(root lpdf.Value, maxNodes int, visit func(node lpdf.Value) bool) {
	seen := map[objID]bool{idOf(root): true}
	nodes := 0
	stopped := false
	var walk func(node lpdf.Value, depth int)
	walk = func(node lpdf.Value, depth int) {
		if stopped || depth > maxTreeDepth || nodes >= maxNodes {
			return
		}
		nodes++
		if !visit(node) {
			stopped = true
			return
		}
		kids := node.Key("Kids")
		parent := idOf(node)
		for i := 0; i < kids.Len(); i++ {
			kid := kids.Index(i)
			id := idOf(kid)
			if id != parent && id != (objID{}) {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
			walk(kid, depth+1)
		}
	}
	walk(root, 0)
}
