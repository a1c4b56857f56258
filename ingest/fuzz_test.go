package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// checkExtracted returns the first invariant that x breaks, or nil: the
// text is valid UTF-8 in NFC without forbidden controls, page starts and
// sections lie in the text (in code points), sections are sorted, end where
// the next section of the same or a higher level starts, and nest as their
// paths say; the text at each section start shows its heading.
func checkExtracted(x *Extracted) error {
	text := x.Text
	if !utf8.ValidString(text) {
		return errors.New("text is not valid UTF-8")
	}
	if !norm.NFC.IsNormalString(text) {
		return errors.New("text is not NFC")
	}
	for i, r := range text {
		if isForbiddenControl(r) {
			return fmt.Errorf("text holds control character %U at byte %d", r, i)
		}
	}
	runes := []rune(text)
	n := len(runes)

	ps := x.Layout.PageStarts
	if len(ps) == 0 || ps[0] != 0 {
		return fmt.Errorf("page starts %v: want a first start of 0", ps)
	}
	for i := 1; i < len(ps); i++ {
		if ps[i] <= ps[i-1] || ps[i] > n {
			return fmt.Errorf("page start %d = %d out of order or past the text end %d", i, ps[i], n)
		}
		if runes[ps[i]-1] != '\f' {
			return fmt.Errorf("page %d starts at %d, not right after a form feed", i+1, ps[i])
		}
	}
	if x.MediaType == "text/plain" && len(ps) != strings.Count(text, "\f")+1 {
		return fmt.Errorf("got %d pages, want one more than the %d form feeds", len(ps), strings.Count(text, "\f"))
	}
	if x.MediaType != "text/plain" && len(ps) != 1 {
		return fmt.Errorf("got %d pages, want 1", len(ps))
	}

	secs := x.Layout.Sections
	for i, s := range secs {
		if s.Start < 0 || s.Start > s.End || s.End > n {
			return fmt.Errorf("section %d %v: want 0 <= start <= end <= %d", i, s, n)
		}
		if i > 0 && s.Start <= secs[i-1].Start {
			return fmt.Errorf("section %d starts at %d, not after section %d at %d", i, s.Start, i-1, secs[i-1].Start)
		}
		if len(s.Path) == 0 {
			return fmt.Errorf("section %d has an empty path", i)
		}
		// The sections still open at s.Start are its ancestors, in order.
		var anc []string
		for j := range i {
			if secs[j].End > s.Start {
				anc = append(anc, secs[j].Path[len(secs[j].Path)-1])
			}
		}
		if !slices.Equal(anc, s.Path[:len(s.Path)-1]) {
			return fmt.Errorf("section %d path %q, but the sections open at %d are %q", i, s.Path, s.Start, anc)
		}
		// It ends where the first later section no deeper than it starts.
		end := n
		for _, t := range secs[i+1:] {
			if len(t.Path) <= len(s.Path) {
				end = t.Start
				break
			}
		}
		if s.End != end {
			return fmt.Errorf("section %d %q ends at %d, want %d", i, s.Path, s.End, end)
		}
		title := s.Path[len(s.Path)-1]
		at := string(runes[s.Start:min(n, s.Start+utf8.RuneCountInString(title)+64)])
		switch x.MediaType {
		case "text/markdown":
			// An ATX heading starts with '#', a setext one with its text.
			first, _ := utf8.DecodeRuneInString(title)
			if !strings.HasPrefix(at, "#") && !strings.HasPrefix(at, string(first)) {
				return fmt.Errorf("section %d %q: text at its start is %q", i, s.Path, at)
			}
		case "text/html":
			if !strings.HasPrefix(collapseSpace([]byte(at)), title) {
				return fmt.Errorf("section %d %q: text at its start is %q", i, s.Path, at)
			}
		}
	}
	return nil
}

func isForbiddenControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' && r != '\f' || r >= 0x7f && r <= 0x9f
}

