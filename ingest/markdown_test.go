package ingest

import (
	"fmt"
	"testing"
)

func TestScratch(t *testing.T) {
	for _, src := range []string{
		"# A\ntext\n## B ##\n  ### C\n\nSet\next\n===\n\n> # Q\n\n- ## L\n\n```\n# no\n```\n~~~\n# no\n~~~\n\n    # no\n\n<div>\n# no?\n</div>\n\n## Intro {#intro}\n[foo]: /url\n===\n\n#\n\n# \\#x \\#\n",
		"é# no\n\nçà\n## B\n\n\t# tab\n#\tX\n",
	} {
		x, err := ExtractMarkdown([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		r := []rune(x.Text)
		for _, s := range x.Layout.Sections {
			fmt.Printf("%d-%d %q %q\n", s.Start, s.End, s.Path, string(r[s.Start:min(s.Start+10, len(r))]))
		}
	}
}
