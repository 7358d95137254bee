package document

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultChunkTokens is the default size limit of a chunk.
const DefaultChunkTokens = 1500

// Counter counts tokens.
type Counter interface {
	Count(string) int
}

// Chunk is a piece of the extracted text: whole sections packed together,
// or a part of a long section cut at a paragraph or sentence boundary.
type Chunk struct {
	ID        string   `json:"id"`
	Heading   string   `json:"heading"`            // path of the section the chunk starts in: "3 … > 3.2 … > 3.2.1 …"
	Sections  []string `json:"sections,omitempty"` // paths of further sections packed into it
	FirstPage int      `json:"first_page,omitempty"`
	LastPage  int      `json:"last_page,omitempty"`
	StartLine int      `json:"start_line"` // 1-based lines of the extracted text, inclusive
	EndLine   int      `json:"end_line"`
	Tokens    int      `json:"tokens"`
	// TableHeader is the header of the table the chunk starts in the
	// middle of (its header row and rule line), so that its rows can be
	// read by their columns; it is no part of Text.
	TableHeader string `json:"table_header,omitempty"`
	Text        string `json:"-"`
	start       int    // byte offsets in the text
	end         int
}

// span is a unit of text that is never cut: a paragraph, or a sentence of
// a paragraph too long for one chunk.
type span struct{ start, end int }

// ChunkText splits text (as rendered by Document.Text) into chunks of at
// most maxTokens tokens along its structure: sections are kept whole and
// small ones packed together, within the same top-level section unless the
// chunk is less than half full; a section
// too long for one chunk is cut between paragraphs, a paragraph too long
// between sentences. Only a sentence longer than a whole chunk is cut
// between lines, or words. The chunks cover the text exactly, in order.
func ChunkText(text string, maxTokens int, counter Counter) []Chunk {
	chunks, _ := ChunkTextContext(context.Background(), text, maxTokens, counter)
	return chunks
}

// ChunkTextContext is ChunkText that stops, with ctx's error, when ctx
// ends: a large text takes seconds, and Ctrl-C must not wait for them.
func ChunkTextContext(ctx context.Context, text string, maxTokens int, counter Counter) ([]Chunk, error) {
	if maxTokens <= 0 {
		maxTokens = DefaultChunkTokens
	}
	c := &chunker{ctx: ctx, text: text, max: maxTokens, count: counter}
	c.index()
	c.build()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return c.chunks, nil
}

type chunker struct {
	ctx    context.Context
	text   string
	max    int
	count  Counter
	starts []int // byte offset of each line
	lines  []string
	pages  []int // page of each line (0 before the first marker)
	secs   []section
	chunks []Chunk
}

type section struct {
	start, end int // byte offsets
	path       string
	top        string // the top-level section it belongs to; small sections are packed within it
}

func (c *chunker) index() {
	c.lines = strings.SplitAfter(c.text, "\n")
	if n := len(c.lines); n > 0 && c.lines[n-1] == "" {
		c.lines = c.lines[:n-1]
	}
	page := 0
	off := 0
	plain := make([]string, len(c.lines))
	for i, l := range c.lines {
		c.starts = append(c.starts, off)
		off += len(l)
		plain[i] = strings.TrimRight(l, "\r\n")
		if n, ok := ParsePageMarker(plain[i]); ok {
			page = n
		}
		c.pages = append(c.pages, page)
	}
	c.starts = append(c.starts, off)

	heads := findHeadings(plain)
	var stack []heading
	tops := 0
	top := ""
	sec := section{start: 0}
	for _, h := range heads {
		// A page marker just before a heading belongs to its section.
		startLine := h.line
		for startLine > 0 && (isMarker(plain[startLine-1]) || strings.TrimSpace(plain[startLine-1]) == "") {
			startLine--
		}
		start := c.starts[startLine]
		if start > sec.start {
			sec.end = start
			c.secs = append(c.secs, sec)
		}
		for len(stack) > 0 && !ancestor(stack[len(stack)-1], h) {
			stack = stack[:len(stack)-1]
		}
		switch {
		case h.number != nil && (len(stack) == 0 || stack[0].number != nil):
			top = "number " + h.number[0] // 4.1.1 belongs with 4, printed or not
		case len(stack) == 0:
			tops++
			top = fmt.Sprint("named ", tops)
		}
		stack = append(stack, h)
		titles := make([]string, len(stack))
		for i, s := range stack {
			titles[i] = HeadingTitle(s.title)
		}
		sec = section{start: start, path: strings.Join(titles, SectionSeparator), top: top}
	}
	sec.end = len(c.text)
	if sec.end > sec.start || len(c.secs) == 0 {
		c.secs = append(c.secs, sec)
	}
}

// ancestor reports whether heading a contains heading h: a is of a higher
// level, and if both are numbered, a's number begins h's (so "3 …" is not
// shown above "4.1.1 …" when "4" and "4.1" were not recognised).
func ancestor(a, h heading) bool {
	if a.level >= h.level {
		return false
	}
	if a.number != nil && h.number != nil {
		return len(a.number) < len(h.number) && prefixEqual(a.number, h.number[:len(a.number)])
	}
	return true
}

