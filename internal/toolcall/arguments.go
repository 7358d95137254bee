package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"creator/internal/humanize"
)

// ArgumentsError says why the arguments of a tool call cannot be used.
type ArgumentsError struct {
	Truncated bool   // the text ends inside a string, object or array: it looks cut off
	Offset    int    // byte offset of the problem in the raw arguments (for truncated: their length; in a double-encoded object: the string's)
	Problem   string // short English, e.g. "ends inside a string after 1,834 characters"
}

func (e *ArgumentsError) Error() string { return "tool-call arguments: " + e.Problem }

// closingMarkers matches text that models leave after the arguments and that carries
// nothing: closing tags, chat-template control tokens, closing fences and brackets.
// Anything else after the arguments is not dropped, since it may be part of them.
var closingMarkers = regexp.MustCompile("^(?:\\s|</[A-Za-z_]+>|<\\|[A-Za-z_]+\\|>|<｜[^｜]{1,40}｜>|```|[}\\]])+$")

// Arguments checks the JSON arguments of one tool call as a model sent them.
// It returns the arguments to use: the same text when it is a JSON object (or empty or null → "{}"),
// else a repaired JSON object with a note saying what was repaired
// (e.g. "removed a ```json fence around the arguments"), or an error, always an *ArgumentsError.
func Arguments(raw string) (fixed string, note string, err error) {
	if isObject(raw) {
		return raw, "", nil
	}
	r := repair{text: strings.TrimSpace(raw), base: len(raw) - len(strings.TrimLeftFunc(raw, unicode.IsSpace))}
	r.unfence()
	r.dropClosingMarkers()
	r.decodeString()
	if r.text == "" || r.text == "null" {
		return "{}", r.note(), nil // servers send these for tools without parameters
	}
	r.blankTrailingCommas()
	if isObject(r.text) {
		return r.result(), r.note(), nil
	}
	return "", "", r.problem(raw)
}

// repair is arguments on their way to being a JSON object. Every step keeps the byte
// offsets of text (trailing commas are blanked, not removed, until the result is taken)
// so that a remaining problem can be located in the raw arguments.
type repair struct {
	text    string
	base    int  // offset of text in the raw arguments
	decoded bool // text was decoded from a JSON string, so its offsets are not the raw ones
	commas  []int
	notes   []string
}

func (r *repair) unfence() {
	inner, start, lang, ok := unfence(r.text)
	if !ok {
		return
	}
	r.base += start
	r.text = inner
	r.notes = append(r.notes, "removed a ```"+lang+" fence around the arguments")
}

// decodeString undoes double encoding: an object sent as a JSON string.
func (r *repair) decodeString() {
	if !strings.HasPrefix(r.text, `"`) {
		return
	}
	s, ok := decodeString(r.text)
	s = strings.TrimSpace(s)
	if !ok || (s != "" && !strings.HasPrefix(s, "{")) {
		return
	}
	r.text, r.decoded = s, true
	r.notes = append(r.notes, "decoded arguments that were sent as a JSON string")
}

// dropClosingMarkers removes closing tags and tokens after the arguments (an object,
// or an object in a JSON string).
func (r *repair) dropClosingMarkers() {
	if !strings.HasPrefix(r.text, "{") && !strings.HasPrefix(r.text, `"`) {
		return
	}
	end, complete := newSource(r.text).valueEnd(0)
	tail := r.text[end:]
	if !complete || tail == "" || !closingMarkers.MatchString(tail) {
		return
	}
	r.text = r.text[:end]
	r.notes = append(r.notes, fmt.Sprintf("removed %s after the arguments", quote(strings.TrimSpace(tail))))
}

func (r *repair) blankTrailingCommas() {
	r.commas = trailingCommas(r.text)
	if len(r.commas) == 0 {
		return
	}
	b := []byte(r.text)
	for _, i := range r.commas {
		b[i] = ' '
	}
	r.text = string(b)
	if len(r.commas) == 1 {
		r.notes = append(r.notes, "removed a trailing comma")
	} else {
		r.notes = append(r.notes, fmt.Sprintf("removed %d trailing commas", len(r.commas)))
	}
}

func (r *repair) note() string { return strings.Join(r.notes, "; ") }

// result returns the repaired arguments, with the blanked commas taken out.
func (r *repair) result() string {
	var b strings.Builder
	last := 0
	for _, i := range r.commas {
		b.WriteString(r.text[last:i])
		last = i + 1
	}
	b.WriteString(r.text[last:])
	return b.String()
}

// problem says what is wrong with arguments that could not be repaired.
func (r *repair) problem(raw string) *ArgumentsError {
	if inside := cutOffInside(r.text); inside != "" {
		return &ArgumentsError{
			Truncated: true,
			Offset:    len(raw),
			Problem:   fmt.Sprintf("ends inside %s after %s characters", inside, humanize.Int(utf8.RuneCountInString(raw))),
		}
	}
	if kind := jsonKind(r.text); kind != "" {
		return r.errorAt(0, "is a JSON "+kind+", not an object")
	}
	var syntax *json.SyntaxError
	if err := json.Unmarshal([]byte(r.text), new(any)); errors.As(err, &syntax) {
		at := max(int(syntax.Offset)-1, 0)
		return r.errorAt(at, fmt.Sprintf("%s at offset %d", err, r.offset(at)))
	}
	return r.errorAt(0, "is not a JSON object")
}

func (r *repair) errorAt(i int, problem string) *ArgumentsError {
	if r.decoded {
		problem += " (in the text decoded from a JSON string)"
	}
	return &ArgumentsError{Offset: r.offset(i), Problem: problem}
}

// offset returns the raw offset of text[i]; inside decoded text, that of the string.
func (r *repair) offset(i int) int {
	if r.decoded {
		return r.base
	}
	return r.base + i
}

// unfence returns what is inside the markdown code fence s, where that starts in s,
// and the fence's language. The closing fence may be missing when the text was cut off.
func unfence(s string) (inner string, start int, lang string, ok bool) {
	if !strings.HasPrefix(s, fence) {
		return "", 0, "", false
	}
	lang, n := fenceLanguage(s, 0)
	start = skipSpace(s, n)
	inner = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s[start:]), fence))
	return inner, start, lang, true
}

// trailingCommas returns the offsets of commas, outside strings, that only white space
// separates from a closing '}' or ']'.
func trailingCommas(text string) []int {
	var commas []int
	var s scanner
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == ',' && !s.inString {
			if j := skipSpace(text, i+1); j < len(text) && (text[j] == '}' || text[j] == ']') {
				commas = append(commas, i)
			}
		}
		s.step(c)
	}
	return commas
}

// cutOffInside returns what the text ends inside of ("a string", "an object", "an
// array"), or "" when it ends outside every string and bracket.
func cutOffInside(text string) string {
	var s scanner
	for i := 0; i < len(text); i++ {
		s.step(text[i])
	}
	switch {
	case s.inString:
		return "a string"
	case len(s.open) == 0:
		return ""
	case s.open[len(s.open)-1] == '{':
		return "an object"
	default:
		return "an array"
	}
}

// jsonKind names the kind of a valid JSON value other than an object, or returns "".
func jsonKind(text string) string {
	if !json.Valid([]byte(text)) {
		return ""
	}
	switch text[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return ""
	default:
		return "number"
	}
}

func isObject(text string) bool {
	return strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{") && json.Valid([]byte(text))
}

// quote shows a short piece of text in backticks, shortened when long.
func quote(s string) string { return "`" + humanize.Clip(s, 41) + "`" }
