package pdf

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// treePDF writes a PDF whose catalog (object 1) has /Pages 2 0 R and whose
// other objects are given as dictionary bodies by number. In a body, the
// token PAGE(name) becomes a page dictionary whose content stream shows
// name (UPAGE(name) the same without /Type); its stream and the font get
// object numbers above all others.
func treePDF(objs map[int]string) []byte {
	bodies := map[int]string{1: "<< /Type /Catalog /Pages 2 0 R >>"}
	next := 1
	for n := range objs {
		next = max(next, n)
	}
	next++
	font := next
	next++
	bodies[font] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	for _, n := range slices.Sorted(maps.Keys(objs)) {
		body := objs[n]
		for {
			i := strings.Index(body, "PAGE(")
			if i < 0 {
				break
			}
			typ := "/Type /Page "
			start := i
			if i > 0 && body[i-1] == 'U' {
				typ, start = "", i-1
			}
			j := strings.Index(body[i:], ")") + i
			name := body[i+len("PAGE(") : j]
			content := fmt.Sprintf("BT /F1 12 Tf 20 100 Td (%s) Tj ET", name)
			bodies[next] = fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
			page := fmt.Sprintf("<< %s/MediaBox [0 0 200 200] /Resources << /Font << /F1 %d 0 R >> >> /Contents %d 0 R >>", typ, font, next)
			next++
			body = body[:start] + page + body[j+1:]
		}
		bodies[n] = body
	}
	var b strings.Builder
	b.WriteString("%PDF-1.7\n")
	offs := map[int]int{}
	for _, n := range slices.Sorted(maps.Keys(bodies)) {
		offs[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, bodies[n])
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", next)
	for n := 1; n < next; n++ {
		if off, ok := offs[n]; ok {
			fmt.Fprintf(&b, "%010d 00000 n \n", off)
		} else {
			b.WriteString("0000000000 65535 f \n")
		}
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", next, xref)
	return []byte(b.String())
}

// pageTexts extracts src and returns each page's text, "MISSING" for a page
// rule 5 of pages.go added.
func pageTexts(t *testing.T, src []byte, lim Limits) []string {
	t.Helper()
	_, pages, doc, err := extractText(src, lim)
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	if doc.Pages != len(pages) {
		t.Fatalf("Doc.Pages %d, %d delivered", doc.Pages, len(pages))
	}
	var out []string
	for _, p := range pages {
		switch {
		case p.Err == errMissingPage && p.Text == "":
			out = append(out, "MISSING")
		case p.Err != "":
			t.Fatalf("page %d: unexpected error %q", p.Number, p.Err)
		default:
			out = append(out, strings.TrimSpace(p.Text))
		}
	}
	return out
}

// TestPageTreeRules checks each rule of pages.go on a crafted tree. The
// comment on each case says what pdf.js 5.6 (numPages, then each page) and
// poppler 22 (pdfinfo's count, pdftotext's pages) show for the same file,
// as measured when the rule was written.
func TestPageTreeRules(t *testing.T) {
	tests := []struct {
		name string
		objs map[int]string
		want []string
	}{
		// pdf.js A A; poppler 2: A A.
		{"shared page", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>", 3: "PAGE(A)"},
			[]string{"A", "A"}},
		// pdf.js A B A C; poppler the same.
		{"shared page between others", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 4 0 R 3 0 R 5 0 R] /Count 4 >>",
			3: "PAGE(A)", 4: "PAGE(B)", 5: "PAGE(C)"},
			[]string{"A", "B", "A", "C"}},
		// pdf.js A A; poppler the same.
		{"shared subtree", map[int]string{2: "<< /Type /Pages /Kids [6 0 R 6 0 R] /Count 2 >>",
			6: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", 3: "PAGE(A)"},
			[]string{"A", "A"}},
		// pdf.js A B B; poppler the same.
		{"page under two parents", map[int]string{2: "<< /Type /Pages /Kids [6 0 R 7 0 R] /Count 3 >>",
			6: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>", 7: "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
			3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "B"}},
		// Rule 4. pdf.js A; poppler 1: A.
		{"shared page, /Count 1", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 1 >>", 3: "PAGE(A)"},
			[]string{"A"}},
		// Rule 4. pdf.js A; poppler 1: A.
		{"count below the pages", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 1 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A"}},
		// Rule 4 with a real count. pdf.js A; poppler 1: A.
		{"count 1.0", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 1.0 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A"}},
		// No usable count: the walk. pdf.js A B (without /Count), 0 pages
		// (/Count 0); poppler fails on both.
		{"no count", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 4 0 R] >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B"}},
		{"count 0", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 0 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B"}},
		// A count above the pages of an undamaged tree is ignored. pdf.js
		// A; poppler 5, of which pdftotext prints A.
		{"count above the pages", map[int]string{2: "<< /Type /Pages /Kids [3 0 R] /Count 5 >>", 3: "PAGE(A)"},
			[]string{"A"}},
		// A /Type /Pages node without /Kids is a (blank) page. pdf.js A,
		// blank, B; poppler the same.
		{"pages node without kids", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 6 0 R 4 0 R] /Count 3 >>",
			6: "<< /Type /Pages /Count 0 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "", "B"}},
		// Rules 3 and 5. pdf.js A, error, B; poppler 3: A B.
		{"cycle to itself", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 6 0 R 4 0 R] /Count 3 >>",
			6: "<< /Type /Pages /Kids [6 0 R] /Count 1 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "MISSING"}},
		// pdf.js A B; poppler 2: A B.
		{"cycle, count matching", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 6 0 R 4 0 R] /Count 2 >>",
			6: "<< /Type /Pages /Kids [6 0 R] /Count 0 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B"}},
		// pdf.js A, error (B unreachable); poppler 2: A B.
		{"cycle to the root", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 6 0 R 4 0 R] /Count 2 >>",
			6: "<< /Type /Pages /Kids [2 0 R] >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B"}},
		// pdf.js A, error (B unreachable); poppler 3: A B.
		{"root lists itself", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 2 0 R 4 0 R] /Count 3 >>",
			3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "MISSING"}},
		// pdf.js A, error, error, B; poppler 4: A B.
		{"two cycles", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 6 0 R 4 0 R] /Count 4 >>",
			6: "<< /Type /Pages /Kids [6 0 R 6 0 R] /Count 2 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "MISSING", "MISSING"}},
		// pdf.js 2: A, error; poppler 3: A B.
		{"missing kid", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 9 0 R 4 0 R] /Count 3 >>", 3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "MISSING"}},
		{"kid not a dictionary", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 7 0 R 4 0 R] /Count 3 >>", 7: "42",
			3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "MISSING"}},
		// Rule 5 trusts no /Count above the number of objects (7 here).
		{"cycle, count beyond the objects", map[int]string{2: "<< /Type /Pages /Kids [3 0 R 2 0 R 4 0 R 3 0 R] /Count 9999999999 >>",
			3: "PAGE(A)", 4: "PAGE(B)"},
			[]string{"A", "B", "A"}},
		// pdf.js A B C; poppler the same: intermediate counts are ignored.
		{"subtree count too low", map[int]string{2: "<< /Type /Pages /Kids [6 0 R 5 0 R] /Count 3 >>",
			6: "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 1 >>", 3: "PAGE(A)", 4: "PAGE(B)", 5: "PAGE(C)"},
			[]string{"A", "B", "C"}},
		{"direct kid and bracketless kids", map[int]string{2: "<< /Type /Pages /Kids [PAGE(A) 6 0 R] /Count 2 >>",
			6: "<< /Type /Pages /Kids 3 0 R /Count 1 >>", 3: "PAGE(B)"},
			[]string{"A", "B"}},
		// Page dictionaries without /Type, reached twice.
		{"untyped pages", map[int]string{2: "<< /Kids [3 0 R 6 0 R 3 0 R] >>", 6: "<< /Kids [4 0 R] >>",
			3: "UPAGE(A)", 4: "UPAGE(B)"},
			[]string{"A", "B", "A"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := pageTexts(t, treePDF(tc.objs), Limits{})
			if !slices.Equal(got, tc.want) {
				t.Errorf("pages %q, want %q", got, tc.want)
			}
		})
	}
}

