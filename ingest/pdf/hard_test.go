package pdf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// runWithTimeout extracts src in a goroutine so a hang is reported as a
// failure naming the file instead of hanging the suite. (A hung goroutine
// keeps running; in production the worker process is killed instead.)
func runWithTimeout(src []byte, lim Limits, d time.Duration) (pages []Page, doc *Doc, err error, timedOut bool) {
	type result struct {
		pages []Page
		doc   *Doc
		err   error
	}
	ch := make(chan result, 1)
	go func() {
		var r result
		r.doc, r.err = Extract(src, lim, func(p Page) error {
			r.pages = append(r.pages, p)
			return nil
		})
		ch <- r
	}()
	select {
	case r := <-ch:
		return r.pages, r.doc, r.err, false
	case <-time.After(d):
		return nil, nil, nil, true
	}
}

const perFileTimeout = 60 * time.Second

// hardExpected lists the files of pdf-hard that do not extract, with the
// reason they fail for; every other file must extract (reason no_text
// counts as extracted: the document opened and its pages were counted).
var hardExpected = map[string]string{
	// A user password we do not have (the manifest notes them).
	"gh-pdfjs__print_protection.pdf":                   ReasonEncrypted,
	"gh-pdfminer__aes-128.pdf":                         ReasonEncrypted,
	"gh-pdfminer__aes-256-r6.pdf":                      ReasonEncrypted,
	"gh-pypdfsamples__libreoffice-writer-password.pdf": ReasonEncrypted,
	// Fuzzed files with no page object left; poppler's pdfinfo fails on
	// them as well.
	"gh-pdfjs__REDHAT-1531897-0.pdf": ReasonMalformed,
	"gh-qpdf__issue-141a.pdf":        ReasonMalformed,
	"gh-qpdf__issue-143.pdf":         ReasonMalformed,
	"gh-qpdf__issue-146.pdf":         ReasonMalformed,
	"gh-qpdf__issue-150.pdf":         ReasonMalformed,
	"gh-qpdf__issue-263.pdf":         ReasonMalformed,
	"gh-qpdf__issue-335a.pdf":        ReasonMalformed,
}

var validReasons = []string{ReasonEncrypted, ReasonMalformed, ReasonNoText, ReasonTooLarge}

func TestHardCorpus(t *testing.T) {
	dir := corpusDir(t, "pdf-hard")
	files := pdfFiles(t, dir)
	tally := map[string]int{}
	var b strings.Builder
	for _, path := range files {
		name := filepath.Base(path)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		pages, doc, xerr, hung := runWithTimeout(src, Limits{}, perFileTimeout)
		el := time.Since(start)
		if hung {
			t.Errorf("%s: no result within %v", name, perFileTimeout)
			tally["hang"]++
			continue
		}
		outcome := "read"
		if xerr != nil {
			var e *Error
			if !errors.As(xerr, &e) || !slices.Contains(validReasons, e.Reason) {
				t.Errorf("%s: unclassified error %v", name, xerr)
				continue
			}
			if e.Reason != ReasonNoText {
				outcome = e.Reason
			} else {
				outcome = "read (no_text)"
			}
		}
		tally[outcome]++
		want := hardExpected[name]
		got := outcome
		if strings.HasPrefix(got, "read") {
			got = ""
		}
		if got != want {
			t.Errorf("%s: got %q (%v), want %q", name, outcome, xerr, want)
		}
		if doc != nil && len(pages) != doc.Pages {
			t.Errorf("%s: %d pages delivered, Doc.Pages %d", name, len(pages), doc.Pages)
		}
		np := 0
		if doc != nil {
			np = doc.Pages
		}
		fmt.Fprintf(&b, "%-58s %-16s pages %-5d %6dms %v\n", name, outcome, np, el.Milliseconds(), errString(xerr))
	}
	read := tally["read"] + tally["read (no_text)"]
	fmt.Fprintf(&b, "files %d: read %d (%d without text), %v\n", len(files), read, tally["read (no_text)"], tally)
	t.Log("\n" + b.String())
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestPageCounts checks Doc.Pages against the manifest (poppler's pdfinfo)
// for every file of the main corpus that opens.
func TestPageCounts(t *testing.T) {
	dir := corpusDir(t, "pdf")
	rows := manifest(t, dir)
	checked := 0
	for _, path := range pdfFiles(t, dir) {
		name := filepath.Base(path)
		row, ok := rows[name]
		if !ok {
			t.Errorf("%s: not in MANIFEST.tsv", name)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, doc, xerr, hung := runWithTimeout(src, Limits{}, perFileTimeout)
		if hung {
			t.Errorf("%s: no result within %v", name, perFileTimeout)
			continue
		}
		if doc == nil {
			t.Logf("%s: not ingested: %v (manifest pages %q)", name, xerr, row["pages"])
			continue
		}
		if want := row["pages"]; fmt.Sprint(doc.Pages) != want {
			t.Errorf("%s: got %d pages, manifest says %s", name, doc.Pages, want)
		}
		checked++
	}
	t.Logf("%d files checked against the manifest", checked)
}
