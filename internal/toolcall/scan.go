package toolcall

import (
	"encoding/json"
	"strings"
)

// scanner follows JSON text byte by byte, knowing only whether it is inside a string
// and which brackets are open. That is enough to cut values out of prose and to tell
// text that was cut off from text that is wrong.
type scanner struct {
	open     []byte // the unclosed '{' and '[', innermost last
	inString bool
	escaped  bool // the previous byte was a backslash inside a string
}

func (s *scanner) step(c byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
		}
		return
	}
	switch c {
	case '"':
		s.inString = true
	case '{', '[':
		s.open = append(s.open, c)
	case '}', ']':
		if len(s.open) > 0 {
			s.open = s.open[:len(s.open)-1]
		}
	}
}

// source is an answer's text being read, or a prefix of it (the content of a tag).
// It remembers where the JSON values it has followed end, since readers look at the
// same values from several places (a tag, the JSON in it, the objects inside that);
// without it, degenerate text such as deeply nested unclosed objects takes cubic time.
type source struct {
	text  string
	whole string      // the whole answer, of which text is a prefix
	ends  map[int]int // offset in whole of '{', '[' or '"' → offset after its value, or -1: it never ends
}

func newSource(text string) source {
	return source{text: text, whole: text, ends: map[int]int{}}
}

// prefix returns the source cut at n, remembering what s remembers.
func (s source) prefix(n int) source {
	s.text = s.text[:n]
	return s
}

// valueEnd returns where the JSON value that starts at text[i] ends, and whether it
// ends before the text does. Objects, arrays and strings are followed to their closing
// byte; a value that never closes runs to the end of the text. Other values (numbers,
// true, null, or anything else) end at the next delimiter.
func (s source) valueEnd(i int) (end int, complete bool) {
	if c := s.text[i]; c != '{' && c != '[' && c != '"' {
		j := i
		for j < len(s.text) && !strings.ContainsRune(" \t\r\n,:]}", rune(s.text[j])) {
			j++
		}
		return j, j < len(s.text)
	}
	end, ok := s.ends[i]
	if !ok {
		s.follow(i)
		end = s.ends[i]
	}
	if end < 0 || end > len(s.text) {
		return len(s.text), false
	}
	return end, true
}

// follow scans the whole text from the value at i to its end, and remembers where it
// and every value it holds end.
func (s source) follow(i int) {
	var sc scanner
	var starts []int // of the values being followed, innermost last
	for j := i; j < len(s.whole); j++ {
		c, wasInString := s.whole[j], sc.inString
		sc.step(c)
		switch {
		case !wasInString && (c == '{' || c == '[' || c == '"'):
			starts = append(starts, j)
		case !wasInString && (c == '}' || c == ']'), wasInString && !sc.inString:
			if len(starts) > 0 {
				s.ends[starts[len(starts)-1]] = j + 1
				starts = starts[:len(starts)-1]
			}
		}
		if len(starts) == 0 {
			return
		}
	}
	for _, start := range starts {
		s.ends[start] = -1
	}
}

// member is one key and value of a JSON object, the value as a span of the text.
type member struct {
	key        string
	start, end int
	complete   bool // the value ends before the text does
}

// value returns the member's value as written.
func (m member) value(text string) string { return text[m.start:m.end] }

// startsWith reports whether the member's value starts with c: '{' for an object.
func (m member) startsWith(text string, c byte) bool { return m.end > m.start && text[m.start] == c }

// members reads the members of the JSON object that starts at text[i], as far as they
// can be read: it stops at the first thing that is not JSON, and the last member of an
// object that was cut off may be incomplete or empty.
func (s source) members(i int) []member {
	text := s.text
	var ms []member
	j := skipSpace(text, i+1)
	for j < len(text) && text[j] == '"' {
		keyEnd, complete := s.valueEnd(j)
		key, ok := decodeString(text[j:keyEnd])
		if !complete || !ok {
			break
		}
		j = skipSpace(text, keyEnd)
		if j >= len(text) || text[j] != ':' {
			break
		}
		j = skipSpace(text, j+1)
		m := member{key: key, start: j, end: j}
		if j < len(text) {
			m.end, m.complete = s.valueEnd(j)
		}
		ms = append(ms, m)
		if !m.complete {
			break
		}
		j = skipSpace(text, m.end)
		if j >= len(text) || text[j] != ',' {
			break
		}
		j = skipSpace(text, j+1)
	}
	return ms
}

// lookup returns the member with the first of keys that the object has.
func lookup(ms []member, keys ...string) (member, bool) {
	for _, k := range keys {
		for _, m := range ms {
			if m.key == k {
				return m, true
			}
		}
	}
	return member{}, false
}

// elements returns where the values of the JSON array that starts at text[i] begin,
// as far as they can be read.
func (s source) elements(i int) []int {
	text := s.text
	var starts []int
	j := skipSpace(text, i+1)
	for j < len(text) && text[j] != ']' {
		starts = append(starts, j)
		end, complete := s.valueEnd(j)
		if !complete {
			break
		}
		j = skipSpace(text, end)
		if j >= len(text) || text[j] != ',' {
			break
		}
		j = skipSpace(text, j+1)
	}
	return starts
}

// decodeString returns the content of a JSON string literal.
func decodeString(literal string) (string, bool) {
	var s string
	if err := json.Unmarshal([]byte(literal), &s); err != nil {
		return "", false
	}
	return s, true
}

func skipSpace(text string, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
