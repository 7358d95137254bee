package document

import (
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// glyph is one character drawn on a page, in a frame where its text runs
// left to right: x grows along the text, y upwards.
type glyph struct {
	x, y  float64 // start of the glyph on its baseline
	w     float64 // advance width
	size  float64 // font size on the page
	s     string
	seq   int32 // position in drawing order
	rot   int8  // quarter turns of the text direction, 0 for upright text
	space bool
}

func (g glyph) end() float64 { return g.x + g.w }

// matrix is a PDF transformation [a b c d e f]; points are row vectors.
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n: first m, then n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

func matrixOf(v pdf.Value) (matrix, bool) {
	if v.Len() != 6 {
		return identity, false
	}
	var m matrix
	for i := range m {
		m[i] = v.Index(i).Float64()
	}
	return m, true
}

type textState struct {
	ctm            matrix
	tm, tlm        matrix
	tc, tw, th, tl float64
	tfs, trise     float64
	font           *fontInfo
}

// Limits that keep a hostile file from exhausting memory or time.
const (
	maxGlyphsPerPage = 2_000_000
	maxFormDepth     = 12
)

// pageReader collects the glyphs of one page.
type pageReader struct {
	glyphs   []glyph
	fonts    map[fontKey]*fontInfo // for this page
	objects  *objectCache          // across pages
	unmapped int                   // glyphs of fonts whose codes cannot be turned into text
	scopes   int
	inflated []byte // the content stream read last
	// unreadable is set when a content stream gave an error before any
	// of its bytes: damaged, or encrypted with a key not known.
	unreadable bool
}

// fontKey is a font resource's name in the scope of one content stream.
type fontKey struct {
	scope int
	name  string
}

func (p *pageReader) font(scope int, res pdf.Value, name string) *fontInfo {
	key := fontKey{scope, name}
	if f, ok := p.fonts[key]; ok {
		return f
	}
	fonts := p.objects.key(res, "Font")
	id, indirect := refOf(entryOf(fonts, name))
	f := p.objects.fonts[id]
	if f == nil || !indirect {
		f = newFontInfo(fonts.Key(name), p.objects.fallback)
		if indirect {
			p.objects.fonts[id] = f
		}
	}
	p.fonts[key] = f
	return f
}

// run interprets a content stream (page or form) with the given resources
// and initial transformation.
func (p *pageReader) run(content, res pdf.Value, ctm matrix, depth int) {
	p.scopes++
	scope := p.scopes
	g := textState{ctm: ctm, tm: identity, tlm: identity, th: 1}
	var stack []textState
	data, ok := readContent(content, &p.inflated)
	p.unreadable = p.unreadable || !ok
	lex := contentLexer{data: data}
	for {
		op, ok := lex.next()
		if !ok {
			return
		}
		args := operands(lex.args)
		switch op {
		case "q":
			stack = append(stack, g)
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if len(args) == 6 {
				g.ctm = args.matrix().mul(g.ctm)
			}
		case "Tf":
			if len(args) == 2 {
				g.font = p.font(scope, res, args[0].name())
				g.tfs = args.num(1)
			}
		case "BT", "Tc", "Tw", "Tz", "TL", "Ts", "Td", "TD", "Tm", "T*":
			g.set(op, args)
		case "Tj", "'", "\"", "TJ":
			p.showText(&g, op, args, lex.elements)
		case "Do":
			if len(args) == 1 && depth < maxFormDepth {
				p.runForm(res, args[0].name(), g.ctm, depth)
			}
		}
	}
}

// operands are the operands of a content stream operator.
type operands []operand

// num is operand i as a number; 0 when it is missing or no number.
func (a operands) num(i int) float64 {
	if i < len(a) {
		return a[i].float()
	}
	return 0
}

// matrix is the six operands of cm or Tm.
func (a operands) matrix() matrix {
	return matrix{a.num(0), a.num(1), a.num(2), a.num(3), a.num(4), a.num(5)}
}

// set applies an operator of the text state (Tc, Tw, Tz, TL, Ts) or of
// the text position (BT, Td, TD, Tm, T*).
func (g *textState) set(op string, args operands) {
	switch op {
	case "BT":
		g.tm, g.tlm = identity, identity
	case "Tc":
		g.tc = args.num(0)
	case "Tw":
		g.tw = args.num(0)
	case "Tz":
		g.th = args.num(0) / 100
	case "TL":
		g.tl = args.num(0)
	case "Ts":
		g.trise = args.num(0)
	case "Td", "TD":
		if op == "TD" {
			g.tl = -args.num(1)
		}
		g.tlm = matrix{1, 0, 0, 1, args.num(0), args.num(1)}.mul(g.tlm)
		g.tm = g.tlm
	case "Tm":
		if len(args) == 6 {
			g.tlm = args.matrix()
			g.tm = g.tlm
		}
	case "T*":
		g.nextLine()
	}
}

// nextLine moves to the start of the next line, the leading below.
func (g *textState) nextLine() {
	g.tlm = matrix{1, 0, 0, 1, 0, -g.tl}.mul(g.tlm)
	g.tm = g.tlm
}

// showText draws the strings of a text-showing operator (Tj, ', ", TJ);
// elements are the lexer's elements of array operands.
func (p *pageReader) showText(g *textState, op string, args operands, elements []operand) {
	switch op {
	case "Tj":
		if len(args) == 1 {
			p.show(g, args[0].str())
		}
	case "'", "\"":
		if op == "\"" && len(args) == 3 {
			g.tw, g.tc = args.num(0), args.num(1)
			args = args[2:]
		}
		g.nextLine()
		if len(args) == 1 {
			p.show(g, args[0].str())
		}
	case "TJ":
		if len(args) != 1 || args[0].kind != operandArray {
			return
		}
		// Numbers between the strings move the text back, in thousandths
		// of the font size.
		for _, x := range elements[args[0].lo:args[0].hi] {
			if x.kind == operandString {
				p.show(g, x.s)
			} else {
				tx := -x.float() / 1000 * g.tfs * g.th
				g.tm = matrix{1, 0, 0, 1, tx, 0}.mul(g.tm)
			}
		}
	}
}

// runForm runs the form XObject named in res (another kind draws no
// text), drawn with the transformation ctm, one level below depth.
func (p *pageReader) runForm(res pdf.Value, name string, ctm matrix, depth int) {
	xo := p.objects.key(p.objects.key(res, "XObject"), name)
	if xo.Key("Subtype").Name() != "Form" {
		return
	}
	m, _ := matrixOf(xo.Key("Matrix"))
	sub := p.objects.key(xo, "Resources")
	if sub.IsNull() {
		sub = res // a form without resources uses those of the stream that draws it
	}
	p.run(xo, sub, m.mul(ctm), depth+1)
}

// show draws a string with the current font, one glyph per character code.
// The text rendering matrix only moves along the baseline from glyph to
// glyph, so it is computed once and then translated.
func (p *pageReader) show(g *textState, raw string) {
	f := g.font
	if f == nil {
		f = p.objects.fallback
	}
	m := g.tm.mul(g.ctm) // text space to page
	hs := g.tfs * g.th
	for len(raw) > 0 {
		if len(p.glyphs) >= maxGlyphsPerPage {
			return
		}
		n := f.codeLen(raw)
		code := raw[:n]
		raw = raw[n:]
		w0 := f.width(code)
		d := f.text(code)
		// Word spacing applies to the single byte 32, whatever glyph a
		// subset font draws for it; the glyph is a space by its text (a
		// subset may give code 32 to "u").
		wordSpace := n == 1 && code[0] == ' '
		isSpace := wordSpace && (!d.ok || d.blank)
		x0, y0 := m.apply(0, g.trise)
		x1, y1 := m.apply(w0*f.scale*hs, g.trise)
		ux, uy := m.apply(0, g.tfs+g.trise)
		dx, dy := x1-x0, y1-y0
		if dx == 0 && dy == 0 {
			dx, dy = m[0], m[1]
		}
		switch {
		case !d.ok:
			p.unmapped++
		case d.s != "":
			rot := quarterTurns(dx, dy)
			x, y := x0, y0
			if rot != 0 {
				x, y = rotate(x0, y0, rot)
			}
			text := d.s
			if d.blank {
				text, isSpace = " ", true
			}
			p.glyphs = append(p.glyphs, glyph{x: x, y: y, w: hypot(dx, dy), size: hypot(ux-x0, uy-y0),
				s: text, space: isSpace, rot: int8(rot), seq: int32(len(p.glyphs))})
		}
		tx := w0*f.scale*g.tfs + g.tc
		if wordSpace {
			tx += g.tw
		}
		tx *= g.th
		m[4] += tx * m[0]
		m[5] += tx * m[1]
		g.tm[4] += tx * g.tm[0]
		g.tm[5] += tx * g.tm[1]
	}
}

// hypot is math.Hypot, which is exactly |a| or |b| when the other is 0, as
// it is for upright text: then without its work.
func hypot(a, b float64) float64 {
	switch {
	case b == 0:
		return math.Abs(a)
	case a == 0:
		return math.Abs(b)
	}
	return math.Hypot(a, b)
}

// quarterTurns classifies a text direction as 0, 90, 180 or 270 degrees.
func quarterTurns(dx, dy float64) int {
	if dy == 0 && dx > 0 {
		return 0
	}
	a := math.Atan2(dy, dx) / (math.Pi / 2)
	return ((int(math.Round(a)) % 4) + 4) % 4
}

// rotate turns a point so that text of the given direction runs left to right.
func rotate(x, y float64, rot int) (float64, float64) {
	switch rot {
	case 1:
		return y, -x
	case 2:
		return -x, -y
	case 3:
		return -y, x
	}
	return x, y
}

// fontInfo knows how to turn a font's character codes into text and widths.
type fontInfo struct {
	twoByte bool
	cmap    *toUnicode
	enc     pdf.TextEncoding
	first   int
	widths  []float64
	cidW    map[uint32]float64
	dw      float64 // default width
	scale   float64 // glyph space to text space
	noText  bool    // no way to turn codes into text
	// The text of the codes met so far: one-byte codes by their byte,
	// longer ones by the code.
	byteText [256]decoded
	cache    map[string]decoded
}

type decoded struct {
	s     string
	ok    bool // false: the text cannot be known
	blank bool // white space only
	known bool // decoded already
}

// newFallbackFont stands in for a missing font resource.
func newFallbackFont() *fontInfo {
	return &fontInfo{dw: 500, scale: 0.001, enc: latin1{}}
}

// newFontInfo reads the font v, or returns fallback when there is none.
func newFontInfo(v pdf.Value, fallback *fontInfo) *fontInfo {
	if v.IsNull() {
		return fallback
	}
	f := &fontInfo{scale: 0.001}
	sub := v.Key("Subtype").Name()
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.cmap = parseCMap(tu.Reader())
	}
	if sub == "Type0" {
		f.twoByte = true
		desc := v.Key("DescendantFonts").Index(0)
		f.dw = 1000
		if dw := desc.Key("DW"); !dw.IsNull() {
			f.dw = dw.Float64()
		}
		f.cidW = cidWidths(desc.Key("W"))
		if f.cmap == nil {
			f.noText = true
		}
		return f
	}
	if sub == "Type3" {
		if m, ok := matrixOf(v.Key("FontMatrix")); ok && m[0] != 0 {
			f.scale = m[0]
		}
	}
	font := pdf.Font{V: v}
	f.enc = font.Encoder()
	if enc := v.Key("Encoding"); enc.Kind() == pdf.Name && enc.Name() != "WinAnsiEncoding" && enc.Name() != "MacRomanEncoding" {
		f.enc = latin1{} // StandardEncoding and the like: close to Latin-1 for text
	}
	f.first = int(v.Key("FirstChar").Int64())
	ws := v.Key("Widths")
	for i := 0; i < ws.Len(); i++ {
		f.widths = append(f.widths, ws.Index(i).Float64())
	}
	f.dw = v.Key("FontDescriptor").Key("MissingWidth").Float64()
	if len(f.widths) == 0 && f.dw == 0 {
		f.dw = 500 // standard fonts without widths: an average glyph
	}
	return f
}

