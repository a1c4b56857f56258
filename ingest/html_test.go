package ingest

import (
	"fmt"
	"testing"
)

func TestScratchHTML(t *testing.T) {
	for _, src := range []string{
		"<html><head><title>T</title><style>p{}</style><script>if (a<b) x()</script></head><body>\n<h1>Main &amp; title</h1>\n<p>Hello,   <b>world</b>!\nNext line.</p><p>a<br>b<br><br><br>c</p>\n<h2>Sub <em>x</em></h2><pre>\n  code\n\n\n\n  more   \n</pre><table><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>2</td></tr></table><ul><li>one<li>two</ul><h3>e&#x301;t&#233;</h3><p>x&#1;y &#x85;z</p><svg><text>no</text></svg><template><p>no</p></template><noscript>no</noscript></body></html>",
		"<pre>\n\n  x</pre>",
	} {
		x, err := ExtractHTML([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("%q\n", x.Text)
		r := []rune(x.Text)
		for _, s := range x.Layout.Sections {
			fmt.Printf("%d-%d %q %q\n", s.Start, s.End, s.Path, string(r[s.Start:min(s.Start+10, len(r))]))
		}
	}
}
