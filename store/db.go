package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Options configure Open.
type Options struct {
	// ReadOnly opens the store with a shared lock; writes fail with ErrReadOnly.
	ReadOnly bool
	// LockTimeout bounds the wait for another process's lock. Zero means 1s.
	LockTimeout time.Duration

	migrating bool // Migrate's open: an older format, writable
}

// DB is an open evidence store.
type DB struct {
	bolt     *bolt.DB
	kv       Backend
	file     *os.File // the same file, read by Check's page walk (pagecheck.go); it outlives an unlinked path
	path     string
	readOnly bool
	format   int // of the file: FormatVersion, or an older one read-only
	docs     recordCache[Document]
	versions recordCache[Version]
	layouts  recordCache[Layout]
	spans    spanChecks
}

// Open opens or creates the store at path. It checks the file before bbolt
// maps it (a truncated file would fault), gives up on a lock held by another
// process after opts.LockTimeout, and checks the store format.
func Open(path string, opts *Options) (db *DB, err error) {
	if opts == nil {
		opts = &Options{}
	}
	timeout := opts.LockTimeout
	if timeout <= 0 {
		timeout = time.Second
	}
	if err := preflight(path); err != nil {
		return nil, err
	}
	var b *bolt.DB
	err = guard(fromFile, func() error {
		var err error
		b, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, ReadOnly: opts.ReadOnly})
		return err
	})
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, fmt.Errorf("%w: %s (waited %s)", ErrLocked, path, timeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch):
		return nil, fmt.Errorf("%w: %s: %v", ErrNotStore, path, err)
	case errors.Is(err, berrors.ErrChecksum):
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	case err != nil:
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db = &DB{bolt: b, kv: boltBackend{b}, file: f, path: path, readOnly: opts.ReadOnly}
	if err := db.init(opts.migrating); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenBackend opens the store kept in kv, named name in messages: a
// backend other than the bbolt file Open opens (NewMemory's, say). What
// needs the file — the audit's page walk, Snapshot — is bbolt's only.
func OpenBackend(name string, kv Backend, opts *Options) (*DB, error) {
	if opts == nil {
		opts = &Options{}
	}
	db := &DB{kv: kv, path: name, readOnly: opts.ReadOnly}
	if err := db.init(opts.migrating); err != nil {
		kv.Close()
		return nil, err
	}
	return db, nil
}

// init creates the buckets of a new store, or checks the format of an
// existing one: FormatVersion, or an older one this build reads
// (oldestFormat on) when opened read-only or by Migrate.
func (db *DB) init(migrating bool) error {
	check := func(tx BackendTx) (fresh bool, err error) {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			// A bbolt file with buckets but no meta bucket belongs to someone else.
			empty := true
			_ = tx.ForEachBucket(func([]byte) error { empty = false; return nil })
			if !empty {
				return false, fmt.Errorf("%w: %s is a bbolt file of another program", ErrNotStore, db.path)
			}
			return true, nil
		}
		v := meta.Get(keyFormat)
		if len(v) != 4 {
			return false, fmt.Errorf("%w: %s: missing format version", ErrNotStore, db.path)
		}
		f := binary.BigEndian.Uint32(v)
		if err := checkEarlyFormat1(tx, db.path, f); err != nil {
			return false, err
		}
		switch {
		case f == FormatVersion:
		case f > FormatVersion:
			return false, fmt.Errorf("%w: %s has format %d, written by a newer build; this build reads formats %d to %d", ErrFormat, db.path, f, oldestFormat, FormatVersion)
		case f < oldestFormat:
			return false, fmt.Errorf("%w: %s has format %d; this build reads formats %d to %d", ErrFormat, db.path, f, oldestFormat, FormatVersion)
		case !db.readOnly && !migrating:
			return false, fmt.Errorf("%w: %s has format %d and this build writes format %d: run `evidence migrate --db %s` first (it upgrades the file in place, in one transaction; copy the file before if you may go back to an older build); it can be read as it is", ErrFormat, db.path, f, FormatVersion, db.path)
		}
		db.format = int(f)
		if meta.Get(keyCopying) != nil {
			return false, fmt.Errorf("%w: %s is an unfinished copy (evidence copy stopped before its end): delete it and copy again", ErrCorrupt, db.path)
		}
		for _, name := range allBuckets {
			if tx.Bucket(name) == nil {
				return false, fmt.Errorf("%w: %s: missing bucket %q", ErrCorrupt, db.path, name)
			}
		}
		if err := checkLaterBuckets(tx, db.path); err != nil {
			return false, err
		}
		return false, db.checkTop(uint64(tx.ID()))
	}
	var fresh bool
	err := db.view(func(tx BackendTx) (err error) { fresh, err = check(tx); return err })
	if err != nil {
		return err
	}
	if !fresh {
		if err := db.createLaterBuckets(); err != nil {
			return err
		}
		return db.syncSourceIndex()
	}
	if db.readOnly {
		return fmt.Errorf("%w: %s is empty", ErrNotStore, db.path)
	}
	return db.update(func(tx BackendTx) error {
		for _, name := range slices.Concat(allBuckets, laterBuckets) {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		db.format = FormatVersion
		return tx.Bucket(bucketMeta).Put(keyFormat, binary.BigEndian.AppendUint32(nil, FormatVersion))
	})
}