// cidWidths reads a CIDFont's W array: c [w1 w2 …] or cfirst clast w.
func cidWidths(w pdf.Value) map[uint32]float64 {
	out := map[uint32]float64{}
	for i := 0; i < w.Len(); {
		c := uint32(w.Index(i).Int64())
		next := w.Index(i + 1)
		if next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				out[c+uint32(j)] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		last := uint32(next.Int64())
		width := w.Index(i + 2).Float64()
		for k := c; k <= last && k-c < 1<<16; k++ {
			out[k] = width
		}
		i += 3
	}
	return out
}

// codeLen is the length of the code at the start of raw. Simple fonts
// always use one byte, whatever their ToUnicode CMap declares (Word writes
// two-byte codespaces for one-byte fonts); composite fonts follow the CMap.
func (f *fontInfo) codeLen(raw string) int {
	if !f.twoByte {
		return 1
	}
	n := 2
	if f.cmap != nil && len(f.cmap.spaces) > 0 {
		n = f.cmap.codeLen(raw, 2)
	}
	return min(max(n, 1), len(raw))
}

func (f *fontInfo) width(code string) float64 {
	c := bytesToCode(code)
	if f.cidW != nil || f.twoByte {
		if w, ok := f.cidW[c]; ok {
			return w
		}
		return f.dw
	}
	if i := int(c) - f.first; i >= 0 && i < len(f.widths) {
		return f.widths[i]
	}
	return f.dw
}

