package toolcall

import (
	"strings"
	"unicode"
)

// Canonical returns the tool of known that name refers to, and whether exactly one does.
//
// An exact match wins. Otherwise names are compared in a folded form that ignores the
// ways models misspell tool names: surrounding spaces, quotes and backticks, a namespace
// prefix ("functions.read_file"), camelCase ("readFile"), dashes or spaces for
// underscores, and letter case.
func Canonical(name string, known []string) (string, bool) {
	for _, k := range known {
		if k == name {
			return k, true
		}
	}
	want := fold(name)
	if want == "" {
		return "", false
	}
	match := ""
	for _, k := range known {
		if fold(k) != want || k == match {
			continue
		}
		if match != "" {
			return "", false // two different tools fold alike
		}
		match = k
	}
	return match, match != ""
}

// fold returns name in the form in which spellings of the same tool name are equal.
func fold(name string) string {
	name = strings.Trim(name, " \t\r\n\"'`")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	runes := []rune(name)
	for i, r := range runes {
		if unicode.IsUpper(r) && i > 0 && startsWord(runes, i) {
			b.WriteByte('_')
		}
		switch r {
		case '-', ' ', '_':
			b.WriteByte('_')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return collapseUnderscores(b.String())
}

// startsWord reports whether the upper-case rune at i starts a word of a camelCase name:
// after a lower-case letter or digit ("readFile"), or as the last capital of an
// acronym before a lower-case letter ("HTTPServer").
func startsWord(runes []rune, i int) bool {
	prev := runes[i-1]
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
}

func collapseUnderscores(s string) string {
	for strings.Contains(s, "__") {
		s = strings.ReplaceAll(s, "__", "_")
	}
	return strings.Trim(s, "_")
}