// HeadingTitle is how a section path names a heading line: without
// Markdown hashes and extra spaces, at most 80 characters.
func HeadingTitle(t string) string {
	t = strings.Join(strings.Fields(strings.TrimLeft(t, "# ")), " ")
	if utf8.RuneCountInString(t) > 80 {
		r := []rune(t)
		t = string(r[:79]) + "…"
	}
	return t
}

// build packs sections into chunks. Token counts of neighbouring pieces
// are added; each chunk is counted once more as a whole before it is
// emitted, and halved if joining made it too long.
func (c *chunker) build() {
	var cur []section
	curTokens := 0
	flush := func() {
		if len(cur) > 0 {
			c.emitChecked(cur)
		}
		cur, curTokens = nil, 0
	}
	for _, s := range c.secs {
		if c.ctx.Err() != nil {
			return
		}
		n := c.tokensUpTo(s.start, s.end)
		switch {
		case n > c.max:
			flush()
			c.split(s)
		// Small sections are packed; a new top-level section starts a new
		// chunk unless the one being filled is still less than half full.
		case len(cur) > 0 && (curTokens+n > c.max || cur[0].top != s.top && curTokens >= c.max/2):
			flush()
			cur, curTokens = []section{s}, n
		default:
			cur = append(cur, s)
			curTokens += n
		}
	}
	flush()
}

// emitChecked emits sections packed as one chunk, or one by one if the
// whole is over the limit after all.
func (c *chunker) emitChecked(secs []section) {
	start, end := secs[0].start, secs[len(secs)-1].end
	if len(secs) == 1 || c.tokens(start, end) <= c.max {
		c.emit(start, end, secs)
		return
	}
	half := len(secs) / 2
	c.emitChecked(secs[:half])
	c.emitChecked(secs[half:])
}

// piece is a span with its token count.
type piece struct {
	span
	tokens int
}

// split cuts a section too long for one chunk into pieces that fit, then
// packs them: paragraphs first; a paragraph too long is cut into sentences,
// a sentence into lines, a line into words, and only text without spaces
// into slices.
func (c *chunker) split(s section) {
	var pieces []piece
	for _, p := range c.paragraphs(s.start, s.end) {
		pieces = c.fit(pieces, p, 0)
	}
	var group []piece
	sum := 0
	for _, p := range pieces {
		if len(group) > 0 && sum+p.tokens > c.max {
			c.emitPieces(group, s)
			group, sum = nil, 0
		}
		group = append(group, p)
		sum += p.tokens
	}
	c.emitPieces(group, s)
}

// fit appends sp to out if it fits in a chunk, else its parts one level down.
func (c *chunker) fit(out []piece, sp span, level int) []piece {
	n := c.tokensUpTo(sp.start, sp.end)
	if n <= c.max || sp.end-sp.start <= 1 {
		return append(out, piece{sp, n})
	}
	var parts []span
	switch level {
	case 0:
		parts = c.sentencesAndRows(sp)
	case 1:
		parts = c.cutAfter(sp, '\n')
	case 2:
		parts = c.cutAfter(sp, ' ')
	default:
		parts = c.slices(sp)
	}
	if len(parts) <= 1 && level < 3 {
		return c.fit(out, sp, level+1)
	}
	for _, p := range parts {
		out = c.fit(out, p, level+1)
	}
	return out
}

func (c *chunker) emitPieces(group []piece, s section) {
	if len(group) == 0 {
		return
	}
	start, end := group[0].start, group[len(group)-1].end
	if len(group) == 1 || c.tokens(start, end) <= c.max {
		c.emit(start, end, []section{s})
		return
	}
	half := len(group) / 2
	c.emitPieces(group[:half], s)
	c.emitPieces(group[half:], s)
}

// cutAfter splits a span after each occurrence of sep.
func (c *chunker) cutAfter(sp span, sep byte) []span {
	var out []span
	from := sp.start
	for i := sp.start; i < sp.end; i++ {
		if c.text[i] == sep && i+1 < sp.end {
			out = append(out, span{from, i + 1})
			from = i + 1
		}
	}
	return append(out, span{from, sp.end})
}

// slices cuts text without spaces into pieces of at most 1,000 bytes, and
// at most half the span, at character boundaries: repeated, it always ends.
func (c *chunker) slices(sp span) []span {
	var out []span
	size := max(min(1000, (sp.end-sp.start)/2), 1)
	for from := sp.start; from < sp.end; {
		to := min(from+size, sp.end)
		for to < sp.end && to > from+1 && !utf8.RuneStart(c.text[to]) {
			to--
		}
		out = append(out, span{from, to})
		from = to
	}
	return out
}

