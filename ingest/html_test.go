package ingest

import (
	"os"
	"testing"

	"github.com/evidence-rag/evidence/store"
	"github.com/google/go-cmp/cmp"
)

func TestExtractHTML(t *testing.T) {
	tests := []struct {
		name string
		src  string
		text string
		want []store.Section
	}{
		{
			name: "paragraphs and collapsed white space",
			src:  "<p>  Hello,\n   <b>world</b>!  </p>\n\n<p>Next\tone.</p>",
			text: "Hello, world!\n\nNext one.",
		},
		{
			name: "inline tags do not separate words",
			src:  "<p>un<em>believ</em>able <a href=x>link</a></p>",
			text: "unbelievable link",
		},
		{
			name: "br",
			src:  "<p>a<br>b<br/>c<br><br>d<br><br><br>e<br></p><p>f</p>",
			text: "a\nb\nc\n\nd\n\ne\n\nf",
		},
		{
			name: "script style and friends dropped",
			src: "<html><head><title>T</title><meta charset=utf-8><style>p{color:red}</style>" +
				"<script>if (a<b && c>d) document.write('<h1>x</h1>')</script></head>" +
				"<body><noscript>enable js</noscript><template><h2>t</h2></template>" +
				"<svg><text>s</text><svg></svg>still svg</svg><math><mi>x</mi></math><p>visible</p>" +
				"<iframe>fallback</iframe><!-- <p>comment</p> --></body></html>",
			text: "visible",
		},
		{
			name: "self-closing svg drops nothing",
			src:  "<p>a<svg/>b</p>",
			text: "ab",
		},
		{
			name: "entities",
			src:  "<p>&lt;tag&gt; &amp; caf&eacute; &#233; &#xE9; &nbsp;x &copy; &euro;5 &#x85;</p>",
			text: "<tag> & café é é \u00a0x © €5 …",
		},
		{
			name: "entities yield controls and decomposed marks",
			src:  "<p>a&#1;b e&#x301; c&#13;d</p><pre>x&#13;&#10;y&#x7f;</pre>",
			text: "ab é c d\n\nx\n\ny",
		},
		{
			name: "pre keeps white space",
			src:  "<p>before</p><pre>\nfunc f() {\n\treturn  1   \n\n\n\n}\n</pre><p>after</p>",
			text: "before\n\nfunc f() {\n\treturn  1\n\n}\n\nafter",
		},
		{
			name: "table",
			src:  "<table><tr><th>City</th><th>Rate</th></tr><tr><td>Köln</td><td> 42 </td></tr></table>",
			text: "City\tRate\nKöln\t42",
		},
		{
			name: "lists",
			src:  "<p>x</p><ul><li>one</li><li>two<ol><li>three</ol></li></ul><dl><dt>t</dt><dd>d</dd></dl>",
			text: "x\n\none\ntwo\n\nthree\n\nt\nd",
		},
		{
			name: "divs are lines",
			src:  "<div>a</div><div><div>b</div></div><div>c</div>",
			text: "a\nb\nc",
		},
		{
			name: "nested headings",
			src: "<h1>Title</h1><p>intro</p><h2>One</h2><p>x</p><h3>One.a</h3><p>y</p>" +
				"<h2>Two</h2><h4>Deep</h4><p>z</p><h1>Other</h1>",
			text: "Title\n\nintro\n\nOne\n\nx\n\nOne.a\n\ny\n\nTwo\n\nDeep\n\nz\n\nOther",
			want: []store.Section{
				sec(0, 46, "Title"), sec(14, 32, "Title", "One"), sec(22, 32, "Title", "One", "One.a"),
				sec(32, 46, "Title", "Two"), sec(37, 46, "Title", "Two", "Deep"), sec(46, 51, "Other"),
			},
		},
		{
			name: "heading title collapsed, markup dropped",
			src:  "<h2 id=x>  Per  <code>diem</code>\n rates<br>in EUR </h2><p>t</p>",
			text: "Per diem rates\nin EUR\n\nt",
			want: []store.Section{sec(0, 24, "Per diem rates in EUR")},
		},
		{
			name: "empty heading makes no section",
			src:  "<h1><img alt=logo></h1><h2>A</h2>",
			text: "A",
			want: []store.Section{sec(0, 1, "A")},
		},
		{
			name: "unclosed heading closed by the next heading",
			src:  "<h2>A<h3>B</h3><p>c",
			text: "A\n\nB\n\nc",
			want: []store.Section{sec(0, 7, "A"), sec(3, 7, "A", "B")},
		},
		{
			name: "headerlink dropped",
			src:  `<h1>Abstract<a class="headerlink" href="#abstract">¶</a></h1><p>x</p>`,
			text: "Abstract\n\nx",
			want: []store.Section{sec(0, 11, "Abstract")},
		},
		{
			name: "non-ASCII before headings: code points",
			src:  "<p>日本語 😀 é</p><h1>Ünï</h1>",
			text: "日本語 😀 é\n\nÜnï",
			want: []store.Section{sec(9, 12, "Ünï")},
		},
		{
			name: "decomposed heading composed, offsets kept",
			src:  "<p>e&#x301;e&#x301;</p><h1>e&#x301;t&#xe9;</h1><p>x</p><h2>&#x301;a</h2>",
			text: "éé\n\nété\n\nx\n\n\u0301a",
			want: []store.Section{sec(4, 14, "été"), sec(12, 14, "été", "\u0301a")},
		},
		{
			name: "bom and crlf",
			src:  "\ufeff<p>a\r\nb</p>\r\n<pre>c\r\nd</pre>",
			text: "a b\n\nc\nd",
		},
		{
			name: "text before any tag",
			src:  "hello <b>there</b>",
			text: "hello there",
		},
		{
			name: "blank lines capped",
			src:  "<p>a</p><p></p><br><br><hr><p><br>b</p>",
			text: "a\n\nb",
		},
		{
			name: "form feed in pre becomes a line break",
			src:  "<pre>a\fb</pre>",
			text: "a\nb",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := ExtractHTML([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if x.Text != tt.text {
				t.Errorf("got text %q, want %q", x.Text, tt.text)
			}
			if diff := cmp.Diff(tt.want, x.Layout.Sections); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]int{0}, x.Layout.PageStarts); diff != "" {
				t.Errorf("page starts (-want +got):\n%s", diff)
			}
			if x.MediaType != "text/html" || x.Extractor != "html/1" {
				t.Errorf("got %q, %q, want text/html, html/1", x.MediaType, x.Extractor)
			}
			if err := checkExtracted(x); err != nil {
				t.Error(err)
			}
			if err := checkBlankLines(x.Text); err != nil {
				t.Error(err)
			}
		})
	}
}

func BenchmarkExtractHTML(b *testing.B) {
	src, err := os.ReadFile(corpusDir + "/go-spec.html")
	if err != nil {
		b.Skipf("corpus %s is absent", corpusDir)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := ExtractHTML(src); err != nil {
			b.Fatal(err)
		}
	}
}
