package main

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/evidence-rag/evidence/ingest"
)

// Flags with a range or a set of values are checked before anything runs:
// a value the library would silently replace by its default (a chunk size
// of 0) or reduce (an overlap of most of a chunk) is a usage error naming
// what is allowed.

// chunksFormats are the values of --chunks-format.
var chunksFormats = ingest.ChunksFormats

// checkChunkFlags checks --chunk-size, --overlap and --chunks-format.
// The overlap is checked when given; the default one is reduced to fit a
// chunk size too small for it, as the chunker reduces it (ingest.MaxOverlap).
func checkChunkFlags(f *pflag.FlagSet, c *ingest.ChunkOptions) error {
	if c.Size < 1 {
		return usagef("--chunk-size %d: want a chunk size of 1 or more code points", c.Size)
	}
	max := ingest.MaxOverlap(c.Size)
	switch {
	case f.Changed("overlap") && (c.Overlap < 0 || c.Overlap > max):
		return usagef("--overlap %d: want 0 to %d code points with --chunk-size %d (less than half a chunk)", c.Overlap, max, c.Size)
	case !f.Changed("overlap") && c.Overlap >= c.Size:
		// Sizes above the default overlap keep it in the fingerprint, as
		// they always have: their version ids stay the same.
		c.Overlap = max
	}
	if v, err := f.GetString("chunks-format"); err == nil {
		return oneOf("--chunks-format", v, chunksFormats)
	}
	return nil
}

// checkIngestFlags checks ingest's flags: the chunk settings and the limits.
func checkIngestFlags(f *pflag.FlagSet, o *ingest.Options) error {
	if err := checkChunkFlags(f, &o.Chunk); err != nil {
		return err
	}
	switch {
	case o.Workers < 0:
		return usagef("--workers %d: want 1 or more, or 0 for one per CPU", o.Workers)
	case o.MaxBytes < 1:
		return usagef("--max-bytes %d: want 1 or more bytes", o.MaxBytes)
	case o.PDF.Timeout <= 0:
		return usagef("--pdf-timeout %s: want a duration above 0 (e.g. 30s, 2m)", o.PDF.Timeout)
	case o.PDF.MemoryBytes < 1:
		return usagef("--pdf-memory %d: want 1 or more bytes", o.PDF.MemoryBytes)
	case o.PDF.MaxPages < 1:
		return usagef("--pdf-max-pages %d: want 1 or more pages", o.PDF.MaxPages)
	case o.PDF.MaxTextBytes < 1:
		return usagef("--pdf-max-text %d: want 1 or more bytes", o.PDF.MaxTextBytes)
	}
	return nil
}

// oneOf checks that a flag's value is one of allowed.
func oneOf(flag, v string, allowed []string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return usagef("%s %q: want one of %s", flag, v, strings.Join(allowed, ", "))
}