// addSeeds adds the testdata files with one of the extensions to f's corpus.
func addSeeds(f *testing.F, exts ...string) {
	names, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range names {
		if !slices.Contains(exts, filepath.Ext(name)) {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
}

func FuzzExtractMarkdown(f *testing.F) {
	addSeeds(f, ".md")
	for _, s := range []string{"# a\n", "a\n=\n", "> # q\n", "```\n# no\n```\n", "é\n## b ##\n", "#\ta\n\n\t# b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := ExtractMarkdown(src)
		if err != nil {
			return
		}
		if err := checkExtracted(x); err != nil {
			t.Fatalf("%v\nsource %q\ntext %q\nsections %v", err, src, x.Text, x.Layout.Sections)
		}
	})
}

func FuzzExtractHTML(f *testing.F) {
	addSeeds(f, ".html")
	for _, s := range []string{"<h1>a</h1><p>b", "<pre>\n x\n\n\n y</pre>", "<h2>e&#x301;</h2>", "<table><tr><td>a<td>b</table>", "<svg/><h3>x</h3>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := ExtractHTML(src)
		if err != nil {
			return
		}
		if err := checkExtracted(x); err != nil {
			t.Fatalf("%v\nsource %q\ntext %q\nsections %v", err, src, x.Text, x.Layout.Sections)
		}
		if err := checkBlankLines(x.Text); err != nil {
			t.Fatalf("%v\nsource %q\ntext %q", err, src, x.Text)
		}
	})
}

// checkBlankLines reports a blank first line, trailing white space, a line
// of blanks only, or a run of more than one blank line: HTML text has none.
func checkBlankLines(text string) error {
	if strings.TrimRight(text, " \t\n\f") != text {
		return errors.New("trailing white space")
	}
	if strings.Contains(text, "\n\n\n") {
		return errors.New("more than one blank line in a row")
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if l == "" && i > 0 {
			continue
		}
		if strings.Trim(l, " \t") == "" && text != "" {
			return fmt.Errorf("line %d is blank or holds only blanks: %q", i+1, l)
		}
	}
	return nil
}

// refNormalize is Normalize written plainly, for valid UTF-8: byte order
// marks stripped, line ends to \n, controls dropped, then NFC.
func refNormalize(src []byte) string {
	s := string(src)
	for strings.HasPrefix(s, "\ufeff") {
		s = s[len("\ufeff"):]
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.Map(func(r rune) rune {
		if isForbiddenControl(r) {
			return -1
		}
		return r
	}, s)
	return norm.NFC.String(s)
}

func FuzzNormalize(f *testing.F) {
	addSeeds(f, ".md", ".txt", ".html")
	for _, s := range []string{"a\r\nb\rc", "\ufeff\ufeffx", "e\x01\u0301", "\xff", "a\x00", "\u212b\u1100\u1161",
		"\uac00\u11a8", "a\u0308\u0301b", "\U0001d15e", "\u0301x", "é\u0323\u0302", "\u0958\u2000"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Normalize(src)
		if err != nil {
			if !errors.Is(err, ErrBinary) && !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("got error %v, want ErrBinary or ErrInvalidUTF8", err)
			}
			if errors.Is(err, ErrInvalidUTF8) && utf8.Valid(src) {
				t.Fatalf("got %v for valid UTF-8", err)
			}
			return
		}
		x := &Extracted{Text: s, MediaType: "text/plain"}
		x.Layout.PageStarts = pageStarts(s)
		if err := checkExtracted(x); err != nil {
			t.Fatalf("%v\nsource %q\ntext %q", err, src, s)
		}
		if strings.HasPrefix(s, "\ufeff") || strings.Contains(s, "\r") {
			t.Fatalf("text %q keeps a leading BOM or a CR", s)
		}
		if want := refNormalize(src); s != want {
			t.Fatalf("Normalize(%q) = %q, want %q", src, s, want)
		}
		again, err := Normalize([]byte(s))
		if err != nil || again != s {
			t.Fatalf("not idempotent: Normalize(%q) = %q, %v", s, again, err)
		}
	})
}