// pagesTreeRefs is pdf.js's test/pdfs/Pages-tree-refs.pdf, rebuilt: page 6
// and a cycle 3 → 4 → 5 → 3 under a root with /Count 2. pdf.js reports 2
// pages, the second failing with "Pages tree contains circular reference";
// pdfinfo reports 2; pdftotext prints page 1.
var pagesTreeRefs = map[int]string{
	2: "<< /Type /Pages /Kids [6 0 R 3 0 R] /Count 2 >>",
	3: "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
	4: "<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
	5: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
	6: "PAGE(Testcase: Pages loop)",
}

func TestPagesTreeRefs(t *testing.T) {
	got := pageTexts(t, treePDF(pagesTreeRefs), Limits{})
	if want := []string{"Testcase: Pages loop", "MISSING"}; !slices.Equal(got, want) {
		t.Errorf("pages %q, want %q", got, want)
	}
}

// A chain deeper than any fixed recursion limit loses no page.
func TestPageTreeDeep(t *testing.T) {
	const depth = 300
	objs := map[int]string{}
	var want []string
	for i := 0; i < depth; i++ {
		n := 2 + 2*i
		kids := fmt.Sprintf("%d 0 R", n+1)
		if i < depth-1 {
			kids += fmt.Sprintf(" %d 0 R", n+2)
		}
		objs[n] = fmt.Sprintf("<< /Type /Pages /Kids [%s] >>", kids)
		objs[n+1] = fmt.Sprintf("PAGE(P%d)", i)
		want = append(want, fmt.Sprintf("P%d", i))
	}
	got := pageTexts(t, treePDF(objs), Limits{})
	if !slices.Equal(got, want) {
		t.Errorf("got %d pages, want %d in order", len(got), len(want))
	}
}

