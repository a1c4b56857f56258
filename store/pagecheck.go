package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// The structural check of the bbolt file, done here rather than by bbolt's
// Tx.Check. Tx.Check runs in a goroutine bbolt starts itself, where
// SetPanicOnFault (see guard) does not reach, and it follows page ids and
// element offsets through the memory map as the file states them: on a
// damaged file it faults (a dead process, not an error), or loops over an
// overflow count of billions. This walk reads the pages with ReadAt, in
// the caller's goroutine, and bounds every id, offset and count by the
// file before it follows one, so no damage can fault it, and every page is
// visited at most once, so none can loop it.
//
// It checks what Tx.Check does: every page below the high-water mark is
// reachable from the root or free, none twice, none both; reachable pages
// are branch or leaf pages with the id they are reached by; keys ascend in
// every page and fall inside the range their parent gives them. It adds
// the bounds of every element, key and value inside its page.

// bbolt's page layout (go.etcd.io/bbolt/internal/common).
const (
	boltBranchPage   = 0x01
	boltLeafPage     = 0x02
	boltFreelistPage = 0x10
	boltBucketLeaf   = 0x01      // leaf element flag: the value is a bucket
	boltElementSize  = 16        // branch: pos, ksize, pgid; leaf: flags, pos, ksize, vsize
	boltBucketHeader = 16        // root pgid, sequence
	boltNoFreelist   = 1<<64 - 1 // meta freelist id when the freelist is not synced
	maxTreeDepth     = 64
	maxPageFindings  = 50
)

// boltRoot is what the structural walk needs of a meta page.
type boltRoot struct {
	boltMeta
	root, freelist uint64
}

func parseBoltRoot(page []byte) (boltRoot, bool) {
	m, ok := parseBoltMeta(page)
	if !ok {
		return boltRoot{}, false
	}
	b := page[boltPageHeader:]
	le := binary.LittleEndian
	return boltRoot{boltMeta: m, root: le.Uint64(b[16:]), freelist: le.Uint64(b[32:])}, true
}

// Page states during the walk.
const (
	pageUnseen = iota
	pageReached
	pageFree
)

type pageWalk struct {
	r        io.ReaderAt
	pageSize int
	hwm      uint64
	state    []uint8 // by page id; nil in a shallow walk, which uses top
	// shallow walks the top-level tree only, with its inline buckets,
	// checking the header of each other bucket's root page (checkTop).
	shallow  bool
	top      map[uint64]uint8
	findings []Finding
	dropped  int // findings past maxPageFindings
}

func (w *pageWalk) fail(format string, args ...any) {
	if len(w.findings) >= maxPageFindings {
		w.dropped++
		return
	}
	w.findings = append(w.findings, Finding{Kind: "bbolt", Detail: fmt.Sprintf(format, args...)})
}

// checkPages walks the bbolt file of db as of the read transaction whose
// id is txid (the meta page of that transaction; the newest valid one if
// neither is). It returns the findings; err is set only when the file
// cannot be read. No write may run beside it: the pages of older
// transactions are reused.
func (db *DB) checkPages(txid uint64) ([]Finding, error) {
	if db.file == nil {
		return nil, nil // no file: nothing of bbolt's to walk
	}
	return checkPagesOf(db.file, txid, false)
}

// checkTop walks the top-level tree of the file as of transaction txid:
// its pages, the inline buckets in them, and the header of every other
// bucket's root page. Every open runs it: bbolt copies an inline bucket
// that is not aligned into the Go heap, and a damaged element offset or
// size in it then makes slices into other heap objects, which the garbage
// collector takes for pointers and stops the process over ("marked free
// object", "bad pointer in Go heap"): nothing recovers from that. A root
// page id that names no tree page would send bbolt's cursors down a
// descent that never ends. Pages deeper in a tree are the audit's.
func (db *DB) checkTop(txid uint64) error {
	if db.file == nil {
		return nil
	}
	fs, err := checkPagesOf(db.file, txid, true)
	if err != nil {
		return err
	}
	if len(fs) > 0 {
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, db.path, fs[0].Detail)
	}
	return nil
}

