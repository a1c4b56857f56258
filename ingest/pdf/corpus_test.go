package pdf

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shared corpus lives beside the repository: ../shared/corpus from the
// module root.
const corpusRoot = "../../../shared/corpus"

func corpusDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join(corpusRoot, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared corpus not found at %s (it sits beside the repository as ../shared/corpus): %v", dir, err)
	}
	return dir
}

// manifest reads MANIFEST.tsv into rows keyed by file name.
func manifest(t testing.TB, dir string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var head []string
	rows := map[string]map[string]string{}
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if head == nil {
			head = cols
			continue
		}
		row := map[string]string{}
		for i, c := range cols {
			if i < len(head) {
				row[head[i]] = c
			}
		}
		rows[row["file"]] = row
	}
	return rows
}

func pdfFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// extractText runs Extract and returns the pages' text joined by form feeds.
func extractText(src []byte, lim Limits) (string, []Page, *Doc, error) {
	var pages []Page
	doc, err := Extract(src, lim, func(p Page) error {
		pages = append(pages, p)
		return nil
	})
	texts := make([]string, len(pages))
	for i, p := range pages {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\f"), pages, doc, err
}
