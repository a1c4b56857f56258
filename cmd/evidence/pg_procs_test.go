package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/store"
	"github.com/evidence-rag/evidence/store/postgres"
	"github.com/evidence-rag/evidence/store/storetest"
)

// pgStore returns the DSN of a new database on the test PostgreSQL,
// migrated by `evidence migrate`.
func pgStore(t *testing.T) string {
	t.Helper()
	dsn := storetest.Postgres(t)
	if code, _, errs := runCLI(t, "--db", dsn, "migrate"); code != exitOK {
		t.Fatalf("migrate: exit %d: %s", code, errs)
	}
	return dsn
}

// evidenceCmd is an evidence process: this test binary, which TestMain
// runs as evidence.
func evidenceCmd(args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "EVIDENCE_TEST_AS_EVIDENCE=1")
	return cmd
}

// writeDocs writes n Markdown documents of a few paragraphs into dir.
func writeDocs(t *testing.T, dir string, n int, salt string) {
	t.Helper()
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "# Policy %d %s\n\n", i, salt)
		for p := range 40 {
			fmt.Fprintf(&b, "Section %d of policy %d: expense reports are submitted within %d days of the trip, with receipts.\n\n", p, i, 10+p)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%03d.md", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type ingestReport struct {
	Files []struct {
		DocumentID      string `json:"document_id"`
		DocumentVersion string `json:"document_version"`
		Status          string `json:"status"`
		Error           string `json:"error"`
	} `json:"files"`
}

// TestPostgresConcurrentIngest: four ingest processes given the same
// bytes at once store each version once; every process reports it, one
// as ingested and the others unchanged; audit is clean.
func TestPostgresConcurrentIngest(t *testing.T) {
	dsn := pgStore(t)
	dir := filepath.Join(t.TempDir(), "docs")
	os.Mkdir(dir, 0o755)
	writeDocs(t, dir, 12, "same")
	const procs = 4
	outs := make([]bytes.Buffer, procs)
	errs := make([]error, procs)
	var wg sync.WaitGroup
	for i := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := evidenceCmd("--db", dsn, "--json", "ingest", "--base", dir, dir)
			cmd.Stdout = &outs[i]
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, stderr.String())
			}
		}()
	}
	wg.Wait()
	ingested := map[string]int{}
	versions := map[string]map[string]bool{}
	for i := range procs {
		if errs[i] != nil {
			t.Fatalf("ingest process %d: %v", i, errs[i])
		}
		var rep ingestReport
		if err := json.Unmarshal(outs[i].Bytes(), &rep); err != nil {
			t.Fatalf("ingest process %d: %v\n%s", i, err, outs[i].String())
		}
		if len(rep.Files) != 12 {
			t.Fatalf("process %d reports %d files, want 12", i, len(rep.Files))
		}
		for _, f := range rep.Files {
			switch f.Status {
			case "ingested":
				ingested[f.DocumentID]++
			case "unchanged":
			default:
				t.Errorf("process %d: %s: %s %s", i, f.DocumentID, f.Status, f.Error)
			}
			if versions[f.DocumentID] == nil {
				versions[f.DocumentID] = map[string]bool{}
			}
			versions[f.DocumentID][f.DocumentVersion] = true
		}
	}
	for doc, vs := range versions {
		if len(vs) != 1 || vs[""] {
			t.Errorf("%s: the processes report versions %v, want one", doc, vs)
		}
		if ingested[doc] != 1 {
			t.Errorf("%s ingested by %d processes, want 1", doc, ingested[doc])
		}
	}
	auditClean(t, dsn)
	code, out, _ := runCLI(t, "--db", dsn, "show", "p000.md")
	if code != exitOK || strings.Count(out, "\nversion ") != 1 || strings.Contains(out, "superseded") {
		t.Errorf("show p000.md: exit %d, want one current version:\n%s", code, out)
	}
}

func auditClean(t *testing.T, dsn string) {
	t.Helper()
	code, out, errs := runCLI(t, "--db", dsn, "audit")
	if code != exitOK || !strings.Contains(out, "0 findings") {
		t.Errorf("audit: exit %d:\n%s%s", code, out, errs)
	}
}

