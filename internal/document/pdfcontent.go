package document

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// maxContentBytes bounds the inflated content of one page or form: a
// small file can inflate to gigabytes. Text beyond it is not read.
const maxContentBytes = 64 << 20

// readContent inflates a content stream, or the streams of an array, which
// are read as one, into buf (kept for the next page). A stream that cannot
// be read to its end ends the content there; ok is false when one gave an
// error before any of its bytes.
func readContent(v pdf.Value, buf *[]byte) (content string, ok bool) {
	var streams []io.Reader
	switch v.Kind() {
	case pdf.Stream:
		streams = []io.Reader{v.Reader()}
	case pdf.Array:
		// Every stream is opened before any is read, as the library does:
		// one with an unknown filter fails the whole page.
		for i := 0; i < v.Len(); i++ {
			streams = append(streams, v.Index(i).Reader())
		}
	}
	b := bytes.NewBuffer((*buf)[:0])
	ok = true
	for _, s := range streams {
		// Reaching the limit ends the content, as a stream that cannot be
		// read to its end does.
		n, err := b.ReadFrom(io.LimitReader(s, int64(maxContentBytes-b.Len())))
		if err != nil {
			ok = n > 0
			break
		}
		if b.Len() >= maxContentBytes {
			break
		}
	}
	*buf = b.Bytes()
	return b.String(), ok
}

// operandKind is what an operand of a content stream operator is.
type operandKind uint8

const (
	operandOther  operandKind = iota // booleans, null, dictionaries, arrays inside arrays
	operandNumber                    // integer or real
	operandName                      // /Name, without the slash
	operandString                    // (literal) or <hex>, decoded
	operandArray                     // [ … ]: elements lo to hi of the lexer's elements
)

type operand struct {
	kind   operandKind
	num    float64
	s      string
	lo, hi int32
}

func (o operand) float() float64 {
	if o.kind == operandNumber {
		return o.num
	}
	return 0
}

func (o operand) name() string {
	if o.kind == operandName {
		return o.s
	}
	return ""
}

func (o operand) str() string {
	if o.kind == operandString {
		return o.s
	}
	return ""
}

// contentLexer splits a content stream into operators and their operands.
// Tokens are read in place from the inflated stream: numbers are parsed,
// names and strings are substrings unless they hold escapes. (The
// library's interpreter makes a value, and often a string, of every token.)
type contentLexer struct {
	data     string
	pos      int
	args     []operand // the operands of the last operator
	elements []operand // the elements of the operands that are arrays
	scratch  []byte
}

// next returns the next operator, its operands in l.args; ok is false at
// the end of the stream.
func (l *contentLexer) next() (op string, ok bool) {
	l.args, l.elements = l.args[:0], l.elements[:0]
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			return "", false
		}
		if o, isOperand := l.operand(0); isOperand {
			l.args = append(l.args, o)
			continue
		}
		op := l.keyword()
		if op == "" {
			l.pos++ // a stray delimiter: ) > ] }
			continue
		}
		switch op {
		case "true", "false", "null":
			l.args = append(l.args, operand{})
			continue
		case "ID":
			l.skipInlineImage()
		}
		return op, true
	}
}

// operand reads the operand at the current position, if one starts there;
// depth counts the arrays and dictionaries it is inside.
func (l *contentLexer) operand(depth int) (operand, bool) {
	c := l.data[l.pos]
	switch {
	case c == '/':
		return operand{kind: operandName, s: l.name()}, true
	case c == '(':
		return operand{kind: operandString, s: l.literal()}, true
	case c == '<' && l.pos+1 < len(l.data) && l.data[l.pos+1] == '<':
		l.pos += 2
		l.skipUntil(">>", depth)
		return operand{}, true
	case c == '<':
		return operand{kind: operandString, s: l.hex()}, true
	case c == '[':
		l.pos++
		if depth > 0 {
			l.skipUntil("]", depth)
			return operand{}, true
		}
		return l.array(), true
	case c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9':
		start := l.pos
		word := l.keyword()
		if f, ok := parseNumber(word); ok {
			return operand{kind: operandNumber, num: f}, true
		}
		l.pos = start
	}
	return operand{}, false
}

// maxOperandDepth bounds the nesting of arrays and dictionaries skipped.
const maxOperandDepth = 64

// skipUntil skips the tokens of a dictionary or nested array up to its
// closing delimiter.
func (l *contentLexer) skipUntil(end string, depth int) {
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			return
		}
		if strings.HasPrefix(l.data[l.pos:], end) {
			l.pos += len(end)
			return
		}
		if depth < maxOperandDepth {
			if _, ok := l.operand(depth + 1); ok {
				continue
			}
		}
		if l.keyword() == "" {
			l.pos++
		}
	}
}

// array reads the elements of an array, after its [.
func (l *contentLexer) array() operand {
	lo := len(l.elements)
	for {
		l.skipSpace()
		if l.pos >= len(l.data) {
			break
		}
		if l.data[l.pos] == ']' {
			l.pos++
			break
		}
		if o, ok := l.operand(1); ok {
			l.elements = append(l.elements, o)
			continue
		}
		if l.keyword() == "" {
			l.pos++ // a stray delimiter
		}
		l.elements = append(l.elements, operand{}) // true, false, null, or an operator out of place
	}
	return operand{kind: operandArray, lo: int32(lo), hi: int32(len(l.elements))}
}

func (l *contentLexer) skipSpace() {
	for l.pos < len(l.data) {
		switch c := l.data[l.pos]; {
		case isSpace(c):
			l.pos++
		case c == '%':
			for l.pos < len(l.data) && l.data[l.pos] != '\r' && l.data[l.pos] != '\n' {
				l.pos++
			}
		default:
			return
		}
	}
}