func checkPagesOf(r io.ReaderAt, txid uint64, shallow bool) ([]Finding, error) {
	head := make([]byte, boltPageHeader+boltMetaSize)
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("store: reading the first meta page: %w", err)
	}
	m0, ok0 := parseBoltRoot(head)
	pageSize := os.Getpagesize()
	if ok0 {
		pageSize = int(m0.pageSize)
	}
	second := make([]byte, len(head))
	var m1 boltRoot
	ok1 := false
	if _, err := r.ReadAt(second, int64(pageSize)); err == nil {
		m1, ok1 = parseBoltRoot(second)
	}
	var m boltRoot
	switch {
	case ok0 && m0.txid == txid:
		m = m0
	case ok1 && m1.txid == txid:
		m = m1
	case ok0 && (!ok1 || m0.txid >= m1.txid):
		m = m0
	case ok1:
		m = m1
	default:
		return []Finding{{Kind: "bbolt", Detail: "no valid meta page"}}, nil
	}
	if int(m.pageSize) != pageSize || pageSize < 512 || pageSize > 1<<20 {
		return []Finding{{Kind: "bbolt", Detail: fmt.Sprintf("meta pages disagree on the page size (%d, %d)", m0.pageSize, m1.pageSize)}}, nil
	}
	w := &pageWalk{r: r, pageSize: pageSize, hwm: m.pgid, shallow: shallow}
	if m.pgid < 2 {
		return []Finding{{Kind: "bbolt", Detail: fmt.Sprintf("high-water mark %d below the meta pages", m.pgid)}}, nil
	}
	if shallow {
		w.top = map[uint64]uint8{}
		w.tree(m.root, nil, nil, 0, true)
		return w.findings, nil
	}
	// bbolt writes both meta pages when it creates a file and one on each
	// commit, so both are valid unless one was damaged or its write torn
	// by a crash; bbolt then reads the other, the transaction before: a
	// consistent store that lacks the last commit.
	for i, ok := range []bool{ok0, ok1} {
		if !ok {
			w.fail("meta page %d fails its checksum: the store is read as of transaction %d, the last commit may be lost", i, m.txid)
		}
	}
	w.state = make([]uint8, m.pgid) // the file holds them all (preflight), so this is bounded by its size
	w.state[0], w.state[1] = pageReached, pageReached
	synced := m.freelist != boltNoFreelist
	if synced {
		w.freelist(m.freelist)
	}
	w.tree(m.root, nil, nil, 0, true)
	if synced {
		for id := uint64(2); id < w.hwm; id++ {
			if w.state[id] == pageUnseen {
				w.fail("page %d: unreachable unfreed", id)
			}
		}
	}
	if w.dropped > 0 {
		w.findings = append(w.findings, Finding{Kind: "bbolt", Detail: fmt.Sprintf("%d more page findings not listed", w.dropped)})
	}
	return w.findings, nil
}

// page is one page as read: its header, its first page of bytes (the rest
// of an overflowing page is read when asked for), and its length.
type page struct {
	id       uint64
	flags    uint16
	count    int
	overflow uint32
	buf      []byte
	off      int64 // file offset; -1 for an inline page, which is all in buf
	span     int   // bytes, overflow pages included
}

func (w *pageWalk) read(id uint64) (*page, bool) {
	buf := make([]byte, w.pageSize)
	if _, err := w.r.ReadAt(buf, int64(id)*int64(w.pageSize)); err != nil {
		w.fail("page %d: %v", id, err)
		return nil, false
	}
	p := header(buf)
	p.off = int64(id) * int64(w.pageSize)
	if p.id != id {
		w.fail("page %d: identifies as page %d", id, p.id)
		return nil, false
	}
	if uint64(p.overflow) >= w.hwm-id {
		w.fail("page %d: %d overflow pages run past the high-water mark %d", id, p.overflow, w.hwm)
		return nil, false
	}
	p.span = (int(p.overflow) + 1) * w.pageSize
	return p, true
}

func header(b []byte) *page {
	le := binary.LittleEndian
	return &page{id: le.Uint64(b), flags: le.Uint16(b[8:]), count: int(le.Uint16(b[10:])),
		overflow: le.Uint32(b[12:]), buf: b, span: len(b)}
}

// inside reports whether n bytes at offset o fall inside the page, making
// a finding when they do not.
func (w *pageWalk) inside(p *page, o, n uint64, what string) bool {
	if o > uint64(p.span) || n > uint64(p.span)-o {
		w.fail("page %d: %s [%d, +%d) outside the page's %d bytes", p.id, what, o, n, p.span)
		return false
	}
	return true
}

