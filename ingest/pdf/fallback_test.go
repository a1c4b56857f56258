package pdf

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"testing"
)

// onePage returns a one-page PDF (through treePDF) whose page has the
// given resources and content stream dictionary and data, plus extra
// objects from number 10 on.
func onePage(resources, streamDict string, content []byte, extra map[int]string) []byte {
	objs := map[int]string{
		2: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		3: fmt.Sprintf("<< /Type /Page /MediaBox [0 0 200 200] /Resources %s /Contents 4 0 R >>", resources),
		4: fmt.Sprintf("<< /Length %d %s >>\nstream\n%s\nendstream", len(content), streamDict, content),
	}
	for n, b := range extra {
		objs[n] = b
	}
	return treePDF(objs)
}

func onlyText(t *testing.T, src []byte) string {
	t.Helper()
	text, _, _, err := extractText(src, Limits{})
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	return strings.TrimSpace(text)
}

// A font the resources lack, or that cannot be read, still shows its text
// (pdf.js draws it in a standard font; qpdf's bad39.pdf).
func TestMissingFont(t *testing.T) {
	content := []byte("BT /F1 24 Tf 72 100 Td (Potato) Tj ET")
	for name, res := range map[string]string{
		"no font":      "<< >>",
		"missing font": "<< /Font << /F1 9 0 R >> >>",
		"not a dict":   "<< /Font << /F1 42 >> >>",
	} {
		if got := onlyText(t, onePage(res, "", content, nil)); got != "Potato" {
			t.Errorf("%s: got %q, want Potato", name, got)
		}
	}
}

// "/Filter 10 0 R" naming [/FlateDecode] (pdfminer's issue-1062).
func TestIndirectFilter(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte("BT /F1 12 Tf 20 100 Td (Deflated words) Tj ET"))
	w.Close()
	res := "<< /Font << /F1 11 0 R >> >>"
	font := "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"
	for name, extra := range map[string]map[int]string{
		"array": {10: "[/FlateDecode]", 11: font},
		"name":  {10: "/FlateDecode", 11: font},
	} {
		if got := onlyText(t, onePage(res, "/Filter 10 0 R", z.Bytes(), extra)); got != "Deflated words" {
			t.Errorf("%s: got %q", name, got)
		}
	}
}

// "/ToUnicode /Identity-H" on a Type 0 font: the two-byte code is the
// character (iText; pdfminer's issue-625).
func TestToUnicodeIdentityName(t *testing.T) {
	res := "<< /Font << /F1 10 0 R >> >>"
	extra := map[int]string{
		10: "<< /Type /Font /Subtype /Type0 /BaseFont /Arial /Encoding /Identity-H /ToUnicode /Identity-H /DescendantFonts [11 0 R] >>",
		11: "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Arial /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 >>",
	}
	content := []byte("BT /F1 12 Tf 20 100 Td <014100F30064017A> Tj ET")
	if got := onlyText(t, onePage(res, "", content, extra)); got != "Łódź" {
		t.Errorf("got %q, want Łódź", got)
	}
}
