package faults

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evidence-rag/evidence/corpus"
)

// bin is the evidence binary under test: EVIDENCE_BIN, or ./cmd/evidence
// built once into a temporary directory by TestMain.
var bin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	flag.Parse()
	bin = os.Getenv("EVIDENCE_BIN")
	if bin == "" && enabled() {
		dir, err := os.MkdirTemp("", "evidence-faults-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		root, err := corpus.Root()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		bin = filepath.Join(dir, "evidence")
		build := exec.Command("go", "build", "-o", bin, "./cmd/evidence")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "faults: go build ./cmd/evidence:", err)
			return 1
		}
	}
	return m.Run()
}

// enabled reports whether the campaign runs: under make faults
// (EVIDENCE_FAULTS=1), not in every go test ./..., where it would compete
// for the cores with the other packages' tests for a minute and more, and
// its timing (the async trace bound) with them.
func enabled() bool { return os.Getenv("EVIDENCE_FAULTS") == "1" && !testing.Short() }

func needBinary(t *testing.T) {
	t.Helper()
	if !enabled() {
		t.Skip("the fault campaign runs real processes for a minute or more: make faults (EVIDENCE_FAULTS=1) runs it; make test and CI call that")
	}
}

// proc is one evidence process of the campaign.
type proc struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr syncBuffer
	done   chan struct{} // closed when it has exited
	err    error         // of Wait, once done
	killed bool          // we sent SIGKILL while it ran
}

// start runs evidence with args in dir.
func start(dir string, args ...string) (*proc, error) {
	p := &proc{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, &p.stdout, &p.stderr
	p.cmd.Env = append(os.Environ(), "EVIDENCE_DB=", "EVIDENCE_SERVER=", "EVIDENCE_TOKEN=")
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	return p, nil
}

// killAfter sends SIGKILL to the process (by its pid, through
// os.Process) after d, unless it exited first, and waits for it.
func (p *proc) killAfter(d time.Duration) {
	select {
	case <-p.done:
		return
	case <-time.After(d):
	}
	p.kill()
}

func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	if p.cmd.Process.Kill() == nil {
		p.killed = true
	}
	<-p.done
	if !p.killedBySignal() {
		p.killed = false // it had exited on its own just before
	}
}

func (p *proc) killedBySignal() bool {
	ee, ok := p.err.(*exec.ExitError)
	return ok && !ee.Exited()
}

// exitCode is the exit code of a process that exited on its own, -1 if a
// signal ended it.
func (p *proc) exitCode() int {
	<-p.done
	if p.err == nil {
		return 0
	}
	if ee, ok := p.err.(*exec.ExitError); ok && ee.Exited() {
		return ee.ExitCode()
	}
	return -1
}

// crashed reports a process that died of itself: a panic, a fatal runtime
// error or a signal we did not send.
func (p *proc) crashed() bool {
	<-p.done
	out := p.stderr.String()
	return (!p.killed && p.exitCode() == -1) || strings.Contains(out, "panic:") ||
		strings.Contains(out, "fatal error:") || strings.Contains(out, "SIGSEGV")
}

// run runs evidence to its end, or for two minutes: a process still
// running then is killed and reported as hung (crashed).
func run(dir string, args ...string) *proc {
	p, err := start(dir, args...)
	if err != nil {
		p = &proc{done: make(chan struct{}), err: err}
		close(p.done)
		return p
	}
	select {
	case <-p.done:
	case <-time.After(2 * time.Minute):
		p.kill()
		p.killed = false // not ours to count: it hung
		fmt.Fprintf(&p.stderr, "\nfatal error: faults: %s hung for 2 minutes, killed\n", strings.Join(args, " "))
	}
	return p
}

// serve starts `evidence serve` on a free loopback port and returns its
// base URL once it accepts requests.
func serve(ctx context.Context, dir string, args ...string) (*proc, string, error) {
	pr, pw := io.Pipe()
	p := &proc{cmd: exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...), done: make(chan struct{})}
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = dir, &p.stdout, io.MultiWriter(&p.stderr, pw)
	p.cmd.Env = append(os.Environ(), "EVIDENCE_SERVER=", "EVIDENCE_TOKEN=")
	if err := p.cmd.Start(); err != nil {
		return nil, "", err
	}
	go func() { p.err = p.cmd.Wait(); pw.Close(); close(p.done) }()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "serving http://"); ok {
				addr <- "http://" + strings.Fields(strings.Trim(rest, `"`))[0]
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	select {
	case a := <-addr:
		return p, strings.TrimRight(a, `"`), nil
	case <-p.done:
		return p, "", fmt.Errorf("serve exited: %v: %s", p.err, p.stderr.String())
	case <-ctx.Done():
		p.kill()
		return p, "", fmt.Errorf("serve did not start: %s", p.stderr.String())
	}
}

// syncBuffer is a bytes.Buffer written by a process and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