func isDelimiter(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// keyword reads a run of regular characters; { and } are keywords of
// their own. It is empty at any other delimiter.
func (l *contentLexer) keyword() string {
	start := l.pos
	if c := l.data[l.pos]; c == '{' || c == '}' {
		l.pos++
		return l.data[start:l.pos]
	}
	for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelimiter(l.data[l.pos]) {
		l.pos++
	}
	return l.data[start:l.pos]
}

// name reads /Name, with #xx escapes decoded.
func (l *contentLexer) name() string {
	l.pos++
	start := l.pos
	escaped := false
	for l.pos < len(l.data) && !isSpace(l.data[l.pos]) && !isDelimiter(l.data[l.pos]) {
		escaped = escaped || l.data[l.pos] == '#'
		l.pos++
	}
	s := l.data[start:l.pos]
	if !escaped {
		return s
	}
	b := l.scratch[:0]
	for i := 0; i < len(s); i++ {
		if s[i] == '#' && i+2 < len(s) && unhex(s[i+1]) >= 0 && unhex(s[i+2]) >= 0 {
			b = append(b, byte(unhex(s[i+1])<<4|unhex(s[i+2])))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	l.scratch = b
	return string(b)
}

// literal reads a (string): balanced parentheses, backslash escapes.
func (l *contentLexer) literal() string {
	l.pos++
	start := l.pos
	depth := 1
	for i := l.pos; i < len(l.data); i++ {
		switch l.data[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				l.pos = i + 1
				return l.data[start:i]
			}
		case '\\':
			return l.escapedLiteral(start)
		}
	}
	l.pos = len(l.data)
	return l.data[start:]
}

// escapedLiteral reads a literal string that holds escapes, from its start.
func (l *contentLexer) escapedLiteral(start int) string {
	b := l.scratch[:0]
	i := start
	depth := 1
loop:
	for ; i < len(l.data); i++ {
		c := l.data[i]
		switch c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				i++
				break loop
			}
		case '\\':
			i++
			if i >= len(l.data) {
				break loop
			}
			switch c = l.data[i]; c {
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 'b':
				b = append(b, '\b')
			case 't':
				b = append(b, '\t')
			case 'f':
				b = append(b, '\f')
			case '\r':
				if i+1 < len(l.data) && l.data[i+1] == '\n' {
					i++
				}
			case '\n':
				// a line continued
			case '0', '1', '2', '3', '4', '5', '6', '7':
				x := int(c - '0')
				for k := 0; k < 2 && i+1 < len(l.data) && l.data[i+1] >= '0' && l.data[i+1] <= '7'; k++ {
					i++
					x = x*8 + int(l.data[i]-'0')
				}
				b = append(b, byte(x))
			default: // \( \) \\, and a backslash before any other character, which is ignored
				b = append(b, c)
			}
			continue
		}
		b = append(b, c)
	}
	l.pos = i
	l.scratch = b
	return string(b)
}

// hex reads a <hex string>; an odd last digit is followed by 0, characters
// that are not hex digits are skipped.
func (l *contentLexer) hex() string {
	l.pos++
	b := l.scratch[:0]
	half := -1
	for ; l.pos < len(l.data); l.pos++ {
		c := l.data[l.pos]
		if c == '>' {
			l.pos++
			break
		}
		d := unhex(c)
		if d < 0 {
			continue
		}
		if half < 0 {
			half = d
			continue
		}
		b = append(b, byte(half<<4|d))
		half = -1
	}
	if half >= 0 {
		b = append(b, byte(half<<4))
	}
	l.scratch = b
	return string(b)
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// skipInlineImage skips the data of an inline image, after its ID: up to
// an EI that stands between white space (or at the end).
func (l *contentLexer) skipInlineImage() {
	i := min(l.pos+1, len(l.data)) // one white-space byte follows ID
	for {
		j := strings.Index(l.data[i:], "EI")
		if j < 0 {
			l.pos = len(l.data)
			return
		}
		i += j
		if i > 0 && isSpace(l.data[i-1]) && (i+2 == len(l.data) || isSpace(l.data[i+2])) {
			l.pos = i + 2
			return
		}
		i += 2
	}
}

// parseNumber reads an integer or a real as the PDF library does: an
// optional sign, then digits with at most one decimal point.
func parseNumber(s string) (float64, bool) {
	digits := s
	if len(digits) > 0 && (digits[0] == '+' || digits[0] == '-') {
		digits = digits[1:]
	}
	if digits == "" {
		return 0, false
	}
	dots, places := 0, 0
	var n int64
	for i := 0; i < len(digits); i++ {
		switch c := digits[i]; {
		case c == '.':
			dots++
		case c >= '0' && c <= '9':
			if n < 1<<58 {
				n = n*10 + int64(c-'0')
			}
			if dots > 0 {
				places++
			}
		default:
			return 0, false
		}
	}
	negative := s[0] == '-'
	switch {
	case dots == 0 && n < 1<<58:
		// An integer: converted as an int64, so -0 is 0.
		if negative {
			n = -n
		}
		return float64(n), true
	case dots == 1 && len(digits) <= 16 && places < len(exactPowersOf10):
		// At most 15 digits and an exact power of ten: the quotient is
		// the correctly rounded value, as strconv.ParseFloat gives.
		f := float64(n) / exactPowersOf10[places]
		if negative {
			f = -f
		}
		return f, len(digits) > 1
	case dots == 1:
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	}
	return 0, false
}

// exactPowersOf10 are the powers of ten a float64 holds exactly.
var exactPowersOf10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