// paragraphs splits a range at blank lines; each paragraph takes the blank
// lines after it, so the pieces cover the range exactly.
func (c *chunker) paragraphs(start, end int) []span {
	var out []span
	pstart := start
	sawText := false
	for i := c.lineAt(start); i < len(c.lines) && c.starts[i] < end; i++ {
		blank := strings.TrimSpace(c.lines[i]) == ""
		if !blank && sawText && i > 0 && strings.TrimSpace(c.lines[i-1]) == "" && c.starts[i] > pstart {
			out = append(out, span{pstart, c.starts[i]})
			pstart = c.starts[i]
		}
		if !blank {
			sawText = true
		}
	}
	return append(out, span{pstart, end})
}

// sentencesAndRows splits a paragraph into its sentences, and the table
// rows in it into one piece a row (a header with its rule line): a row is
// never cut.
func (c *chunker) sentencesAndRows(p span) []span {
	var out []span
	from := p.start // of the text before the next row
	for i := c.lineAt(p.start); i < len(c.lines) && c.starts[i] < p.end; i++ {
		if !TableRowRE.MatchString(strings.TrimRight(c.lines[i], "\r\n")) {
			continue
		}
		if c.starts[i] > from {
			out = append(out, c.sentences(span{from, c.starts[i]})...)
		}
		end := min(c.starts[i+1], p.end)
		if n := len(out); n > 0 && out[n-1].end == c.starts[i] && IsTableRule(strings.TrimRight(c.lines[i], "\r\n")) {
			out[n-1].end = end // a header row keeps its rule line
		} else {
			out = append(out, span{max(c.starts[i], p.start), end})
		}
		from = end
	}
	if from < p.end {
		out = append(out, c.sentences(span{from, p.end})...)
	}
	return out
}

// tableHeader is the header (row and rule line) of the table that line i
// is a row of, when line i is not the header's own; "" when the line is
// no table row or the table has no header.
func (c *chunker) tableHeader(i int) string {
	row := func(j int) string { return strings.TrimRight(c.lines[j], "\r\n") }
	// A table goes on over a page break.
	for i+1 < len(c.lines) && isMarker(row(i)) {
		i++
	}
	if !TableRowRE.MatchString(row(i)) || i+1 < len(c.lines) && IsTableRule(row(i+1)) {
		return "" // no table, or one that starts with its own header
	}
	first := i
	for first > 0 && (TableRowRE.MatchString(row(first-1)) || isMarker(row(first-1)) && first > 1 && TableRowRE.MatchString(row(first-2))) {
		first--
	}
	if first+1 >= i || !IsTableRule(row(first+1)) || IsTableRule(row(i)) {
		return ""
	}
	return strings.TrimSpace(row(first)) + "\n" + strings.TrimSpace(row(first+1))
}

// sentences splits a paragraph into its sentences. A page marker starts
// a sentence, so that a piece starts on its page.
func (c *chunker) sentences(p span) []span {
	var out []span
	for _, s := range Sentences(c.text[p.start:p.end], SentenceOptions{PageBreakEnds: true}) {
		out = append(out, span{p.start + s.Start, p.start + s.End})
	}
	return out
}

func (c *chunker) tokens(start, end int) int { return c.count.Count(c.text[start:end]) }

// maxTokenBytes is the length of the longest token of o200k_base and
// cl100k_base: a text of more than maxTokenBytes × n bytes has more than
// n tokens.
const maxTokenBytes = 128

// tokensUpTo is tokens(start, end) where that can be within the limit,
// and the limit plus one, uncounted, where the span is too long for it:
// counting takes memory in proportion to the text counted (some 45 bytes
// a byte, all at once where no line break cuts it into parts), and a
// document written as one line (32 MB) is one section of one paragraph.
func (c *chunker) tokensUpTo(start, end int) int {
	if end-start > maxTokenBytes*c.max {
		return c.max + 1
	}
	return c.tokens(start, end)
}

// lineAt is the line that contains byte offset off.
func (c *chunker) lineAt(off int) int {
	lo, hi := 0, len(c.lines)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

func (c *chunker) emit(start, end int, secs []section) {
	if end <= start {
		return
	}
	first, last := c.lineAt(start), c.lineAt(end-1)
	ch := Chunk{
		ID:        fmt.Sprintf("chunk_%03d", len(c.chunks)+1),
		Heading:   secs[0].path,
		StartLine: first + 1,
		EndLine:   last + 1,
		Text:      c.text[start:end],
		Tokens:    c.tokens(start, end),
		start:     start,
		end:       end,
	}
	for _, s := range secs[1:] {
		if s.path != "" && s.path != ch.Heading {
			ch.Sections = append(ch.Sections, s.path)
		}
	}
	ch.TableHeader = c.tableHeader(first)
	ch.FirstPage, ch.LastPage = c.pages[first], c.pages[last]
	// A chunk that starts on a page marker starts on that page.
	if n, ok := ParsePageMarker(strings.TrimSpace(c.lines[first])); ok {
		ch.FirstPage = n
	}
	if ch.FirstPage == 0 && ch.LastPage > 0 {
		ch.FirstPage = 1
	}
	c.chunks = append(c.chunks, ch)
}
