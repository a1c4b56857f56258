package eval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Generator answers questions: the user's RAG pipeline (Process), or a
// function in tests and benchmarks.
type Generator interface {
	Generate(ctx context.Context, req *Request) (*Answer, error)
}

// GeneratorFunc is a Generator in process.
type GeneratorFunc func(ctx context.Context, req *Request) (*Answer, error)

// Generate calls f.
func (f GeneratorFunc) Generate(ctx context.Context, req *Request) (*Answer, error) {
	return f(ctx, req)
}

// GenError is a generator failure on one question, with its reason code
// (ReasonTimeout, ReasonCrashed, ReasonBadOutput, ReasonGeneratorError).
type GenError struct {
	Reason string
	Err    error
}

func (e *GenError) Error() string { return e.Reason + ": " + e.Err.Error() }
func (e *GenError) Unwrap() error { return e.Err }

// Process runs a generator command as long-lived processes, at most
// parallel of them, each answering one request at a time: a request line
// on its stdin, an answer line on its stdout. A process that crashes,
// hangs past the timeout or writes something that is not the answer to
// the request it was sent is killed (with its process group) and a new one
// started for the next request. Its stderr is kept, the last lines of it
// name a crash's cause.
type Process struct {
	argv    []string
	timeout time.Duration
	slots   chan *proc // nil: not started, or ended
	mu      sync.Mutex
	live    map[*proc]bool
	closed  bool
}

// NewProcess returns a pool of up to parallel processes of argv (started
// when first needed); timeout bounds one answer.
func NewProcess(argv []string, parallel int, timeout time.Duration) *Process {
	if parallel < 1 {
		parallel = 1
	}
	p := &Process{argv: argv, timeout: timeout, slots: make(chan *proc, parallel), live: map[*proc]bool{}}
	for range parallel {
		p.slots <- nil
	}
	return p
}

// SplitCommand splits a generator command line into words: spaces
// separate them, single and double quotes group them, a backslash escapes
// the next character. No shell runs it: write `sh -c '…'` for pipes and
// variables.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc, in = false, true
		case r == '\\' && quote != '\'':
			esc = true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 || esc {
		return nil, fmt.Errorf("generator command %q: unterminated quote or escape", s)
	}
	if in {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("generator command is empty")
	}
	return words, nil
}

// Generate sends req to an idle process and reads its answer.
func (p *Process) Generate(ctx context.Context, req *Request) (*Answer, error) {
	var pr *proc
	select {
	case pr = <-p.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if pr != nil && pr.ended() {
		p.forget(pr)
		pr = nil
	}
	if pr == nil {
		var err error
		if pr, err = p.start(); err != nil {
			p.slots <- nil
			return nil, &GenError{Reason: ReasonCrashed, Err: fmt.Errorf("could not start %s: %w", p.argv[0], err)}
		}
	}
	a, err := pr.ask(ctx, req, p.timeout)
	if err != nil {
		pr.kill()
		p.forget(pr)
		p.slots <- nil
		return nil, err
	}
	p.slots <- pr
	return a, nil
}

// Close ends every process: stdin closed (a generator should exit at
// EOF), then killed after a grace second.
func (p *Process) Close() error {
	p.mu.Lock()
	p.closed = true
	live := make([]*proc, 0, len(p.live))
	for pr := range p.live {
		live = append(live, pr)
	}
	p.mu.Unlock()
	for _, pr := range live {
		_ = pr.stdin.Close()
	}
	for _, pr := range live {
		select {
		case <-pr.done:
		case <-time.After(time.Second):
			pr.kill()
			<-pr.done
		}
	}
	return nil
}

func (p *Process) forget(pr *proc) {
	p.mu.Lock()
	delete(p.live, pr)
	p.mu.Unlock()
}

func (p *Process) start() (*proc, error) {
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errors.New("the generator pool is closed")
	}
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	ownProcessGroup(cmd) // a kill reaches what it started
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	pr := &proc{stdin: stdin, lines: make(chan line), quit: make(chan struct{}), done: make(chan struct{}), stderr: &tail{max: 8 << 10}}
	cmd.Stderr = pr.stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	pr.pid, pr.process = cmd.Process.Pid, cmd.Process
	p.mu.Lock()
	p.live[pr] = true
	p.mu.Unlock()
	go pr.read(cmd, stdout)
	return pr, nil
}

