package ingest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExtractText(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		text  string
		pages []int
	}{
		{"empty", "", "", []int{0}},
		{"one page", "hello\nworld\n", "hello\nworld\n", []int{0}},
		{"two pages", "a\fb", "a\fb", []int{0, 2}},
		{"empty page kept", "a\f\fb", "a\f\fb", []int{0, 2, 3}},
		{"leading and trailing form feeds", "\fa\f", "\fa\f", []int{0, 1, 3}},
		{"only form feeds", "\f\f", "\f\f", []int{0, 1, 2}},
		{"code points, not bytes", "é日😀\fx", "é日😀\fx", []int{0, 4}},
		{"crlf and nfd before pages", "e\u0301\r\n\fb", "é\n\fb", []int{0, 3}},
		{"controls removed before counting", "a\x01\x02 text here\fb", "a text here\fb", []int{0, 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, err := ExtractText([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if x.Text != tt.text {
				t.Errorf("got text %q, want %q", x.Text, tt.text)
			}
			if diff := cmp.Diff(tt.pages, x.Layout.PageStarts); diff != "" {
				t.Errorf("page starts (-want +got):\n%s", diff)
			}
			if x.Layout.Sections != nil {
				t.Errorf("got sections %v, want none", x.Layout.Sections)
			}
			if x.MediaType != "text/plain" || x.Extractor != "text/1" {
				t.Errorf("got %q, %q, want text/plain, text/1", x.MediaType, x.Extractor)
			}
			if err := checkExtracted(x); err != nil {
				t.Error(err)
			}
			// Each page start is the page the store finds for that offset.
			for i, off := range x.Layout.PageStarts {
				if got := x.Layout.PageAt(off); got != i+1 {
					t.Errorf("PageAt(%d) = %d, want %d", off, got, i+1)
				}
			}
		})
	}
}

func TestExtractTextErrors(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want error
	}{
		{"\x00\x01binary", ErrBinary},
		{"caf\xe9", ErrInvalidUTF8},
	} {
		if _, err := ExtractText([]byte(tt.src)); !errors.Is(err, tt.want) {
			t.Errorf("ExtractText(%q): got error %v, want %v", tt.src, err, tt.want)
		}
	}
}
