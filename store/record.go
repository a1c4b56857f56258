package store

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"time"
)

// Records are encoded in a small binary form rather than JSON: resolving a
// chunk decodes three records, and JSON would cost more than the bbolt reads.
// Every record starts with a one-byte record version.
//
// Records are sealed: version 2 is the version 1 body followed by the
// CRC-32C of everything before it, checked on every read, so one flipped
// bit in a chunk record cannot send a reader to the wrong offsets, page or
// section (the span text has its own BLAKE3). Version 1 records, written
// before, still read, unchecked, until a rebuild writes them anew.
//
// Version 3, for documents only, is version 2 with extension fields after
// the version 1 body (see encodeExt); it is written only when one of them
// is set, so a document that never had one keeps the bytes older builds
// read.
const (
	recordV1 = 1
	recordV2 = 2
	recordV3 = 3
)

// seal turns an encoded version 1 record into a version 2 one.
func seal(b []byte) []byte {
	b[0] = recordV2
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)     { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) str(s string)  { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) id(id ID)      { e.b = append(e.b, id[:]...) }

// time writes nanoseconds since the Unix epoch; the zero Time (outside the
// range UnixNano can express) is written as 0.
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = binary.AppendVarint(e.b, t.UnixNano())
}
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}
func (e *encoder) ints(vs []int) {
	e.uint(uint64(len(vs)))
	prev := 0
	for _, v := range vs {
		e.int(v - prev) // deltas keep ascending offsets small
		prev = v
	}
}

// decoder reads what encoder wrote. The first error sticks and every later
// read returns a zero value, so decode functions check err once at the end.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated or malformed record (%s)", ErrCorrupt, what)
	}
	d.b = nil
}

func (d *decoder) uint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("varint")
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) { // every element takes at least one byte
		d.fail("count")
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail("string")
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) id() ID {
	var id ID
	if len(d.b) < len(id) {
		d.fail("hash")
		return id
	}
	copy(id[:], d.b)
	d.b = d.b[len(id):]
	return id
}

func (d *decoder) bool() bool {
	if len(d.b) < 1 {
		d.fail("bool")
		return false
	}
	v := d.b[0] != 0
	d.b = d.b[1:]
	return v
}

func (d *decoder) time() time.Time {
	ns := d.int()
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(ns)).UTC()
}

func (d *decoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *decoder) ints() []int {
	n := d.count()
	if n == 0 {
		return nil
	}
	vs := make([]int, n)
	prev := 0
	for i := range vs {
		prev += d.int()
		vs[i] = prev
	}
	return vs
}

// version reads the record version and checks the seal; newest is the
// highest record version the record kind has. It returns the version read,
// 0 after a failure.
func (d *decoder) version(what string, newest byte) byte {
	switch {
	case len(d.b) > 0 && d.b[0] == recordV1:
		d.b = d.b[1:]
		return recordV1
	case len(d.b) >= 5 && d.b[0] >= recordV2 && d.b[0] <= newest:
		rv := d.b[0]
		body := d.b[:len(d.b)-4]
		if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(d.b[len(d.b)-4:]) {
			d.err = fmt.Errorf("%w (%s record)", ErrChecksum, what)
			d.b = nil
			return 0
		}
		d.b = body[1:]
		return rv
	default:
		d.fail(what + " record version")
		return 0
	}
}

func (d *decoder) done(what string) error {
	if d.err == nil && len(d.b) != 0 {
		d.fail(what + ": trailing bytes")
	}
	return d.err
}

// Extension fields of a document record (version 3): a count, then each
// field as its tag, its length and its bytes, in ascending tag order. A
// reader skips a tag it does not know, so a later field needs no new
// record version; tags are never reused.
const (
	docExtACLUpdated = 1 // time (varint ns) the access list last changed
	docExtURLUpdated = 2 // time the source URL of a stored version last changed
)

