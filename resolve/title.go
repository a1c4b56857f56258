package resolve

import (
	"bytes"
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/evidence-rag/evidence/store"
)

// maxTitleOffset is how far into the text, in code points, the first
// heading may start and still be taken for the title: past a preamble it is
// a section's heading, not the document's.
const maxTitleOffset = 256

// Title names a version for display beside a citation. The store records
// no title, so it is the first heading when the text opens with it (a
// Markdown heading rendered as a reader sees it), else the base name of the
// file or URL the version was ingested from, else the document id. It
// reads the layout and at most the first maxTitleOffset code points of a
// version the caller has resolved (not deleted).
func Title(tx *store.Tx, v *store.Version) (string, error) {
	l, err := tx.Layout(v)
	if err != nil {
		return "", err
	}
	if len(l.Sections) > 0 && len(l.Sections[0].Path) > 0 && l.Sections[0].Start <= maxTitleOffset {
		s := l.Sections[0]
		txt, err := tx.Text(v)
		if err != nil {
			return "", err
		}
		before, err := store.VerifySlice(v, txt, 0, s.Start)
		if err != nil {
			return "", err
		}
		if len(bytes.TrimSpace(before)) == 0 {
			title := s.Path[len(s.Path)-1]
			// Most titles hold no inline markup: they need no parse.
			if mediaType(v.MediaType) == "text/markdown" && strings.ContainsAny(title, "*_`[]!<>&\\") {
				title = headingText(title)
			}
			if title != "" {
				return title, nil
			}
		}
	}
	if v.SourcePath != "" {
		if name := filepath.Base(v.SourcePath); name != "." && name != string(filepath.Separator) {
			return name, nil
		}
	}
	if u, err := url.Parse(v.SourceURL); err == nil && u.Path != "" {
		if name := path.Base(u.Path); name != "." && name != "/" {
			return name, nil
		}
	}
	return v.DocumentID, nil
}