// text returns the text of a code.
func (f *fontInfo) text(code string) decoded {
	if len(code) == 1 {
		d := &f.byteText[code[0]]
		if !d.known {
			*d = f.decoded(code)
		}
		return *d
	}
	if d, hit := f.cache[code]; hit {
		return d
	}
	d := f.decoded(code)
	if f.cache == nil {
		f.cache = map[string]decoded{}
	}
	f.cache[strings.Clone(code)] = d // not a part of the page's content, which would be kept with it
	return d
}

func (f *fontInfo) decoded(code string) decoded {
	s, ok := f.decode(code)
	return decoded{s: s, ok: ok, blank: strings.TrimSpace(s) == "", known: true}
}

func (f *fontInfo) decode(code string) (string, bool) {
	if f.cmap != nil {
		if s, ok := f.cmap.lookup(bytesToCode(code)); ok {
			return normalizeGlyphText(s), true
		}
	}
	if f.noText || f.enc == nil {
		return "", false
	}
	return normalizeGlyphText(f.enc.Decode(code)), true
}

// latin1 decodes bytes as ISO 8859-1, for fonts with standard encoding.
type latin1 struct{}

func (latin1) Decode(raw string) string {
	r := make([]rune, len(raw))
	for i := 0; i < len(raw); i++ {
		r[i] = rune(raw[i])
	}
	return string(r)
}

// normalizeGlyphText replaces ligatures by their letters and drops
// characters that carry no text.
func normalizeGlyphText(s string) string {
	if s == "" {
		return s
	}
	return glyphReplacer.Replace(s)
}

var glyphReplacer = strings.NewReplacer(
	"\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st",
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2009", " ",
	"\x00", "", "\ufeff", "", "\u200b", "",
)