// Shared subtrees are walked at each place, within a visit budget: 40
// levels of a node listing the next one twice ask for 2^40 visits.
func TestPageTreeSharedBomb(t *testing.T) {
	objs := map[int]string{}
	for i := 0; i < 40; i++ {
		objs[2+i] = fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R %d 0 R] >>", 3+i, 3+i)
	}
	objs[42] = "<< /Type /Pages /Kids [] >>" // no page at all: nothing stops the walk but the budget
	_, _, _, err := extractText(treePDF(objs), Limits{MaxPages: 10})
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonTooLarge || !errors.Is(err, ErrTooManyPages) {
		t.Fatalf("got %v, want reason too_large", err)
	}
	// With pages at the leaves, MaxPages stops the walk first.
	objs[42] = "PAGE(leaf)"
	_, _, _, err = extractText(treePDF(objs), Limits{MaxPages: 100})
	if !errors.As(err, &e) || e.Reason != ReasonTooLarge || !errors.Is(err, ErrTooManyPages) {
		t.Fatalf("with pages: got %v, want reason too_large", err)
	}
}

// Pages reached twice count toward MaxPages at each place.
func TestPageTreeSharedLimit(t *testing.T) {
	src := treePDF(map[int]string{2: "<< /Type /Pages /Kids [3 0 R 3 0 R 3 0 R] /Count 3 >>", 3: "PAGE(A)"})
	if got := pageTexts(t, src, Limits{MaxPages: 3}); len(got) != 3 {
		t.Fatalf("MaxPages 3: got %d pages", len(got))
	}
	_, _, _, err := extractText(src, Limits{MaxPages: 2})
	if !errors.Is(err, ErrTooManyPages) {
		t.Fatalf("MaxPages 2: got %v, want too many pages", err)
	}
}

// fuzzTree decodes fuzz bytes into a page tree for treePDF: object 2 is
// the root, objects 2..n+1 are pages or /Pages nodes whose kids are any of
// them or a missing object (900). See FuzzPageTree.
type fuzzNode struct {
	page    bool
	untyped bool
	kids    []int
	count   int64 // -1: no /Count
}

func fuzzTree(b []byte) map[int]fuzzNode {
	at := 0
	next := func() int {
		if at >= len(b) {
			return 0
		}
		at++
		return int(b[at-1])
	}
	n := 1 + next()%8
	nodes := map[int]fuzzNode{}
	for k := 0; k < n; k++ {
		h := next()
		nd := fuzzNode{page: h&1 == 1, untyped: h&0x40 != 0, count: -1}
		if !nd.page {
			if c := next() % (2*n + 3); c > 0 {
				nd.count = int64(c - 1)
			}
			for m := (h >> 1) % 5; m > 0; m-- {
				kid := next() % (n + 1)
				if kid == n {
					nd.kids = append(nd.kids, 900)
				} else {
					nd.kids = append(nd.kids, 2+kid)
				}
			}
		}
		nodes[2+k] = nd
	}
	return nodes
}

