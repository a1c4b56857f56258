package pdf

import (
	"unicode"
	"unicode/utf8"
)

// The quality gate: a page whose text is probably not what a reader sees
// (a font without a usable encoding, a scan's junk layer, words run
// together) is kept but marked, so nobody cites it believing it is text.

// Low-confidence reasons reported in Page.LowConfidence.
const (
	LowReplacement = "replacement_chars" // many U+FFFD: codes without a mapping
	LowPrivateUse  = "private_use"       // many private-use code points
	LowControl     = "control_chars"     // many control characters
	LowFewLetters  = "few_letters"       // mostly symbols and punctuation
	LowGlued       = "glued_words"       // words run together: tokens far too long
)

const (
	minGateRunes     = 20   // pages shorter than this are not judged
	maxReplacement   = 0.05 // shares of non-space runes
	maxPrivateUse    = 0.05
	maxControl       = 0.02
	minLetters       = 0.35
	maxMeanTokenLen  = 20.0 // runes, over tokens of scripts that separate words
	minScriptedShare = 0.5  // glued-words check only when most letters use spaces
)

// quality returns "" or the first reason the text fails the gate.
func quality(text string) string {
	var total, repl, pua, ctrl, letters, spaced int
	tokens, tokenRunes := 0, 0
	inToken := false
	for i := 0; i < len(text); {
		r, w := utf8.DecodeRuneInString(text[i:])
		i += w
		if unicode.IsSpace(r) {
			inToken = false
			continue
		}
		total++
		switch {
		case r == utf8.RuneError:
			repl++
		case isPrivateUse(r):
			pua++
		case unicode.IsControl(r):
			ctrl++
		case unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			letters++
			if !noSpaceScript(r) {
				spaced++
			}
		}
		if !inToken {
			tokens++
			inToken = true
		}
		tokenRunes++
	}
	if total < minGateRunes {
		return ""
	}
	t := float64(total)
	switch {
	case float64(repl)/t > maxReplacement:
		return LowReplacement
	case float64(pua)/t > maxPrivateUse:
		return LowPrivateUse
	case float64(ctrl)/t > maxControl:
		return LowControl
	case float64(letters)/t < minLetters:
		return LowFewLetters
	}
	if letters > 0 && float64(spaced)/float64(letters) >= minScriptedShare && tokens > 0 &&
		float64(tokenRunes)/float64(tokens) > maxMeanTokenLen {
		return LowGlued
	}
	return ""
}

func isPrivateUse(r rune) bool {
	return r >= 0xE000 && r <= 0xF8FF || r >= 0xF0000 && r <= 0x10FFFD
}

// noSpaceScript reports letters of scripts written without spaces between
// words, where long tokens are normal.
func noSpaceScript(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao,
		unicode.Khmer, unicode.Myanmar, unicode.Tibetan)
}