// TestPostgresKilledIngest: an ingest process killed (SIGKILL) in the
// middle of its batch leaves no version half-written — the audit is
// clean after each kill — and the next run stores everything.
func TestPostgresKilledIngest(t *testing.T) {
	dsn := pgStore(t)
	dir := filepath.Join(t.TempDir(), "docs")
	os.Mkdir(dir, 0o755)
	writeDocs(t, dir, 400, "killed")
	db, err := postgres.Open(dsn, &store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored := func() (n int) {
		t.Helper()
		if err := db.View(func(tx *store.Tx) error {
			return tx.ForEachDocument(func(*store.Document) error { n++; return nil })
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// Each run is killed once it has committed more than the runs before
	// it (so the kill lands between or inside its later versions' writes),
	// or, the first, before it can have committed anything.
	midBatch := false
	for run := range 3 {
		before := stored()
		cmd := evidenceCmd("--db", dsn, "ingest", "--base", dir, dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		deadline := time.After(60 * time.Second)
	wait:
		for run > 0 && stored() <= before {
			select {
			case <-exited:
				break wait
			case <-deadline:
				t.Fatal("no commit in 60s")
			case <-time.After(5 * time.Millisecond):
			}
		}
		time.Sleep(time.Duration(run) * 7 * time.Millisecond) // into the next group's work
		cmd.Process.Kill()
		<-exited
		auditClean(t, dsn)
		n := stored()
		t.Logf("run %d killed with %d documents stored", run, n)
		if n > before && n < 400 {
			midBatch = true
		}
	}
	cmd := evidenceCmd("--db", dsn, "--json", "ingest", "--base", dir, dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the run after the kills: %v\n%s", err, out)
	}
	var rep ingestReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	total, before := 0, 0
	for _, f := range rep.Files {
		switch f.Status {
		case "ingested":
			total++
		case "unchanged":
			total++
			before++
		}
	}
	if total != 400 {
		t.Errorf("%d of 400 files stored after the kills", total)
	}
	if !midBatch {
		t.Errorf("no kill landed mid-batch (some documents stored, not all)")
	}
	t.Logf("the killed runs stored %d of 400 files", before)
	auditClean(t, dsn)
}

// replica is an `evidence serve` process on the test database.
type replica struct {
	cmd  *exec.Cmd
	base string
	mu   sync.Mutex
	log  strings.Builder // its stderr
}

func (r *replica) stderr() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.log.String()
}

var servingRE = regexp.MustCompile(`serving (http://127\.0\.0\.1:[0-9]+)`)

func startServer(t *testing.T, dsn string) *replica {
	t.Helper()
	cmd := evidenceCmd("--db", dsn, "serve", "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &replica{cmd: cmd}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	found := make(chan string, 1) // the first serving line
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case s.base = <-found:
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not start in 20s")
	}
	return s
}

func (s *replica) do(t *testing.T, method, path string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestPostgresReplicas: two servers on one database. A version uploaded
// through one is resolvable through the other at once; deleted through
// one, the other answers deleted from then on and never serves its text,
// while it is being resolved all along.
func TestPostgresReplicas(t *testing.T) {
	dsn := pgStore(t)
	const pw = "Srv-Pw-n0t-logged"
	withPW := "postgres://postgres:" + pw + "@" + strings.TrimPrefix(dsn, "postgres://postgres@") // trust auth ignores it
	a, b := startServer(t, withPW), startServer(t, dsn)
	text := []byte("# Travel\n\nIn the EU, expense reports must be submitted within 30 days.\n")
	code, body := a.do(t, "POST", "/v1/documents?filename=travel.md&id=travel.md", text)
	if code != http.StatusCreated {
		t.Fatalf("upload through a: %d %s", code, body)
	}
	var up struct {
		Version string `json:"document_version"`
	}
	if err := json.Unmarshal([]byte(body), &up); err != nil || up.Version == "" {
		t.Fatalf("upload answer: %v %s", err, body)
	}
	chunk := "/v1/chunks/" + up.Version + "-0"
	code, body = b.do(t, "GET", chunk, nil)
	if code != http.StatusOK || !strings.Contains(body, "within 30 days") {
		t.Fatalf("resolve through b right after the upload through a: %d %s", code, body)
	}
	// b resolves it without pause while a deletes it.
	stop := make(chan struct{})
	var deletedAt time.Time
	var mu sync.Mutex
	var wrong []string
	checked := 0
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			mu.Lock()
			after := !deletedAt.IsZero()
			mu.Unlock()
			code, body := b.do(t, "GET", chunk, nil)
			if after {
				mu.Lock()
				checked++
				mu.Unlock()
			}
			if after && (code == http.StatusOK || strings.Contains(body, "within 30 days")) {
				mu.Lock()
				wrong = append(wrong, fmt.Sprintf("%d %s", code, body))
				mu.Unlock()
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	code, body = a.do(t, "DELETE", "/v1/documents/travel.md", nil)
	mu.Lock()
	deletedAt = time.Now()
	mu.Unlock()
	if code != http.StatusOK {
		t.Fatalf("delete through a: %d %s", code, body)
	}
	time.Sleep(300 * time.Millisecond)
	close(stop)
	<-done
	if checked == 0 {
		t.Error("no resolve through b after the delete")
	}
	for _, w := range wrong {
		t.Errorf("b served the deleted version after the delete returned: %s", w)
	}
	code, body = b.do(t, "GET", chunk, nil)
	if code != http.StatusGone || !strings.Contains(body, "deleted") {
		t.Errorf("resolve through b after the delete: %d %s, want 410 deleted", code, body)
	}
	if log := a.stderr(); strings.Contains(log, pw) || !strings.Contains(log, "postgres://postgres:xxxxx@") {
		t.Errorf("the server's log shows the DSN's password, or not the store:\n%s", log)
	}
	code, body = a.do(t, "GET", "/v1/snapshot", nil)
	if code != http.StatusNotImplemented || !strings.Contains(body, "not_on_this_backend") {
		t.Errorf("GET /v1/snapshot on PostgreSQL: %d %s, want 501 not_on_this_backend", code, body)
	}
	auditClean(t, dsn)
}