func (nd fuzzNode) body(num int) string {
	if nd.page {
		if nd.untyped {
			return fmt.Sprintf("UPAGE(P%d)", num)
		}
		return fmt.Sprintf("PAGE(P%d)", num)
	}
	var b strings.Builder
	b.WriteString("<< ")
	if !nd.untyped {
		b.WriteString("/Type /Pages ")
	}
	b.WriteString("/Kids [")
	for _, k := range nd.kids {
		fmt.Fprintf(&b, "%d 0 R ", k)
	}
	b.WriteString("]")
	if nd.count >= 0 {
		fmt.Fprintf(&b, " /Count %d", nd.count)
	}
	b.WriteString(" >>")
	return b.String()
}

// modelPages states the rules of pages.go over the decoded tree, by
// recursion rather than the walk's explicit stack. It returns the page
// texts ("MISSING" for a page rule 5 added), or tooLarge.
func modelPages(nodes map[int]fuzzNode, limit, numObjects int) (pages []string, tooLarge bool) {
	root := nodes[2]
	count := max(root.count, 0)
	if root.page {
		return []string{"P2"}, false
	}
	stopAt := limit
	if count >= 1 && count < int64(limit) {
		stopAt = int(count)
	}
	budget := treeVisitsPerPage*(limit+1) + treeVisitsExtra
	visits, dropped := 0, 0
	var seq []string
	path := map[int]bool{2: true}
	var visit func(k int) bool
	visit = func(k int) bool {
		for _, kid := range nodes[k].kids {
			if len(seq) > stopAt {
				return true
			}
			if visits++; visits > budget {
				return false
			}
			nd, ok := nodes[kid]
			switch {
			case !ok || path[kid]:
				dropped++
			case nd.page:
				seq = append(seq, fmt.Sprintf("P%d", kid))
			default:
				path[kid] = true
				if !visit(kid) {
					return false
				}
				delete(path, kid)
			}
		}
		return true
	}
	if !visit(2) {
		return nil, true
	}
	if n := int64(len(seq)); count >= 1 && n > count {
		seq = seq[:count]
	} else if n > 0 && dropped > 0 && count > n && count <= int64(numObjects) {
		for int64(len(seq)) < count && len(seq) <= limit {
			seq = append(seq, "MISSING")
		}
	}
	return seq, len(seq) > limit
}

// FuzzPageTree builds page trees of up to 8 nodes (cycles, shared kids,
// missing kids, lying counts) and checks Extract's pages against
// modelPages. Seeds in testdata/fuzz/FuzzPageTree; run with
// go test ./ingest/pdf -run '^$' -fuzz FuzzPageTree.
func FuzzPageTree(f *testing.F) {
	// The Pages-tree-refs shape: root [page, 3], 3 → 4 → 5 → 3, /Count 2.
	f.Add([]byte{4, 4, 3, 4, 1, 2, 2, 2, 2, 2, 3, 2, 2, 1, 1})
	f.Add([]byte{1, 4, 3, 1, 1, 1}) // a page listed twice, /Count 2
	// Seven nodes each listing the next four times: 4^7 pages.
	f.Add([]byte{7, 8, 0, 1, 1, 1, 1, 8, 0, 2, 2, 2, 2, 8, 0, 3, 3, 3, 3, 8, 0, 4, 4, 4, 4, 8, 0, 5, 5, 5, 5, 8, 0, 6, 6, 6, 6, 8, 0, 7, 7, 7, 7, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		nodes := fuzzTree(b)
		objs := map[int]string{}
		nobj := 2 // the catalog and the font
		for k, nd := range nodes {
			objs[k] = nd.body(k)
			nobj++
			if nd.page {
				nobj++ // its content stream
			}
		}
		const limit = 64
		want, tooLarge := modelPages(nodes, limit, nobj)
		_, pages, doc, err := extractText(treePDF(objs), Limits{MaxPages: limit})
		if tooLarge {
			if !errors.Is(err, ErrTooManyPages) {
				t.Fatalf("model: too large; got %d pages, err %v", len(pages), err)
			}
			return
		}
		if len(want) == 0 {
			return // Extract falls back to every page object of the file
		}
		if err != nil {
			t.Fatalf("want %q, got error %v", want, err)
		}
		var got []string
		for _, p := range pages {
			if p.Err == errMissingPage {
				got = append(got, "MISSING")
			} else {
				got = append(got, strings.TrimSpace(p.Text))
			}
		}
		if !slices.Equal(got, want) || doc.Pages != len(want) {
			t.Fatalf("tree %v: got %q (Doc.Pages %d), want %q", nodes, got, doc.Pages, want)
		}
	})
}
