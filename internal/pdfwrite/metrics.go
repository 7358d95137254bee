package pdfwrite

// helvetica holds advance widths (1/1000 em) of Helvetica for the WinAnsi
// codes the writer uses; the same table serves Helvetica-Bold closely
// enough for test documents, since the widths written into the PDF are the
// ones every reader uses.
var helvetica = map[byte]int{
	' ': 278, '!': 278, '"': 355, '#': 556, '$': 556, '%': 889, '&': 667, '\'': 191, '(': 333, ')': 333,
	'*': 389, '+': 584, ',': 278, '-': 333, '.': 278, '/': 278, '0': 556, '1': 556, '2': 556, '3': 556,
	'4': 556, '5': 556, '6': 556, '7': 556, '8': 556, '9': 556, ':': 278, ';': 278, '<': 584, '=': 584,
	'>': 584, '?': 556, '@': 1015, 'A': 667, 'B': 667, 'C': 722, 'D': 722, 'E': 667, 'F': 611, 'G': 778,
	'H': 722, 'I': 278, 'J': 500, 'K': 667, 'L': 556, 'M': 833, 'N': 722, 'O': 778, 'P': 667, 'Q': 778,
	'R': 722, 'S': 667, 'T': 611, 'U': 722, 'V': 667, 'W': 944, 'X': 667, 'Y': 667, 'Z': 611, '[': 278,
	'\\': 278, ']': 278, '^': 469, '_': 556, '`': 333, 'a': 556, 'b': 556, 'c': 500, 'd': 556, 'e': 556,
	'f': 278, 'g': 556, 'h': 556, 'i': 222, 'j': 222, 'k': 500, 'l': 222, 'm': 833, 'n': 556, 'o': 556,
	'p': 556, 'q': 556, 'r': 333, 's': 500, 't': 278, 'u': 556, 'v': 500, 'w': 722, 'x': 500, 'y': 500,
	'z': 500, '{': 334, '|': 260, '}': 334, '~': 584,
	0x80: 556, 0x91: 222, 0x92: 222, 0x93: 333, 0x94: 333, 0x95: 350, 0x96: 556, 0x97: 1000,
	0xA7: 556, 0xC4: 667, 0xD6: 778, 0xDC: 722, 0xDF: 611, 0xE4: 556, 0xE9: 556, 0xF6: 556, 0xFC: 556,
}

// winAnsi maps the characters the writer supports to WinAnsiEncoding.
func winAnsi(r rune) (byte, bool) {
	switch {
	case r >= 0x20 && r < 0x7F:
		return byte(r), true
	case r >= 0xA0 && r <= 0xFF:
		return byte(r), true
	}
	switch r {
	case '€':
		return 0x80, true
	case '‘':
		return 0x91, true
	case '’':
		return 0x92, true
	case '“':
		return 0x93, true
	case '”':
		return 0x94, true
	case '•':
		return 0x95, true
	case '–':
		return 0x96, true
	case '—':
		return 0x97, true
	case '„':
		return 0x84, true
	}
	return 0, false
}

// Width is the advance width of s in points at the given font size.
func Width(s string, size float64) float64 {
	w := 0
	for _, r := range s {
		b, ok := winAnsi(r)
		if !ok {
			b = '?'
		}
		if cw, ok := helvetica[b]; ok {
			w += cw
		} else {
			w += 556
		}
	}
	return float64(w) * size / 1000
}
