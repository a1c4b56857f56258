package pdf

import (
	"errors"
	"strings"
	"testing"
)

// Files encrypted with user password "secret" and owner password "owner"
// (testdata/README.md) open with either given as Limits.Password, and fail
// with reason encrypted without it or with a wrong one.
func TestPassword(t *testing.T) {
	for _, file := range []string{"password-rc4-40.pdf", "password-rc4-128.pdf", "password.pdf", "password-aes-256.pdf"} {
		src := readTestdata(t, file)
		for _, pw := range []string{"", "wrong", "secre", "secret!"} {
			_, _, _, err := extractText(src, Limits{Password: pw})
			var e *Error
			if !errors.As(err, &e) || e.Reason != ReasonEncrypted || !errors.Is(err, ErrPassword) {
				t.Errorf("%s with %q: got %v, want reason encrypted (password required)", file, pw, err)
			}
		}
		for _, pw := range []string{"secret", "owner"} {
			text, pages, doc, err := extractText(src, Limits{Password: pw})
			if err != nil {
				t.Errorf("%s with %q: %v", file, pw, err)
				continue
			}
			if !doc.Encrypted || len(pages) != 3 || !strings.Contains(text, "Third page, first stream continued.") {
				t.Errorf("%s with %q: encrypted %v, %d pages, text %q", file, pw, doc.Encrypted, len(pages), text)
			}
		}
	}
	// A password given for a file that the empty password opens is unused.
	if _, _, _, err := extractText(readTestdata(t, "aes-128.pdf"), Limits{Password: "secret"}); err != nil {
		t.Errorf("aes-128.pdf with an unneeded password: %v", err)
	}
}