func encodeDocument(doc *Document) []byte {
	e := encoder{b: []byte{recordV1}}
	e.str(doc.ID)
	e.str(doc.Current)
	e.strs(doc.Versions)
	e.strs(doc.ACL)
	e.bool(doc.Deleted)
	e.time(doc.Updated)
	var ext []extField
	if !doc.ACLUpdated.IsZero() {
		ext = append(ext, extField{docExtACLUpdated, timeBytes(doc.ACLUpdated)})
	}
	if !doc.URLUpdated.IsZero() {
		ext = append(ext, extField{docExtURLUpdated, timeBytes(doc.URLUpdated)})
	}
	if len(ext) == 0 {
		return seal(e.b) // version 2: what builds before version 3 read
	}
	e.uint(uint64(len(ext)))
	for _, f := range ext {
		e.uint(f.tag)
		e.str(string(f.b))
	}
	b := seal(e.b)
	b[0] = recordV3
	binary.BigEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

type extField struct {
	tag uint64
	b   []byte
}

func timeBytes(t time.Time) []byte {
	var e encoder
	e.time(t)
	return e.b
}

func decodeDocument(b []byte) (*Document, error) {
	d := decoder{b: b}
	rv := d.version("document", recordV3)
	doc := &Document{
		ID:       d.str(),
		Current:  d.str(),
		Versions: d.strs(),
		ACL:      d.strs(),
		Deleted:  d.bool(),
		Updated:  d.time(),
	}
	if rv == recordV3 {
		last := uint64(0)
		for n := d.count(); n > 0 && d.err == nil; n-- {
			tag := d.uint()
			f := decoder{b: []byte(d.str())}
			if tag <= last {
				d.fail("document extension order")
			}
			last = tag
			switch tag {
			case docExtACLUpdated:
				doc.ACLUpdated = f.time()
			case docExtURLUpdated:
				doc.URLUpdated = f.time()
			default:
				continue // a later build's field
			}
			if err := f.done("document extension"); err != nil && d.err == nil {
				d.err = err
			}
		}
	}
	return doc, d.done("document")
}

func encodeVersion(v *Version) []byte {
	e := encoder{b: []byte{recordV1}}
	e.str(v.ID)
	e.uint(v.Seq)
	e.str(v.DocumentID)
	e.id(v.SourceHash)
	e.id(v.TextHash)
	e.str(v.Fingerprint)
	e.str(v.Extractor)
	e.str(v.MediaType)
	e.str(v.SourceURL)
	e.str(v.SourcePath)
	e.int(int(v.SourceBytes))
	e.int(v.TextLen)
	e.int(v.TextBytes)
	e.int(v.Pages)
	e.int(v.Chunks)
	e.int(v.Quarantined)
	e.int(v.Repaired)
	e.time(v.Created)
	e.str(string(v.Status))
	e.time(v.Deleted)
	e.strs(v.ACL)
	return seal(e.b)
}

func decodeVersion(b []byte) (*Version, error) {
	d := decoder{b: b}
	d.version("version", recordV2)
	v := &Version{
		ID:          d.str(),
		Seq:         d.uint(),
		DocumentID:  d.str(),
		SourceHash:  d.id(),
		TextHash:    d.id(),
		Fingerprint: d.str(),
		Extractor:   d.str(),
		MediaType:   d.str(),
		SourceURL:   d.str(),
		SourcePath:  d.str(),
		SourceBytes: int64(d.int()),
		TextLen:     d.int(),
		TextBytes:   d.int(),
		Pages:       d.int(),
		Chunks:      d.int(),
		Quarantined: d.int(),
		Repaired:    d.int(),
		Created:     d.time(),
		Status:      Status(d.str()),
		Deleted:     d.time(),
		ACL:         d.strs(),
	}
	return v, d.done("version")
}

func encodeLayout(l *Layout) []byte {
	e := encoder{b: []byte{recordV1}}
	e.ints(l.PageStarts)
	e.strs(l.PageLabels)
	e.uint(uint64(len(l.Sections)))
	for _, s := range l.Sections {
		e.int(s.Start)
		e.int(s.End)
		e.strs(s.Path)
	}
	e.uint(uint64(len(l.LowConfidence)))
	for _, f := range l.LowConfidence {
		e.int(f.Page)
		e.str(f.Reason)
	}
	return seal(e.b)
}

func decodeLayout(b []byte) (*Layout, error) {
	d := decoder{b: b}
	d.version("layout", recordV2)
	l := &Layout{PageStarts: d.ints(), PageLabels: d.strs()}
	if n := d.count(); n > 0 {
		l.Sections = make([]Section, n)
		for i := range l.Sections {
			l.Sections[i] = Section{Start: d.int(), End: d.int(), Path: d.strs()}
		}
	}
	if n := d.count(); n > 0 {
		l.LowConfidence = make([]PageFlag, n)
		for i := range l.LowConfidence {
			l.LowConfidence[i] = PageFlag{Page: d.int(), Reason: d.str()}
		}
	}
	return l, d.done("layout")
}

func encodeChunk(c *Chunk) []byte {
	e := encoder{b: make([]byte, 0, 96)}
	e.b = append(e.b, recordV1)
	e.str(c.Version)
	e.uint(uint64(c.Ordinal))
	e.int(c.Start)
	e.int(c.End - c.Start)
	e.int(c.Page)
	e.int(c.PageEnd - c.Page)
	e.str(c.PageLabel)
	e.strs(c.SectionPath)
	e.id(c.SpanHash)
	e.int(c.ByteStart)
	e.int(c.ByteEnd - c.ByteStart)
	e.str(c.ExternalID)
	q := c.Quarantine
	e.bool(q != nil)
	if q != nil {
		e.str(q.Reason)
		e.str(q.Want)
		e.str(q.Got)
		e.int(q.ClaimedStart)
		e.int(q.ClaimedEnd)
		e.str(q.ClaimedText)
	}
	r := c.Repair
	e.bool(r != nil)
	if r != nil {
		e.str(r.Reason)
		e.str(r.Method)
		e.int(r.Distance)
		e.int(r.ClaimedStart)
		e.int(r.ClaimedEnd)
		e.int(r.ClaimedPage)
		e.str(r.ClaimedPageLabel)
		e.strs(r.ClaimedSection)
	}
	return seal(e.b)
}

func decodeChunk(b []byte) (*Chunk, error) {
	d := decoder{b: b}
	d.version("chunk", recordV2)
	c := &Chunk{Version: d.str()}
	if ord := d.uint(); ord > math.MaxUint32 {
		d.fail("chunk ordinal")
	} else {
		c.Ordinal = uint32(ord)
	}
	c.Start = d.int()
	c.End = c.Start + d.int()
	c.Page = d.int()
	c.PageEnd = c.Page + d.int()
	c.PageLabel = d.str()
	c.SectionPath = d.strs()
	c.SpanHash = d.id()
	c.ByteStart = d.int()
	c.ByteEnd = c.ByteStart + d.int()
	c.ExternalID = d.str()
	if d.bool() {
		c.Quarantine = &Quarantine{Reason: d.str(), Want: d.str(), Got: d.str(),
			ClaimedStart: d.int(), ClaimedEnd: d.int(), ClaimedText: d.str()}
	}
	if d.bool() {
		c.Repair = &Repair{Reason: d.str(), Method: d.str(), Distance: d.int(), ClaimedStart: d.int(),
			ClaimedEnd: d.int(), ClaimedPage: d.int(), ClaimedPageLabel: d.str(), ClaimedSection: d.strs()}
	}
	return c, d.done("chunk")
}
