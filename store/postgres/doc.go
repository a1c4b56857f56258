// Package postgres keeps an evidence store in a PostgreSQL database: a
// store.Backend over pgx v5, so that many ingest processes and service
// replicas on many machines share one store.
//
// It keeps bytes and answers in key order, nothing more: every rule of the
// store (record encodings and seals, a version in one transaction,
// idempotent puts, tombstones, indexes, verify on read) is the store
// package's, the same code as for bbolt, and the backend passes the same
// conformance suite (store/storetest).
//
// Invariants: read transactions are REPEATABLE READ READ ONLY, so a read
// sees one committed state; write transactions take one advisory lock
// first, so those of every process run one at a time, each seeing all
// that the one before committed, and a killed writer leaves nothing; a
// transaction's writes are sent in one round trip at commit (COPY for
// many rows). The schema is the embedded migrations/*.sql, applied by
// Migrate and checked by Open: none or an older one names `evidence
// migrate`, a newer one is refused.
//
// Caveats: the Backend interface has no error results on reads, so a
// lost connection during a read panics with a *store.Fault, which the
// store's transaction guard returns as store.ErrUnavailable. A DSN's
// password never appears in an error (Redact). See docs/postgres.md.
package postgres
