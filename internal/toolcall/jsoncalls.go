package toolcall

import (
	"encoding/json"
	"strings"
)

// readFence reads calls written as JSON in a markdown code fence. A fence in another
// language is code, not calls: the whole block is skipped.
func (s source) readFence(at int) ([]Found, int, bool) {
	text := s.text
	lang, n := fenceLanguage(text, at)
	if !isCallFence(strings.ToLower(lang)) {
		if k := strings.Index(text[n:], fence); k >= 0 {
			return nil, n + k + len(fence), true
		}
		return nil, len(text), true
	}
	calls, end := s.callValues(n, true)
	k := skipSpace(text, end)
	switch {
	case len(calls) == 0:
		return nil, 0, false
	case k == len(text): // cut off before the closing fence
		return withForm(calls, formFence), k, true
	case strings.HasPrefix(text[k:], fence):
		return withForm(calls, formFence), k + len(fence), true
	}
	return nil, 0, false
}

// fenceLanguage returns the language of the code fence at text[at:] and where the
// fence's content starts.
func fenceLanguage(text string, at int) (lang string, content int) {
	n := at + len(fence)
	for n < len(text) && isLangByte(text[n]) {
		n++
	}
	return text[at+len(fence) : n], n
}

func isLangByte(c byte) bool {
	return c == '_' || c == '-' || c == '+' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func isCallFence(lang string) bool {
	switch lang {
	case "", "json", "tool_call", "tool_calls", "tool_code":
		return true
	}
	return false
}

// readJSON reads calls written as a bare JSON object or array of objects. A JSON value
// that is not a call is data (a record the model quotes) and is skipped whole.
func (s source) readJSON(at int) ([]Found, int, bool) {
	text := s.text
	// Only '{' + '"' or '[' + '{' can start a call; this keeps prose and code cheap.
	j := skipSpace(text, at+1)
	if j >= len(text) || !(text[at] == '{' && text[j] == '"' || text[at] == '[' && text[j] == '{') {
		return nil, 0, false
	}
	end, complete := s.valueEnd(at)
	if calls := s.callsIn(at, true); len(calls) > 0 {
		return withForm(calls, formJSON), end, true
	}
	if complete && json.Valid([]byte(text[at:end])) {
		return nil, end, true
	}
	return nil, 0, false
}

// callValues reads calls written as JSON values one after another from text[i:],
// separated by white space, commas or semicolons, and returns them and where the last
// one ends (i when there is none).
func (s source) callValues(i int, strict bool) (calls []Found, end int) {
	end = i
	for j := skipSpace(s.text, i); j < len(s.text) && (s.text[j] == '{' || s.text[j] == '['); j = skipSeparators(s.text, end) {
		found := s.callsIn(j, strict)
		if len(found) == 0 {
			break
		}
		calls = append(calls, found...)
		end, _ = s.valueEnd(j)
	}
	return calls, end
}

// callsIn returns the calls that the JSON object or array at text[i] holds: a call
// object, an array of call objects, or an object with a "tool_calls" array.
//
// Strict reading is for JSON outside any call syntax, where a model may as well be
// quoting data: a call needs a tool-like name and arguments that are an object or a
// string holding one. Inside call syntax, a name is enough.
func (s source) callsIn(i int, strict bool) []Found {
	if s.text[i] == '[' {
		return s.arrayCalls(i, strict)
	}
	ms := s.members(i)
	if list, ok := lookup(ms, "tool_calls", "tool_uses"); ok && list.startsWith(s.text, '[') {
		return s.arrayCalls(list.start, strict)
	}
	if c, ok := s.objectCall(i, ms, strict); ok {
		return []Found{c}
	}
	return nil
}

// arrayCalls returns the calls of the JSON array at text[i], none unless every item is one.
func (s source) arrayCalls(i int, strict bool) []Found {
	var calls []Found
	for _, j := range s.elements(i) {
		if s.text[j] != '{' {
			return nil
		}
		c, ok := s.objectCall(j, s.members(j), strict)
		if !ok {
			return nil
		}
		calls = append(calls, c)
	}
	return calls
}

// objectCall reads the call that the JSON object at text[i] (with members ms) is, if any:
// {"name": …, "arguments": …} and its variants, or OpenAI's {"function": {…}}.
func (s source) objectCall(i int, ms []member, strict bool) (Found, bool) {
	object := i
	if fn, ok := lookup(ms, "function"); ok && fn.startsWith(s.text, '{') {
		object, ms = fn.start, s.members(fn.start)
	}
	name, ok := callName(s.text, ms, strict)
	if !ok {
		return Found{}, false
	}
	args, ok := callArguments(s.text, ms, strict)
	if !ok && strict {
		return Found{}, false
	}
	if !ok {
		args = s.argumentsMissing(object)
	}
	return Found{Name: name, Arguments: args, Start: i}, true
}

func callName(text string, ms []member, strict bool) (string, bool) {
	for _, key := range [...]string{"name", "tool", "tool_name", "function", "recipient_name"} {
		m, ok := lookup(ms, key)
		if !ok || !m.complete || !m.startsWith(text, '"') {
			continue
		}
		name, ok := decodeString(m.value(text))
		name = strings.TrimSpace(name)
		if ok && name != "" && (!strict || isName(name)) {
			return name, true
		}
	}
	return "", false
}

// callArguments returns the arguments of a call object: an object as written, or the
// content of a string.
func callArguments(text string, ms []member, strict bool) (string, bool) {
	m, ok := lookup(ms, "arguments", "parameters", "args", "input", "tool_input", "params")
	if !ok || m.end == m.start {
		return "", false
	}
	v := m.value(text)
	switch v[0] {
	case '{':
		return v, true
	case '"':
		if content, ok := decodeString(v); ok {
			return content, !strict || holdsObject(content)
		}
		// Cut off (or broken) inside the string: keep it encoded, so that Arguments says so.
		return v, !strict || holdsObject(v[1:])
	}
	return v, !strict
}

func holdsObject(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "{") }

// argumentsMissing returns the arguments of a call object without an arguments member:
// none when the object is complete; when it was cut off, the object as found, which
// Arguments reports cut off.
func (s source) argumentsMissing(i int) string {
	end, complete := s.valueEnd(i)
	if complete {
		return ""
	}
	return s.text[i:end]
}

func skipSeparators(text string, i int) int {
	for i < len(text) && (isSpace(text[i]) || text[i] == ',' || text[i] == ';') {
		i++
	}
	return i
}
