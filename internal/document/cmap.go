package document

import (
	"bytes"
	"encoding/hex"
	"io"
	"strings"
	"unicode/utf16"
)

// toUnicode is a parsed ToUnicode CMap: which text each character code
// stands for, and how many bytes a code takes.
type toUnicode struct {
	spaces []codespace
	chars  map[uint32]string
	ranges []bfrange
}

type codespace struct {
	n      int // bytes
	lo, hi uint32
}

type bfrange struct {
	n      int
	lo, hi uint32
	base   []uint16   // destination of lo, incremented for later codes
	array  [][]uint16 // or one destination per code
	single bool
}

// parseCMap reads the bfchar/bfrange sections of a ToUnicode CMap. It is
// lenient: anything it does not understand is skipped.
func parseCMap(r io.Reader) *toUnicode {
	data, err := io.ReadAll(io.LimitReader(r, 16<<20))
	if err != nil && len(data) == 0 {
		return nil
	}
	m := &toUnicode{chars: map[uint32]string{}}
	toks := cmapTokens(data)
	for i := 0; i < len(toks); i++ {
		switch toks[i] {
		case "begincodespacerange":
			for i++; i+1 < len(toks) && toks[i] != "endcodespacerange"; i += 2 {
				lo, n1, ok1 := hexCode(toks[i])
				hi, n2, ok2 := hexCode(toks[i+1])
				if ok1 && ok2 && n1 == n2 {
					m.spaces = append(m.spaces, codespace{n: n1, lo: lo, hi: hi})
				}
			}
		case "beginbfchar":
			for i++; i+1 < len(toks) && toks[i] != "endbfchar"; i += 2 {
				code, _, ok := hexCode(toks[i])
				if dst, ok2 := hexUTF16(toks[i+1]); ok && ok2 {
					m.chars[code] = string(utf16.Decode(dst))
				}
			}
		case "beginbfrange":
			for i++; i+2 < len(toks) && toks[i] != "endbfrange"; {
				lo, n, ok1 := hexCode(toks[i])
				hi, _, ok2 := hexCode(toks[i+1])
				r := bfrange{n: n, lo: lo, hi: hi}
				if toks[i+2] == "[" {
					j := i + 3
					for ; j < len(toks) && toks[j] != "]"; j++ {
						d, _ := hexUTF16(toks[j])
						r.array = append(r.array, d)
					}
					i = j + 1
				} else {
					d, ok := hexUTF16(toks[i+2])
					r.base, r.single = d, true
					ok1 = ok1 && ok
					i += 3
				}
				if ok1 && ok2 && hi >= lo && hi-lo < 1<<20 {
					m.ranges = append(m.ranges, r)
				}
			}
		}
	}
	if len(m.chars) == 0 && len(m.ranges) == 0 {
		return nil
	}
	return m
}

// codeLen is the length of the code that starts raw, from the codespace
// ranges; def when the CMap declares none.
func (m *toUnicode) codeLen(raw string, def int) int {
	for _, s := range m.spaces {
		if s.n <= len(raw) {
			c := bytesToCode(raw[:s.n])
			if c >= s.lo && c <= s.hi {
				return s.n
			}
		}
	}
	return def
}

// lookup returns the text of a code.
func (m *toUnicode) lookup(code uint32) (string, bool) {
	if s, ok := m.chars[code]; ok {
		return s, true
	}
	for _, r := range m.ranges {
		if code < r.lo || code > r.hi {
			continue
		}
		off := code - r.lo
		if r.single {
			if len(r.base) == 0 {
				return "", false
			}
			d := append([]uint16(nil), r.base...)
			d[len(d)-1] += uint16(off)
			return string(utf16.Decode(d)), true
		}
		if int(off) < len(r.array) {
			return string(utf16.Decode(r.array[off])), true
		}
	}
	return "", false
}

func bytesToCode(b string) uint32 {
	var c uint32
	for i := 0; i < len(b); i++ {
		c = c<<8 | uint32(b[i])
	}
	return c
}

// cmapTokens splits CMap source into hex strings (kept with their brackets),
// array brackets and keywords; names, numbers and dictionaries pass as words.
func cmapTokens(data []byte) []string {
	var toks []string
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '%':
			for i < len(data) && data[i] != '\n' && data[i] != '\r' {
				i++
			}
		case c == '<' && i+1 < len(data) && data[i+1] == '<', c == '>' && i+1 < len(data) && data[i+1] == '>':
			i += 2
		case c == '<':
			j := bytes.IndexByte(data[i:], '>')
			if j < 0 {
				return toks
			}
			toks = append(toks, string(data[i:i+j+1]))
			i += j + 1
		case c == '[' || c == ']':
			toks = append(toks, string(c))
			i++
		case c == '(':
			// literal strings do not occur in the sections we read; skip them
			depth := 0
			for ; i < len(data); i++ {
				if data[i] == '\\' {
					i++
					continue
				}
				if data[i] == '(' {
					depth++
				} else if data[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
		case isSpace(c):
			i++
		default:
			j := i
			for j < len(data) && !isSpace(data[j]) && !strings.ContainsRune("<>[]()%/", rune(data[j])) {
				j++
			}
			if j == i {
				j++
			}
			toks = append(toks, string(data[i:j]))
			i = j
		}
	}
	return toks
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

// hexCode reads <0041> as a code and its length in bytes.
func hexCode(tok string) (uint32, int, bool) {
	b, ok := hexBytes(tok)
	if !ok || len(b) == 0 || len(b) > 4 {
		return 0, 0, false
	}
	return bytesToCode(string(b)), len(b), true
}

// hexUTF16 reads <00660069> as UTF-16BE code units.
func hexUTF16(tok string) ([]uint16, bool) {
	b, ok := hexBytes(tok)
	if !ok {
		return nil, false
	}
	if len(b)%2 == 1 {
		b = append(b, 0)
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	return u, true
}

func hexBytes(tok string) ([]byte, bool) {
	if len(tok) < 2 || tok[0] != '<' || tok[len(tok)-1] != '>' {
		return nil, false
	}
	h := strings.Map(func(r rune) rune {
		if strings.ContainsRune(" \t\r\n", r) {
			return -1
		}
		return r
	}, tok[1:len(tok)-1])
	if len(h)%2 == 1 {
		h += "0"
	}
	b, err := hex.DecodeString(h)
	return b, err == nil
}
