package ingest

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr error  // nil for success
		errHas  string // a part of the error message
	}{
		{name: "empty", in: "", want: ""},
		{name: "ascii", in: "# Title\n\ttext\fpage 2\n", want: "# Title\n\ttext\fpage 2\n"},
		{name: "crlf", in: "a\r\nb\r\n", want: "a\nb\n"},
		{name: "lone cr", in: "a\rb\r", want: "a\nb\n"},
		{name: "cr cr lf", in: "a\r\r\nb", want: "a\n\nb"},
		{name: "nfd to nfc", in: "cafe\u0301 re\u0301sume\u0301", want: "café résumé"},
		{name: "angstrom singleton", in: "\u212b", want: "\u00c5"},
		{name: "hangul jamo", in: "\u1100\u1161\u11a8", want: "\uac01"},
		{name: "nfc non-ascii kept", in: "日本語 😀 naïve", want: "日本語 😀 naïve"},
		{name: "combining mark after ascii at start", in: "e\u0301", want: "é"},
		{name: "leading combining mark", in: "\u0301e", want: "\u0301e"},
		{name: "hangul lv plus t", in: "가\u11a8 日本", want: "각 日本"},
		{name: "marks reordered", in: "x q\u0307\u0323 y", want: "x q\u0323\u0307 y"},
		{name: "mark after latin-1 letter", in: "naïve A\u030a", want: "naïve Å"},
		{name: "singleton after safe text", in: "日本 \u2000 Ω \u2126", want: "日本 \u2002 Ω Ω"},
		{name: "astral decomposition", in: "note \U0001d15e", want: "note \U0001d157\U0001d165"},
		{name: "devanagari nukta", in: "\u0915\u093c", want: "\u0915\u093c"},
		{name: "controls removed", in: "hello\x01 wor\x7fld\u0085 \x1b[0m!", want: "hello world [0m!"},
		{name: "control between base and mark", in: "text: e\x07\u0301", want: "text: é"},
		{name: "vertical tab removed", in: "a\vb and more text", want: "ab and more text"},
		{name: "bom", in: "\ufeffabc", want: "abc"},
		{name: "double bom", in: "\ufeff\ufeffabc", want: "abc"},
		{name: "bom only", in: "\ufeff", want: ""},
		{name: "inner bom kept", in: "a\ufeffb", want: "a\ufeffb"},
		{name: "bom then crlf", in: "\ufeffa\r\n", want: "a\n"},
		{name: "invalid utf8", in: "abc\xffdef", wantErr: ErrInvalidUTF8, errHas: "byte offset 3"},
		{name: "truncated rune", in: "ok é\xc3", wantErr: ErrInvalidUTF8, errHas: "byte offset 5"},
		{name: "latin1", in: "caf\xe9 cr\xe8me", wantErr: ErrInvalidUTF8, errHas: "byte offset 3"},
		{name: "surrogate", in: "some text a\xed\xa0\x80b", wantErr: ErrInvalidUTF8, errHas: "byte offset 11"},
		{name: "nul", in: "ab\x00cd", wantErr: ErrBinary, errHas: "NUL byte at byte offset 2"},
		{name: "nul after invalid", in: "\xff\xfe\x00\x01", wantErr: ErrBinary},
		{name: "mostly controls", in: "\x01\x02\x03ab\x04", wantErr: ErrBinary, errHas: "control characters"},
		{name: "mostly invalid", in: "\x89PNG\r\n\x1a\n\xff\xd8\xff\xe0", wantErr: ErrBinary},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Normalize([]byte(tt.in))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("got error %v, want %v containing %q", err, tt.wantErr, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want %q", err, tt.want)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if ref := refNormalize([]byte(tt.in)); got != ref {
				t.Errorf("got %q, the plain reference gives %q", got, ref)
			}
			again, err := Normalize([]byte(got))
			if err != nil || again != got {
				t.Errorf("not idempotent: Normalize(%q) = %q, %v", got, again, err)
			}
		})
	}
}

// benchASCIIMarkdown is about 1 MB of ASCII Markdown.
func benchASCIIMarkdown() []byte {
	const doc = `# Expense policy

Submit all expense reports within 14 calendar days. See [the portal](https://example.com/portal)
for the form, and **keep** every receipt.

## Travel

- Book through the portal.
- Economy class for flights under 6 hours.

` + "```go\nfunc main() {\n\tfmt.Println(\"# not a heading\")\n}\n```\n\n"
	return []byte(strings.Repeat(doc, 1<<20/len(doc)))
}

func BenchmarkNormalize(b *testing.B) {
	ascii := benchASCIIMarkdown()
	inputs := []struct {
		name string
		src  []byte
	}{
		{"ascii-markdown", ascii},
		{"crlf", []byte(strings.ReplaceAll(string(ascii), "\n", "\r\n"))},
		{"nfc-latin", []byte(strings.Repeat("Le café naïve à Köln coûte 3,25 €. ", 1<<20/40))},
		{"nfd-latin", []byte(strings.Repeat("Le cafe\u0301 nai\u0308ve a\u0300 Ko\u0308ln cou\u0302te 3,25 €. ", 1<<20/44))},
	}
	if src, err := os.ReadFile(corpusDir + "/node-api-child-process.md"); err == nil {
		inputs = append(inputs, struct {
			name string
			src  []byte
		}{"corpus-markdown", src})
	}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in.src)))
			for b.Loop() {
				if _, err := Normalize(in.src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
