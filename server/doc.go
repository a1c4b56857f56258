// Package server is the answer-time HTTP service of an evidence store:
// resolution of chunk ids and citations to the exact stored span with a
// deep link, verification of an answer's claims with a stored trace,
// document and chunk listings, uploads, imports, rebuilds and deletes, the
// evidence viewer, metrics and health (docs/service.md; the routes are
// docs/openapi.json, which the package embeds as openapi.json).
//
// New(db, Options) returns a Server, an http.Handler over one open store:
// mount it anywhere, or run it with Serve, which adds what a server on
// its own needs (the connection limit, a separate admin listener for
// probes, graceful shutdown). Close stores the traces still queued.
//
// Invariants: the Server is the store's only writer while it runs (bbolt
// lets its reads run beside its writes, each request seeing one
// consistent state); it never serves text a principal's access list
// excludes, nor a record that fails its check (a 500 with the reason);
// every limit answers at once with a 503 and Retry-After rather than
// queueing without end. The domain rules live below it, in resolve,
// verify and ingest; this package maps HTTP to them. Nothing below
// imports it, and the CLI (cmd/evidence) only wires flags to Options.
//
// Caveats: viewer links are root-relative (/view/...) unless Options.Links
// has a base URL, so a Server mounted under a prefix needs NewLinkSigner
// with the public URL of that prefix. Without Options.Tokens the server
// trusts the X-Evidence-Principal header, so bind it to loopback only (the
// CLI refuses otherwise). SetMemoryLimit and the adaptive memory limit change
// the process's Go runtime settings: they are for a process that is the
// server, as `evidence serve` is.
package server
