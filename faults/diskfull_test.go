package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/corpus"
	"github.com/evidence-rag/evidence/store"
)

// mountTmpfs mounts a tmpfs of size (e.g. "8m") on a new directory, or
// skips the test, saying why, where the machine does not allow it.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("disk full is tested on a small tmpfs, which this machine does not let us mount (needs root, or CAP_SYS_ADMIN): mount: %v: %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file until the file system is full, then frees keep bytes.
func fill(t *testing.T, dir string, keep int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 64<<10)
	var n int64
	for {
		w, err := f.Write(block)
		n += int64(w)
		if errors.Is(err, syscall.ENOSPC) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(max(0, n-keep)); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiskFull: on a full disk, ingest fails with a clear error, a server
// refuses uploads and, with async trace writes, verifications (503) rather
// than acknowledge what it cannot store, reports every trace it had
// acknowledged and lost, by id, within the loss bound; the store audits
// clean and nothing acknowledged is lost. Once there is room, trace writes
// come back by themselves.
func TestDiskFull(t *testing.T) {
	needBinary(t)
	dir := mountTmpfs(t, "8m")
	c := &campaign{t: t, rng: rand.New(rand.NewPCG(1, 2))}
	c.dir, c.db = dir, filepath.Join(dir, "evidence.db")
	docs := t.TempDir() // sources off the tmpfs: only the store fills it
	var ids []string
	for i := range 4 {
		id := fmt.Sprintf("base-%d.md", i)
		if err := os.WriteFile(filepath.Join(docs, id), corpus.Markdown(uint64(i), 12<<10), 0o600); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if p := run(docs, append([]string{"--db", c.db, "--json", "ingest"}, ids...)...); p.exitCode() != 0 {
		t.Fatalf("base ingest: exit %d: %s", p.exitCode(), p.stderr.String())
	}
	c.newStoreChunks()
	a := newAcked()
	filler := fill(t, dir, 96<<10)

	t.Run("ingest", func(t *testing.T) {
		var big []string
		for i := range 12 {
			id := fmt.Sprintf("big-%d.md", i)
			if err := os.WriteFile(filepath.Join(docs, id), corpus.Markdown(uint64(100+i), 120<<10), 0o600); err != nil {
				t.Fatal(err)
			}
			big = append(big, id)
		}
		p := run(docs, append([]string{"--db", c.db, "--json", "ingest"}, big...)...)
		if p.crashed() || p.exitCode() == 0 {
			t.Fatalf("ingest onto a full disk: exit %d, want a failure: %s", p.exitCode(), lastLines(p.stderr.String(), 10))
		}
		if out := p.stdout.String() + p.stderr.String(); !strings.Contains(out, "no space left on device") {
			t.Errorf("ingest onto a full disk: the error does not say the disk is full:\n%s", lastLines(out, 10))
		}
		o := &outcome{}
		c.acknowledge(p, a, o)
		t.Logf("ingest onto a full disk: exit %d, %d of %d documents stored before it filled", p.exitCode(), len(a.current), len(big))
		c.checkClean(t, a, traceBound{})
	})

	t.Run("serve", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		const flush, batch = 10 * time.Millisecond, 1000
		args := []string{"--db", c.db, "--trace-writes", "async"}
		if !oldBinary() {
			args = append(args, "--trace-flush", flush.String(), "--trace-batch", fmt.Sprint(batch))
		}
		p, base, err := serve(ctx, docs, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer p.kill()
		client := &http.Client{Timeout: 10 * time.Second}
		body := c.verifyBodies(1)[0]
		refused, answered := 0, 0
		for deadline := time.Now().Add(10 * time.Second); refused < 20 && time.Now().Before(deadline); {
			status, retry, id := postVerify(t, client, base, body)
			switch {
			case status == http.StatusOK:
				answered++
				a.asyncTraces = append(a.asyncTraces, tracedAt{id, time.Now()})
			case status == http.StatusServiceUnavailable && retry != "":
				refused++
			default:
				t.Fatalf("verify on a full disk: got %d (Retry-After %q), want 200 or 503 with Retry-After", status, retry)
			}
		}
		if refused == 0 {
			t.Fatalf("%d verifications answered on a full disk, none refused", answered)
		}
		for i := range 3 {
			status, b := upload(t, client, base, fmt.Sprintf("up-%d.md", i), corpus.Markdown(uint64(200+i), 200<<10))
			switch status {
			case http.StatusCreated:
				var r struct {
					DocumentID      string `json:"document_id"`
					DocumentVersion string `json:"document_version"`
				}
				if err := json.Unmarshal(b, &r); err != nil || r.DocumentVersion == "" {
					t.Fatalf("upload answered 201 without a version: %s", b)
				}
				a.current[r.DocumentID] = r.DocumentVersion
			case http.StatusServiceUnavailable, http.StatusUnprocessableEntity, http.StatusInternalServerError:
				if bytes.Contains(b, []byte(c.dir)) {
					t.Errorf("upload refusal names the server's store path: %s", b)
				}
			default:
				t.Errorf("upload onto a full disk: got %d: %s", status, b)
			}
		}

		// Room again: after the retry interval a verification has its trace
		// committed before it is answered, and the next ones are queued.
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		recovered := false
		for deadline := time.Now().Add(10 * time.Second); !recovered && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			status, _, id := postVerify(t, client, base, body)
			if status == http.StatusOK {
				recovered = true
				a.syncTraces = append(a.syncTraces, id) // committed before its answer
			}
		}
		if !recovered {
			t.Errorf("verifications still refused 10 s after the disk had room again")
		}
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		<-p.done
		logged := p.stderr.String()
		s, err := store.Open(c.db, &store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var lost []string
		_ = s.View(func(tx *store.Tx) error {
			for _, tr := range a.asyncTraces {
				if _, err := tx.Trace(tr.id); err != nil {
					lost = append(lost, tr.id)
				}
			}
			return nil
		})
		s.Close()
		for _, id := range lost {
			if !strings.Contains(logged, "verification trace lost: trace_id="+id) {
				t.Errorf("trace %s was answered and not stored, and the log does not say so", id)
			}
		}
		t.Logf("full disk: %d verifications answered, %d of their traces lost (each logged), then %d refused with 503; recovered: %v", answered, len(lost), refused, recovered)
		c.checkClean(t, a, traceBound{flush: flush, slack: answerSlack, batch: batch})
	})
}

// checkClean fails the test unless the checks of a trial pass.
func (c *campaign) checkClean(t *testing.T, a *acked, bound traceBound) {
	t.Helper()
	o := &outcome{}
	check(c.dir, c.db, a, bound, o)
	if !o.clean() {
		t.Errorf("after a full disk: audit %q, crashed %q, lost %q, half versions %q, traces %s", o.auditFailed, o.crashed, o.lost, o.half, o.tracesBeyond)
	}
}

func postVerify(t *testing.T, client *http.Client, base string, body []byte) (status int, retryAfter, traceID string) {
	t.Helper()
	resp, err := client.Post(base+"/v1/verify", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		TraceID string `json:"trace_id"`
	}
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &r)
	return resp.StatusCode, resp.Header.Get("Retry-After"), r.TraceID
}

func upload(t *testing.T, client *http.Client, base, id string, src []byte) (int, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("id", id)
	fw, _ := mw.CreateFormFile("file", id)
	_, _ = fw.Write(src)
	_ = mw.Close()
	resp, err := client.Post(base+"/v1/documents", mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}