// at returns n bytes at offset o of the page; ok is false (and a finding
// made) when they fall outside it.
func (w *pageWalk) at(p *page, o, n uint64, what string) ([]byte, bool) {
	if !w.inside(p, o, n, what) {
		return nil, false
	}
	if o+n <= uint64(len(p.buf)) {
		return p.buf[o : o+n], true
	}
	b := make([]byte, n)
	if _, err := w.r.ReadAt(b, p.off+int64(o)); err != nil {
		w.fail("page %d: %s: %v", p.id, what, err)
		return nil, false
	}
	return b, true
}

// mark records the pages of p as reached, reporting pages reached before
// or free; ok is false when p was reached before (a cycle or a shared page:
// not walked again).
func (w *pageWalk) mark(p *page) bool {
	for i := uint64(0); i <= uint64(p.overflow); i++ {
		switch w.stateOf(p.id + i) {
		case pageReached:
			w.fail("page %d: multiple references", p.id+i)
			return false
		case pageFree:
			w.fail("page %d: reachable freed", p.id+i)
		}
		w.setState(p.id+i, pageReached)
	}
	return true
}

func (w *pageWalk) stateOf(id uint64) uint8 {
	if w.state == nil {
		return w.top[id]
	}
	return w.state[id]
}

func (w *pageWalk) setState(id uint64, s uint8) {
	if w.state == nil {
		w.top[id] = s
		return
	}
	w.state[id] = s
}

func (w *pageWalk) freelist(id uint64) {
	if id < 2 || id >= w.hwm {
		w.fail("freelist page %d out of bounds [2, %d)", id, w.hwm)
		return
	}
	p, ok := w.read(id)
	if !ok {
		return
	}
	if p.flags != boltFreelistPage {
		w.fail("freelist page %d: type %#x", id, p.flags)
		return
	}
	w.mark(p)
	n, start := uint64(p.count), uint64(boltPageHeader)
	if p.count == 0xFFFF { // the count did not fit: it is the first element
		b, ok := w.at(p, start, 8, "freelist count")
		if !ok {
			return
		}
		n, start = binary.LittleEndian.Uint64(b), start+8
	}
	if n > w.hwm {
		w.fail("freelist page %d: %d free pages, more than the %d pages of the file", id, n, w.hwm)
		return
	}
	b, ok := w.at(p, start, 8*n, "freelist ids")
	if !ok {
		return
	}
	for i := range n {
		f := binary.LittleEndian.Uint64(b[8*i:])
		switch {
		case f < 2 || f >= w.hwm:
			w.fail("freelist: page %d out of bounds [2, %d)", f, w.hwm)
		case w.state[f] == pageFree:
			w.fail("page %d: already freed", f)
		case w.state[f] == pageReached:
			w.fail("page %d: reachable freed", f) // the freelist's own pages
		default:
			w.state[f] = pageFree
		}
	}
}

// tree walks the b+tree page id whose keys must lie in [lo, hi) (nil: no
// bound). top says whether it is a page of the top-level (root) bucket,
// whose leaves hold buckets only.
func (w *pageWalk) tree(id uint64, lo, hi []byte, depth int, top bool) {
	if depth > maxTreeDepth {
		w.fail("page %d: tree deeper than %d pages", id, maxTreeDepth)
		return
	}
	if id < 2 || id >= w.hwm {
		w.fail("page %d: out of bounds [2, %d)", id, w.hwm)
		return
	}
	p, ok := w.read(id)
	if !ok {
		return
	}
	if p.flags != boltBranchPage && p.flags != boltLeafPage {
		w.fail("page %d: invalid type %#x", id, p.flags)
		return
	}
	if !w.mark(p) {
		return
	}
	w.elements(p, lo, hi, depth, top)
}

