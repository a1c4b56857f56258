package ingest

// ChunkOptions sets the chunker's target size and overlap, in code points.
type ChunkOptions struct {
	Size    int // target chunk length; a chunk is never longer
	Overlap int // code points shared by consecutive chunks, < Size/2
}

// DefaultChunkOptions are used when the caller sets none.
var DefaultChunkOptions = ChunkOptions{Size: 1000, Overlap: 100}

// Span is a half-open code-point range [Start, End) of a canonical text.
type Span struct{ Start, End int }
