package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/evidence-rag/evidence/store"
)

// IsDSN reports whether s names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a store file.
func IsDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns dsn with its password, in the user part or the query,
// replaced by xxxxx: the form every message and log line names the
// database by.
func Redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil || !IsDSN(dsn) {
		return keyValuePassword.ReplaceAllString(dsn, "password=xxxxx")
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

var keyValuePassword = regexp.MustCompile(`password=('[^']*'|\S+)`)

// Defaults of what the DSN does not say.
const (
	// defaultAcquireWait bounds the wait for a pooled connection when
	// every one is busy (pool_acquire_timeout in the DSN).
	defaultAcquireWait = 10 * time.Second
	// connectWait bounds the first connection at open.
	connectWait = 10 * time.Second
)

// connect opens a pool for dsn and checks that the database answers.
func connect(dsn string, opts *store.Options) (*backend, error) {
	return connectWith(dsn, opts, nil)
}

// connectWith is connect with tune, when not nil, applied to the pool's
// configuration first (a test's tracer).
func connectWith(dsn string, opts *store.Options, tune func(*pgxpool.Config)) (*backend, error) {
	name := Redact(dsn)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %s", scrub(err.Error(), dsn))
	}
	b := &backend{name: name, dsn: dsn, acquireWait: defaultAcquireWait, known: map[string]bool{}}
	params := cfg.ConnConfig.RuntimeParams
	if s, ok := params["pool_acquire_timeout"]; ok {
		delete(params, "pool_acquire_timeout")
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("store: postgres: %s: pool_acquire_timeout %q is not a positive duration", name, s)
		}
		b.acquireWait = d
	}
	if opts != nil && opts.ReadOnly {
		params["default_transaction_read_only"] = "on"
	}
	if tune != nil {
		tune(cfg)
	}
	b.maxConns = cfg.MaxConns
	ctx, cancel := context.WithTimeout(context.Background(), connectWait)
	defer cancel()
	b.pool, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, b.fail(err)
	}
	if err := b.pool.Ping(ctx); err != nil {
		b.pool.Close()
		return nil, b.fail(err)
	}
	return b, nil
}

// Open opens the store kept in the PostgreSQL database at dsn (a URL:
// postgres://user:password@host:port/db?pool_max_conns=8). The database
// must have this build's schema (Migrate makes it); an empty one becomes
// a new store on a writable open. A database that does not answer gives
// store.ErrUnavailable; its password is never part of a message.
func Open(dsn string, opts *store.Options) (*store.DB, error) {
	return OpenWithReplica(dsn, "", opts)
}

// OpenWithReplica is Open with every read transaction on readDSN, a
// streaming replica of dsn's database (or "" for none): resolve, verify
// and the other reads scale with replicas, while writes, and the reads
// inside a write transaction, go to the primary. A replica is behind the
// primary by its replication delay: a version acknowledged a moment ago
// may not be there yet (not_found), one deleted a moment ago may still be
// served (docs/postgres.md, the freshness rule).
func OpenWithReplica(dsn, readDSN string, opts *store.Options) (*store.DB, error) {
	b, err := connect(dsn, opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectWait)
	defer cancel()
	if err := checkSchema(ctx, b); err != nil {
		b.pool.Close()
		return nil, err
	}
	if readDSN != "" {
		if b.reads, err = connect(readDSN, &store.Options{ReadOnly: true}); err != nil {
			b.pool.Close()
			return nil, err
		}
		if err := checkSchema(ctx, b.reads); err != nil {
			b.Close()
			if errors.Is(err, store.ErrUnavailable) {
				return nil, err
			}
			return nil, fmt.Errorf("the read replica %s is not at this build's schema while %s is: not a replica of it, or behind it (not replayed the migration yet): %w", b.reads.name, b.name, err)
		}
	}
	return store.OpenBackend(b.name, b, opts)
}

// fail turns an error of pgx into the store's: store.ErrUnavailable for
// anything that says the database cannot be reached or went away, a
// plain error naming the database for the rest. The message is pgx's
// with any password of the DSN taken out; the error does not wrap pgx's,
// so nothing downstream can print the original.
func (b *backend) fail(err error) error {
	if err == nil {
		return nil
	}
	msg := scrub(err.Error(), b.dsn)
	if unreachable(err) {
		return fmt.Errorf("%w: %s: %s", store.ErrUnavailable, b.name, msg)
	}
	return fmt.Errorf("store: postgres %s: %s", b.name, msg)
}

// unavailable is fail for errors that can only mean the database is out
// of reach (the first query of an open).
func (b *backend) unavailable(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && !unreachable(err) {
		return b.fail(err)
	}
	return fmt.Errorf("%w: %s: %s", store.ErrUnavailable, b.name, scrub(err.Error(), b.dsn))
}

// unreachable reports whether err says the database cannot be reached:
// no answer, a lost connection, a server shutting down or out of
// connection slots, or a wait that ran out.
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || // connection_exception
			pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03" || // shutdown, cannot_connect_now
			pe.Code == "53300" // too_many_connections
	}
	return true // not a server's answer: the network, a closed connection, a timeout
}

// scrub removes dsn's password from a message, however it was quoted.
func scrub(msg, dsn string) string {
	for _, pw := range passwords(dsn) {
		if pw != "" {
			msg = strings.ReplaceAll(msg, pw, "xxxxx")
		}
	}
	return msg
}

// passwords returns the password of dsn as written and as decoded.
func passwords(dsn string) []string {
	var out []string
	if u, err := url.Parse(dsn); err == nil {
		if pw, ok := u.User.Password(); ok {
			out = append(out, pw, url.QueryEscape(pw), url.PathEscape(pw))
		}
		if pw := u.Query().Get("password"); pw != "" {
			out = append(out, pw, url.QueryEscape(pw))
		}
	}
	for _, m := range keyValuePassword.FindAllStringSubmatch(dsn, -1) {
		out = append(out, strings.Trim(m[1], "'"))
	}
	return out
}
