package store

// Prefetcher is a backend transaction whose reads each cost a round trip
// to a server (PostgreSQL): Prefetch reads several keys in one, and keeps
// what it read for the transaction's later Get and Seek of exactly those
// keys, a key absent then being absent for the transaction. It reads in
// the transaction's snapshot, so a prefetched value is the value a Get
// would have read. It is a hint: a backend may read nothing, and one with
// no round trips (bbolt, memory) does not implement it.
type Prefetcher interface {
	Prefetch(keys []KeyRef)
}

// KeyRef names a key of a bucket.
type KeyRef struct{ Bucket, Key []byte }

// PrefetchChunk tells the transaction that a resolve of a chunk of
// version versionID is about to read the version's header, the chunk's
// record, its text (and the layout, which a PDF's, or a deep link,
// reads), and, for a version that is not current, its document and the
// current version's header: on a backend that is a server, they are read
// in one round trip instead of one each. The keys come from the header
// this process decoded last for the version (its sequence number names
// the chunk, text and layout), so the first resolve of a version in a
// process reads them one by one as before; a guess that no longer holds
// (a version stored again) only means the reads it missed are made as
// before. Nothing read this way is served without the checks of the
// ordinary reads: it only saves the round trips.
func (t *Tx) PrefetchChunk(versionID string, ordinal uint32) {
	p, ok := t.tx.(Prefetcher)
	if !ok {
		return
	}
	v := t.db.versions.peek([]byte(versionID))
	if v == nil {
		return
	}
	seq := seqKey(v.Seq)
	keys := []KeyRef{
		{bucketVersions, []byte(versionID)},
		{bucketChunks, chunkKey(v.Seq, ordinal)},
		{bucketTexts, seq},
		{bucketLayouts, seq},
	}
	if v.Status != StatusCurrent {
		keys = append(keys, KeyRef{bucketDocs, []byte(v.DocumentID)})
		if d := t.db.docs.peek([]byte(v.DocumentID)); d != nil && d.Current != "" && d.Current != versionID {
			keys = append(keys, KeyRef{bucketVersions, []byte(d.Current)})
		}
	}
	p.Prefetch(keys)
}

// PrefetchDocuments tells the transaction that it is about to read the
// records of the documents ids (stored or not): on a backend that is a
// server, in one round trip.
func (t *Tx) PrefetchDocuments(ids []string) { prefetchKeys(t.tx, bucketDocs, ids) }

// PrefetchVersions is PrefetchDocuments for version headers.
func (t *Tx) PrefetchVersions(ids []string) { prefetchKeys(t.tx, bucketVersions, ids) }

func prefetchKeys(tx BackendTx, bucket []byte, ids []string) {
	p, ok := tx.(Prefetcher)
	if !ok || len(ids) == 0 {
		return
	}
	keys := make([]KeyRef, len(ids))
	for i, id := range ids {
		keys[i] = KeyRef{bucket, []byte(id)}
	}
	p.Prefetch(keys)
}

// prefetchPut reads, on a Prefetcher, what writing nvs reads of each
// (its document, its version's header, its failure record; then the
// headers of the documents' versions, for the deletion rules and the
// version superseded) in two round trips, not several a version.
func prefetchPut(tx BackendTx, nvs []*NewVersion) {
	p, ok := tx.(Prefetcher)
	if !ok {
		return
	}
	keys := make([]KeyRef, 0, 3*len(nvs))
	for _, nv := range nvs {
		doc, id := []byte(nv.Version.DocumentID), []byte(nv.Version.ID)
		keys = append(keys, KeyRef{bucketDocs, doc}, KeyRef{bucketVersions, id}, KeyRef{bucketFailures, doc})
	}
	p.Prefetch(keys)
	keys = keys[:0]
	docs := tx.Bucket(bucketDocs)
	if docs == nil {
		return
	}
	for _, nv := range nvs {
		b := docs.Get([]byte(nv.Version.DocumentID))
		if b == nil {
			continue
		}
		doc, err := decodeDocument(b)
		if err != nil {
			continue // the put reads it again and reports it
		}
		if doc.Current != "" {
			keys = append(keys, KeyRef{bucketVersions, []byte(doc.Current)})
		}
		if len(doc.Versions) <= maxPrefetchVersions {
			for _, id := range doc.Versions {
				keys = append(keys, KeyRef{bucketVersions, []byte(id)})
			}
		}
	}
	if len(keys) > 0 {
		p.Prefetch(keys)
	}
}

// maxPrefetchVersions bounds the version headers of one document that
// prefetchPut reads ahead: past it only the current one.
const maxPrefetchVersions = 32

// PrefetchPlan tells the transaction that an ingest is about to look up
// document docID (and, when this process read it before, its current
// version's header) and the source index (VersionsOfSource reads whether
// it is complete): on a backend that is a server, in one round trip.
func (t *Tx) PrefetchPlan(docID string) {
	p, ok := t.tx.(Prefetcher)
	if !ok {
		return
	}
	keys := []KeyRef{{bucketDocs, []byte(docID)}, {bucketMeta, keySourcesSeq}}
	if d := t.db.docs.peek([]byte(docID)); d != nil && d.Current != "" {
		keys = append(keys, KeyRef{bucketVersions, []byte(d.Current)})
	}
	p.Prefetch(keys)
}