// elements checks the elements of a branch or leaf page, descending into
// children and sub-buckets.
func (w *pageWalk) elements(p *page, lo, hi []byte, depth int, top bool) {
	if p.flags == boltBranchPage && p.count == 0 {
		w.fail("page %d: branch page without elements", p.id)
		return
	}
	elems, ok := w.at(p, boltPageHeader, uint64(p.count)*boltElementSize, "element array")
	if !ok {
		return
	}
	le := binary.LittleEndian
	type child struct {
		id  uint64
		key []byte
	}
	var children []child
	prev := lo
	// bbolt writes the keys and values right after the element array, in
	// element order, with nothing between them, into a zeroed buffer
	// (node.write): data must start where the last element's ended, and
	// the rest of the page must be zero. A damaged count, position or
	// size breaks one of the two.
	next := uint64(boltPageHeader + p.count*boltElementSize)
	for i := range p.count {
		e := elems[i*boltElementSize:]
		eo := uint64(boltPageHeader + i*boltElementSize) // offsets are relative to the element
		var flags uint32
		var pos, ksize, vsize uint64
		if p.flags == boltBranchPage {
			pos, ksize = uint64(le.Uint32(e)), uint64(le.Uint32(e[4:]))
		} else {
			flags, pos, ksize, vsize = le.Uint32(e), uint64(le.Uint32(e[4:])), uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		}
		if eo+pos != next {
			w.fail("page %d: element %d data at byte %d, where element %d's ended at %d", p.id, i, eo+pos, i-1, next)
			return
		}
		next = eo + pos + ksize + vsize
		key, ok := w.at(p, eo+pos, ksize, fmt.Sprintf("key %d", i))
		if !ok {
			return
		}
		switch {
		case ksize == 0:
			w.fail("page %d: key %d is empty", p.id, i)
		case i == 0 && prev != nil && bytes.Compare(key, prev) < 0:
			w.fail("page %d: first key %x below the parent's %x", p.id, key, prev)
		case i > 0 && bytes.Compare(key, prev) <= 0:
			w.fail("page %d: key %d (%x) not above key %d (%x)", p.id, i, key, i-1, prev)
		case hi != nil && bytes.Compare(key, hi) >= 0:
			w.fail("page %d: key %d (%x) not below the parent's next key %x", p.id, i, key, hi)
		}
		prev = key
		if flags&^boltBucketLeaf != 0 {
			w.fail("page %d: element %d has flags %#x", p.id, i, flags)
		}
		if p.flags == boltBranchPage {
			children = append(children, child{le.Uint64(e[8:]), key})
			continue
		}
		if flags&boltBucketLeaf == 0 {
			if top {
				w.fail("page %d: key %q at the top level is a value, not a bucket", p.id, key)
			}
			if !w.inside(p, eo+pos+ksize, vsize, fmt.Sprintf("value %d", i)) {
				return
			}
			continue
		}
		v, ok := w.at(p, eo+pos+ksize, vsize, fmt.Sprintf("bucket %q header", key))
		if !ok {
			return
		}
		if len(v) < boltBucketHeader {
			w.fail("page %d: bucket %q: %d-byte header", p.id, key, len(v))
			continue
		}
		if root := le.Uint64(v); root != 0 {
			if !w.shallow {
				w.tree(root, nil, nil, depth+1, false)
			} else if root < 2 || root >= w.hwm {
				w.fail("bucket %q: root page %d out of bounds [2, %d)", key, root, w.hwm)
			} else if rp, ok := w.read(root); ok && rp.flags != boltBranchPage && rp.flags != boltLeafPage {
				w.fail("bucket %q: root page %d has type %#x", key, root, rp.flags)
			}
			continue
		}
		// An inline bucket: a leaf page inside the value.
		inline := v[boltBucketHeader:]
		if len(inline) < boltPageHeader {
			w.fail("page %d: inline bucket %q of %d bytes", p.id, key, len(inline))
			continue
		}
		ip := header(inline)
		ip.id, ip.off = p.id, -1 // findings name the page that holds it
		if ip.flags != boltLeafPage {
			w.fail("page %d: inline bucket %q: type %#x", p.id, key, ip.flags)
			continue
		}
		w.elements(ip, nil, nil, depth+1, false)
	}
	if p.off < 0 {
		if next != uint64(p.span) {
			w.fail("inline bucket in page %d: %d bytes of data in %d", p.id, next, p.span)
		}
	} else if tail, ok := w.at(p, next, uint64(p.span)-next, "unused space"); ok {
		for i, c := range tail {
			if c != 0 {
				w.fail("page %d: byte %d, past the last element's data (%d), is not zero", p.id, next+uint64(i), next)
				break
			}
		}
	}
	for i, c := range children {
		next := hi
		if i+1 < len(children) {
			next = children[i+1].key
		}
		w.tree(c.id, c.key, next, depth+1, top)
	}
}