// proc is one running generator process.
type proc struct {
	pid     int
	process *os.Process
	stdin   io.WriteCloser
	lines   chan line     // its stdout, a line at a time; closed at EOF
	quit    chan struct{} // closed by kill: the reader stops handing lines over
	done    chan struct{} // closed once it has been waited for
	stderr  *tail

	mu      sync.Mutex
	exited  bool // reaped: its pid may be reused, never signal it again
	killed  bool
	waitErr error
}

type line struct {
	b   []byte
	err error
}

func (pr *proc) read(cmd *exec.Cmd, stdout io.Reader) {
	br := bufio.NewReaderSize(stdout, 64<<10)
	for {
		b, err := readLine(br, MaxAnswerLine)
		if err == io.EOF {
			break
		}
		if err == errLineTooLong {
			err = fmt.Errorf("an answer line longer than %d bytes", MaxAnswerLine)
		}
		select {
		case pr.lines <- line{b, err}:
		case <-pr.quit:
		}
		if err != nil {
			pr.kill()
			_, _ = io.Copy(io.Discard, br)
			break
		}
	}
	close(pr.lines)
	werr := cmd.Wait()
	pr.mu.Lock()
	pr.exited, pr.waitErr = true, werr
	pr.mu.Unlock()
	close(pr.done)
}

func (pr *proc) ended() bool {
	select {
	case <-pr.done:
		return true
	default:
		return false
	}
}

func (pr *proc) kill() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if !pr.killed {
		pr.killed = true
		close(pr.quit)
	}
	if !pr.exited {
		killProcessGroup(pr.process, pr.pid)
	}
}

// ask sends one request and waits for its answer, the process's end, the
// timeout or ctx.
func (pr *proc) ask(ctx context.Context, req *Request, timeout time.Duration) (*Answer, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	wrote := make(chan error, 1)
	go func() { _, err := pr.stdin.Write(b); wrote <- err }()
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	for {
		select {
		case <-wrote:
			wrote = nil // a failed write shows as the end of its output
		case l, ok := <-pr.lines:
			if !ok {
				return nil, &GenError{Reason: ReasonCrashed, Err: pr.crash()}
			}
			if l.err != nil {
				return nil, &GenError{Reason: ReasonBadOutput, Err: l.err}
			}
			a, err := DecodeAnswer(l.b)
			if err != nil {
				return nil, &GenError{Reason: ReasonBadOutput, Err: fmt.Errorf("%w (line %q)", err, clip(string(l.b), 120))}
			}
			if a.ID != req.ID {
				return nil, &GenError{Reason: ReasonBadOutput, Err: fmt.Errorf("an answer for id %q to the request for %q", a.ID, req.ID)}
			}
			return a, nil
		case <-expire:
			return nil, &GenError{Reason: ReasonTimeout, Err: fmt.Errorf("no answer within %v", timeout)}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// crash says how a process that closed its output ended: its exit status
// and the last line of its stderr.
func (pr *proc) crash() error {
	select {
	case <-pr.done:
	case <-time.After(2 * time.Second):
		pr.kill()
		<-pr.done
	}
	pr.mu.Lock()
	werr := pr.waitErr
	pr.mu.Unlock()
	status := "exit status 0"
	if werr != nil {
		status = werr.Error()
	}
	msg := "ended without answering (" + status + ")"
	if last := pr.stderr.lastLine(); last != "" {
		msg += ": " + last
	}
	return errors.New(msg)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) lastLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimRight(string(t.b), "\n\r\t ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return clip(strings.TrimSpace(s), 300)
}

// clip shortens s to about n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
