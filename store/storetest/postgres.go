package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Postgres returns the DSN (postgres://…) of a new, empty database on a
// PostgreSQL server that this test process starts on its first call:
// initdb into a temporary directory, listening only on a Unix socket in
// it, without fsync (a test's server need not survive a power cut). As
// root the server runs as the postgres user (runuser), as PostgreSQL
// requires. The test is skipped, saying why, when PostgreSQL is not
// installed, unless PG_REQUIRED=1, when it fails. The package's TestMain
// must run through WithPostgres, which stops the server by its pid.
func Postgres(t testing.TB) string {
	t.Helper()
	pg.once.Do(func() { pg.srv, pg.skip, pg.err = startPostgres() })
	switch {
	case pg.skip != "" && os.Getenv("PG_REQUIRED") == "1":
		t.Fatalf("PG_REQUIRED=1 and %s", pg.skip)
	case pg.skip != "":
		t.Skipf("skipped: %s (PG_REQUIRED=1 makes this a failure)", pg.skip)
	case pg.err != nil:
		t.Fatal(pg.err)
	}
	dsn, err := pg.srv.createDB()
	if err != nil {
		t.Fatal(err)
	}
	return dsn
}

// NewPostgresDB is Postgres for a caller with no testing.TB (a testscript
// Setup): it returns another new database on the server a call of
// Postgres started, or an error when none did.
func NewPostgresDB() (string, error) {
	if pg.srv == nil {
		return "", errors.New("storetest: no PostgreSQL server: call Postgres first")
	}
	return pg.srv.createDB()
}

// PostgresReplica returns the DSNs of a new, empty database on the server
// of Postgres and of the same database on a streaming replica of that
// server (pg_basebackup -R, hot standby), started on the first call and
// stopped with the server. Skipped as Postgres is.
func PostgresReplica(t testing.TB) (primary, replica string) {
	t.Helper()
	Postgres(t)
	pg.replicaOnce.Do(func() { pg.replica, pg.replicaErr = pg.srv.startReplica() })
	if pg.replicaErr != nil {
		t.Fatal(pg.replicaErr)
	}
	primary, err := pg.srv.createDB()
	if err != nil {
		t.Fatal(err)
	}
	name := primary[len("postgres://postgres@/"):strings.IndexByte(primary, '?')]
	for i := 0; ; i++ { // the replica has the database once it has replayed its creation
		out, err := pg.srv.run("psql", "-h", pg.replica.dir, "-p", "5432", "-U", "postgres", "-d", name, "-Atc", "SELECT 1")
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("the replica has no database %s after 10s: %v\n%s", name, err, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return primary, pg.replica.DSN(name)
}

// startReplica starts a hot standby of s, streaming from it.
func (s *pgServer) startReplica() (*pgServer, error) {
	r := &pgServer{bin: s.bin, as: s.as}
	var err error
	if r.dir, err = os.MkdirTemp("", "evidence-pg-replica-"); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	if r.as != "" {
		if err := r.chown(r.dir); err != nil {
			return nil, err
		}
	}
	data := filepath.Join(r.dir, "data")
	if out, err := r.run("pg_basebackup", "-h", s.dir, "-p", "5432", "-U", "postgres", "-D", data, "-R", "-X", "stream", "-c", "fast"); err != nil {
		os.RemoveAll(r.dir)
		return nil, fmt.Errorf("storetest: pg_basebackup: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -p 5432 -c hot_standby=on -c fsync=off -c max_connections=200", r.dir)
	if out, err := r.run("pg_ctl", "-D", data, "-l", filepath.Join(r.dir, "log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(r.dir, "log"))
		os.RemoveAll(r.dir)
		return nil, fmt.Errorf("storetest: pg_ctl start (replica): %v\n%s\n%s", err, out, log)
	}
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err == nil {
		r.pid, err = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	}
	if err != nil {
		return nil, fmt.Errorf("storetest: the replica's pid: %v", err)
	}
	return r, nil
}

// M is what a TestMain runs (*testing.M, and what testscript.Main takes).
type M interface{ Run() int }

// WithPostgres returns m, whose Run stops the server Postgres started,
// if it did, once the tests have run.
func WithPostgres(m M) M { return pgMain{m} }

type pgMain struct{ m M }

func (p pgMain) Run() int {
	code := p.m.Run()
	if pg.replica != nil {
		if err := pg.replica.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "storetest:", err)
		}
	}
	if pg.srv != nil {
		if err := pg.srv.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "storetest:", err)
		}
	}
	return code
}

var pg struct {
	once sync.Once
	srv  *pgServer
	skip string
	err  error

	replicaOnce sync.Once
	replica     *pgServer
	replicaErr  error
}

type pgServer struct {
	bin  string // the directory of initdb, pg_ctl and createdb
	dir  string // data, socket and log
	as   string // the user to run as ("" for this process's)
	pid  int
	mu   sync.Mutex
	next int // databases created
}

// pgBin finds the PostgreSQL server programs: on PATH, else where
// Debian's postgresql package puts them.
func pgBin() string {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- { // the newest version first
		if _, err := os.Stat(filepath.Join(dirs[i], "pg_ctl")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

func startPostgres() (srv *pgServer, skip string, err error) {
	bin := pgBin()
	if bin == "" {
		return nil, "PostgreSQL is not installed (no pg_ctl on PATH or in /usr/lib/postgresql/*/bin; Debian: apt-get install postgresql)", nil
	}
	reapPostgres()
	s := &pgServer{bin: bin}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			return nil, "running as root, and no runuser to start PostgreSQL as another user", nil
		}
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, "running as root, and no postgres user to start PostgreSQL as", nil
		}
		s.as = "postgres"
	}
	if s.dir, err = os.MkdirTemp("", "evidence-pg-"); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(s.dir, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, "", err
	}
	if s.as != "" {
		if err := s.chown(s.dir); err != nil {
			return nil, "", err
		}
	}
	data := filepath.Join(s.dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		os.RemoveAll(s.dir)
		return nil, "", fmt.Errorf("storetest: initdb: %v\n%s", err, out)
	}
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -p 5432 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200", s.dir)
	if out, err := s.run("pg_ctl", "-D", data, "-l", filepath.Join(s.dir, "log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		os.RemoveAll(s.dir)
		return nil, "", fmt.Errorf("storetest: pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err == nil {
		s.pid, err = strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	}
	if err != nil {
		return nil, "", fmt.Errorf("storetest: the server's pid: %v", err)
	}
	return s, "", nil
}

// reapPostgres stops the servers that test processes which are gone left
// behind (a test binary that panicked or was killed never stops its
// server): each directory names its owner's pid, the server its own.
func reapPostgres() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "evidence-pg-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, "owner"))
		if err != nil {
			continue
		}
		owner, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || alive(owner) {
			continue
		}
		srv := &pgServer{dir: dir}
		if b, err := os.ReadFile(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])); err == nil && serves(pid, dir) {
				srv.pid = pid
				if srv.stop() == nil {
					continue
				}
			}
		}
		os.RemoveAll(dir)
	}
}

