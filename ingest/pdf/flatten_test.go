package pdf

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFlattenSameOutput: files with object streams are read from our
// rewritten copy, where their objects stand at the top level, for speed
// alone; every PDF of the shared corpora must extract to the same pages,
// labels, headings, outline and outcome as when the library reads the
// file as it is.
func TestFlattenSameOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts the shared corpora twice")
	}
	flattened := 0
	for _, sub := range []string{"pdf", "pdf-hard"} {
		for _, f := range pdfFiles(t, corpusDir(t, sub)) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, wantPages, wantDoc, wantErr := extractText(src, Limits{keepObjStms: true})
			_, gotPages, gotDoc, gotErr := extractText(src, Limits{})
			name := filepath.Join(sub, filepath.Base(f))
			if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
				t.Errorf("%s: error %v, want %v", name, gotErr, wantErr)
				continue
			}
			if diff := cmp.Diff(wantDoc, gotDoc); diff != "" {
				t.Errorf("%s: document (-as is +flattened):\n%s", name, diff)
			}
			if diff := cmp.Diff(wantPages, gotPages); diff != "" {
				t.Errorf("%s: pages (-as is +flattened):\n%s", name, clipDiff(diff))
			}
			if d, err := openDoc(src, Limits{keepObjStms: true}.withDefaults(), false); err == nil && !d.repaired && inObjStms(d.table) > 0 {
				flattened++ // a file the flattening changes the reading of
			}
		}
	}
	if flattened == 0 {
		t.Error("no file was read through the flattened copy; want the corpora's object-stream files to be")
	}
	t.Logf("%d files with object streams read flattened", flattened)
}

func clipDiff(s string) string {
	if len(s) > 4000 {
		return s[:4000] + "…"
	}
	return s
}
