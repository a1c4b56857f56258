package pdf

import (
	"fmt"
	"os"
	"testing"
)

// TestDump prints the extraction of the file named by $PDFDUMP (a debugging
// aid; skipped otherwise).
func TestDump(t *testing.T) {
	path := os.Getenv("PDFDUMP")
	if path == "" {
		t.Skip("set PDFDUMP=file.pdf to print its extraction")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Extract(src, Limits{}, func(p Page) error {
		fmt.Printf("=== page %d label %q lowconf %q err %q headings %v\n%s\n", p.Number, p.Label, p.LowConfidence, p.Err, p.Headings, p.Text)
		return nil
	})
	fmt.Printf("doc %+v err %v\n", doc, err)
}