// serves reports whether process pid is a PostgreSQL server of dir (its
// command line names it): a pid the system gave to another process since
// is left alone.
func serves(pid int, dir string) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	return err == nil && bytes.Contains(cmdline, []byte(dir))
}

// alive reports whether process pid exists.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

func (s *pgServer) chown(dir string) error {
	u, err := user.Lookup(s.as)
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}

// run runs one of the server's programs, as s.as when set.
func (s *pgServer) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	cmd := exec.Command(path, args...)
	if s.as != "" {
		cmd = exec.Command("runuser", append([]string{"-u", s.as, "--", path}, args...)...)
	}
	cmd.Dir = s.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// createDB creates an empty database for one test and returns its DSN.
func (s *pgServer) createDB() (string, error) {
	s.mu.Lock()
	s.next++
	name := fmt.Sprintf("t%d", s.next)
	s.mu.Unlock()
	if out, err := s.run("createdb", "-h", s.dir, "-p", "5432", "-U", "postgres", "-T", "template0", name); err != nil {
		return "", fmt.Errorf("storetest: createdb %s: %v\n%s", name, err, out)
	}
	return s.DSN(name), nil
}

// DSN is the URL of database name on the server.
func (s *pgServer) DSN(name string) string {
	return "postgres://postgres@/" + name + "?host=" + url.QueryEscape(s.dir)
}

// stop ends the server by its pid (SIGINT: PostgreSQL's fast shutdown,
// which ends the sessions and stops), waits for it, and removes its
// directory.
func (s *pgServer) stop() error {
	p, err := os.FindProcess(s.pid)
	if err != nil {
		return err
	}
	if err := p.Signal(os.Interrupt); err != nil {
		return fmt.Errorf("stopping PostgreSQL (pid %d): %v", s.pid, err)
	}
	pidFile := filepath.Join(s.dir, "data", "postmaster.pid")
	for range 200 {
		if _, err := os.Stat(pidFile); os.IsNotExist(err) {
			return os.RemoveAll(s.dir)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.Kill()
	return fmt.Errorf("PostgreSQL (pid %d) did not stop in 10s: killed; its directory %s is left", s.pid, s.dir)
}
