package corpus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Root returns the repository root: the nearest directory at or above the
// working directory that holds a go.mod. Tests run in their package's
// directory, so this finds the root from any package. The error wraps
// fs.ErrNotExist when there is none.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	for start := dir; ; {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && fi.Mode().IsRegular() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("corpus: no go.mod in %s or above: %w", start, fs.ErrNotExist)
		}
		dir = parent
	}
}

// SampleDir returns the directory of the project's own sample corpus,
// <root>/corpus/sample, the documents `make demo` ingests.
func SampleDir() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "corpus", "sample"), nil
}

// Shared returns <root>/../shared/corpus/<sub>, the read-only shared corpus
// of real documents beside the repository, and whether it exists as a
// directory. It is absent on most machines: tests that need it skip when ok
// is false, and copy what they modify into a temporary directory.
func Shared(sub string) (dir string, ok bool) {
	root, err := Root()
	if err != nil {
		return "", false
	}
	dir = filepath.Join(filepath.Dir(root), "shared", "corpus", filepath.FromSlash(sub))
	fi, err := os.Stat(dir)
	return dir, err == nil && fi.IsDir()
}
