// Package corpus holds the project's test and benchmark material: a small
// sample corpus of original documents (sample/, the one `make demo` ingests),
// a deterministic generator of realistic Markdown documents of any size, and
// helpers that locate the repository root and the shared corpus of real
// documents beside it (../shared/corpus).
//
// Only tests, benchmarks and harnesses import corpus; production packages
// never do. It imports nothing of the project, so any package's tests may use
// it without an import cycle.
//
// The generator's output is a function of (seed, size) alone: the same call
// gives the same bytes on every machine and Go release that keeps
// math/rand/v2's PCG stable, so benchmark figures compare across runs.
// Generated text is not normalized: it is valid UTF-8 in NFC, with \n line
// endings and no control characters other than \n.
package corpus