// checkLaterBuckets refuses a store whose top level holds a value (bbolt
// keeps only buckets there: a damaged element flag made one), or that
// lacks a bucket of laterBuckets and holds a bucket this build does not
// know: a store of an older build lacks later buckets, one of a newer
// build holds more, but only a damaged bucket name does both. Reading the
// missing bucket as empty would hide its records.
func checkLaterBuckets(tx BackendTx, path string) error {
	known := map[string]bool{}
	for _, name := range slices.Concat(allBuckets, laterBuckets) {
		known[string(name)] = true
	}
	var unknown []byte
	err := tx.ForEachBucket(func(name []byte) error {
		if !known[string(name)] && unknown == nil {
			unknown = slices.Clone(name)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if unknown == nil {
		return nil
	}
	for _, name := range laterBuckets {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("%w: %s: bucket %q is missing and an unknown bucket %q is there: a damaged bucket name", ErrCorrupt, path, name, unknown)
		}
	}
	return nil
}

// createLaterBuckets gives a store written before a bucket of laterBuckets
// existed that bucket, on a writable open. A read-only open leaves the file
// alone: readers treat a missing later bucket as empty. Only a store that
// lacks one pays for the write transaction.
func (db *DB) createLaterBuckets() error {
	if db.readOnly {
		return nil
	}
	var missing [][]byte
	if err := db.view(func(tx BackendTx) error {
		for _, name := range laterBuckets {
			if tx.Bucket(name) == nil {
				missing = append(missing, name)
			}
		}
		return nil
	}); err != nil || len(missing) == 0 {
		return err
	}
	return db.update(func(tx BackendTx) error {
		for _, name := range missing {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("store: creating bucket %q: %w", name, err)
			}
		}
		return nil
	})
}

// Path returns the store's file path.
func (db *DB) Path() string { return db.path }

// Close releases the store.
func (db *DB) Close() error {
	err := db.kv.Close()
	if db.file != nil {
		if cerr := db.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(*Tx) error) error {
	return db.view(func(tx BackendTx) error { return fn(newTx(tx, db)) })
}

func (db *DB) view(fn func(BackendTx) error) error {
	return db.guard(func() error {
		tx, err := db.kv.Begin(false)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		return fn(tx)
	})
}

func (db *DB) update(fn func(BackendTx) error) error {
	if db.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, db.path)
	}
	return db.guard(func() error {
		tx, err := db.kv.Begin(true)
		if err != nil {
			return err
		}
		defer tx.Rollback() // after a failure, or a panic the guard turns into one
		if err := fn(tx); err != nil {
			return err
		}
		return tx.Commit()
	})
}

// guard turns what a damaged file does into ErrCorrupt: a panic raised in
// bbolt's code, which trusts its pages, or a memory fault at a wild
// address, which only pointer arithmetic over the file's damaged offsets
// makes (bbolt's, or a caller reading a value that points past the
// mapping). Any other panic is the program's, a nil dereference in a
// caller say, and is raised again: reporting it as damage would send the
// reader to repair a sound store and hide the bug.
func (db *DB) guard(fn func() error) error { return guard(fromFile, fn) }

// guard runs fn, turning a panic that isFile says the file caused into
// errFault and raising any other again.
func guard(isFile func(any) bool, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(*Fault); ok {
				err = f.Err
				return
			}
			if !isFile(r) {
				panic(r)
			}
			err = fmt.Errorf("%w: %v", errFault, r)
		}
	}()
	return fn()
}

// nilPage bounds the addresses a nil dereference faults at: the runtime
// checks larger field offsets of a nil pointer explicitly.
const nilPage = 64 << 10

// fromFile reports whether the panic r, being recovered in a deferred
// call, came from the file: a fault at a wild address, or any panic raised
// in bbolt's code. The panicking frames are still on the stack below the
// deferred call.
func fromFile(r any) bool {
	if fault, ok := r.(interface{ Addr() uintptr }); ok && fault.Addr() >= nilPage {
		return true
	}
	f := panicOrigin()
	return strings.HasPrefix(f, "go.etcd.io/bbolt.") || strings.HasPrefix(f, "go.etcd.io/bbolt/")
}

// panicOrigin names the function that raised the panic being recovered:
// the first frame below runtime.gopanic outside the standard library (a
// fault inside bytes.Compare, say, is its caller's).
func panicOrigin() string {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	panicking := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.gopanic":
			panicking = true
		case panicking && !inStd(f.Function):
			return f.Function
		}
		if !more {
			return ""
		}
	}
}

// inStd reports whether the function named fn is the standard library's:
// its package path has no dot in its first element (runtime, bytes,
// internal/bytealg), unlike a module's (go.etcd.io/bbolt); main is not.
func inStd(fn string) bool {
	if strings.HasPrefix(fn, "main.") {
		return false
	}
	if i := strings.IndexByte(fn, '/'); i >= 0 {
		return !strings.Contains(fn[:i], ".")
	}
	return true
}

// Snapshot writes a consistent copy of the whole store, a bbolt file that
// Open reads, as of one read transaction: a hot backup, taken while the
// store serves and writes. size is called with the copy's length before
// the first byte is written.
func (db *DB) Snapshot(w io.Writer, size func(int64)) error {
	if db.bolt == nil {
		return fmt.Errorf("%w: %s: a snapshot is a copy of a bbolt file, and this store has none", ErrNoSnapshot, db.path)
	}
	return db.guard(func() error {
		return db.bolt.View(func(tx *bolt.Tx) error {
			if size != nil {
				size(tx.Size())
			}
			_, err := tx.WriteTo(w)
			return err
		})
	})
}
