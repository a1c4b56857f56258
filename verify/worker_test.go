package verify_test

import (
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/evidence-rag/evidence/ingest"
)

// The PDF worker of this test is the test binary itself, re-run with
// -test.run=^TestPDFWorker$ (os/exec's helper-process pattern, as ingest's
// own tests do): a test binary has no extract-worker command.
const workerEnv = "EVIDENCE_VERIFY_TEST_WORKER"

// pdfWorker is the PDFLimits.Worker of this package's ingests.
func pdfWorker() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^TestPDFWorker$", "--")
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	return cmd, nil
}

// TestPDFWorker is the helper process; run directly it skips.
func TestPDFWorker(t *testing.T) {
	if os.Getenv(workerEnv) == "" {
		t.Skip("helper process of the PDF ingest of TestSelfConsistency")
	}
	args := os.Args
	if i := slices.Index(args, "--"); i >= 0 {
		args = args[i+1:]
	}
	os.Exit(ingest.RunWorker(os.Stdin, os.Stdout, args))
}
