-- The store's bytes: every bucket of the store's key-value model, its keys
-- in byte order (bytea compares as unsigned bytes, whatever the collation).
-- The records, their seals and every rule about them live above, in the
-- store package; these tables only keep bytes.

-- A bucket, and its counter (Bucket.Sequence).
CREATE TABLE evidence_buckets (
    name bytea PRIMARY KEY,
    seq  bigint NOT NULL DEFAULT 0
);

-- Every key of every bucket. rev is the commit that wrote the row (the
-- value evidence_commits.n took at that commit): a committed row's
-- (bucket, key, rev) names one value, which lets a process keep large
-- values and fetch them again only when rev changed.
CREATE TABLE evidence_kv (
    bucket bytea NOT NULL,
    key    bytea NOT NULL,
    value  bytea NOT NULL,
    rev    bigint NOT NULL,
    PRIMARY KEY (bucket, key)
);

-- One row: the number of write transactions committed. A read transaction
-- reads it as its BackendTx.ID (equal ids, equal contents).
CREATE TABLE evidence_commits (
    one boolean PRIMARY KEY DEFAULT true CHECK (one),
    n   bigint NOT NULL
);
INSERT INTO evidence_commits (one, n) VALUES (true, 0);

-- Texts are compressed with lz4 where the server has it (PostgreSQL 14 and
-- later built with lz4, as Debian's is): several times faster than the
-- default pglz, which was most of a commit's time. Elsewhere the default
-- stays.
DO $$
BEGIN
    ALTER TABLE evidence_kv ALTER COLUMN value SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN
    NULL;
END
$$;
