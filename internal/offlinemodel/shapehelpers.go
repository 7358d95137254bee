package offlinemodel

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"creator/internal/document"
	"creator/internal/requirement"
)

// What several shapes use: lines, headings and table rows of a chunk,
// spans and masking, sentences and their splitting, the requirement found
// before it becomes a draft, and the requirement tables every shape but
// the rule list reads first.

// A requirement identifier: letters, a hyphen, a number ("FR-1.1",
// "NFR-3", "REQ-012", "SEC-04", "SR-AC-2").
var reqIDPattern = `[A-Z][A-Z0-9]{0,5}(?:-[A-Z]{1,4})?-\d{1,4}(?:\.\d{1,3}){0,3}[a-z]?`

// A Markdown table row, and the row under a table's header.
var tableLineRE = regexp.MustCompile(`^\|.*\|$`)

var tableRuleRE = regexp.MustCompile(`^\|[\s:|-]+\|$`)

// Headings: Markdown, or a numbered title on a line of its own.
var mdHeadingRE = regexp.MustCompile(`^(#{1,6})[ \t]+(.+)$`)

var numberedHeadRE = regexp.MustCompile(`^(\d{1,2}(?:\.\d{1,2}){0,3})\.?[ \t]+(\p{Lu}[^.;:!?,]*)$`)

// heading reads a line as a heading: its level and title.
func heading(line string) (level int, title string, ok bool) {
	if m := mdHeadingRE.FindStringSubmatch(line); m != nil {
		return len(m[1]), m[2], true
	}
	if m := numberedHeadRE.FindStringSubmatch(line); m != nil && len(strings.Fields(m[2])) <= 8 {
		return strings.Count(m[1], ".") + 1, m[2], true
	}
	return 0, "", false
}

// cell is a cell of a Markdown table row: its text and where it starts in
// the line.
type cell struct {
	text string
	at   int
}

// masked is text with the spans blanked (newlines kept), so that sentences
// are not read across them and offsets stay the same.
func masked(text string, spans []span) string {
	b := []byte(text)
	for _, s := range spans {
		for i := s.from; i < s.to && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// chunkLine is a line of a chunk: where it starts and ends (without its
// newline) and its text trimmed, from..to.
type chunkLine struct {
	at, from, to int
	text         string
}

func chunkLines(text string) []chunkLine {
	var out []chunkLine
	pos := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(l)
		lead := len(l) - len(strings.TrimLeft(l, " \t"))
		out = append(out, chunkLine{at: pos, from: pos + lead, to: pos + lead + len(t), text: t})
		pos += len(l)
	}
	return out
}

// otherSentences are the sentences outside skip and informative blocks
// that carry a cue; kindOf, when given, says which kind of section holds
// an offset: in a requirements section every statement is one, in a
// descriptive section "will" only foretells.
func otherSentences(text string, skip []span, p profile, kindOf func(int) blockKind) []found {
	bs := keywordNotes(blocks(text), p)
	m := masked(text, skip)
	var out []found
	for _, whole := range p.splitAtPrefixIDs(sentences(m)) {
		if kindAt(bs, whole.start) == informative {
			continue
		}
		for _, s := range splitLong(whole, maxSentence) {
			s = stripLead(s)
			s.text = strings.TrimSpace(text[s.start : s.start+len(s.text)])
			quote := requirement.Clean(s.text)
			section := neutral
			if kindOf != nil {
				section = kindOf(s.start)
			}
			f, ok := classify(quote, p.UpperOnly)
			switch {
			case strings.HasSuffix(quote, "?"):
				continue // a question
			case section == informative && ok && strings.Contains(strings.ToLower(f.cue), "will"):
				continue // a description of what will be
			case section == normative && !ok && statement(quote):
				f, ok = finding{kind: "obligation", cue: "a statement in a requirements section", confidence: 0.7,
					note: "a statement under a requirements heading, an obligation whatever its verb"}, true
			}
			if ok {
				out = append(out, found{s: s, quote: quote, f: f})
			}
		}
	}
	return out
}

// statement reports whether a sentence of a requirements section states
// something: four words or more, a lower-case one among them, not a
// lead-in, a question or the document speaking of itself.
func statement(q string) bool {
	return len(strings.Fields(q)) >= 4 && lowerWord.MatchString(q) && !leaderDots.MatchString(q) &&
		!strings.HasSuffix(q, ":") && !strings.HasSuffix(q, "?") && !selfReferenceRE.MatchString(q) &&
		!strings.HasPrefix(q, "|") && !strings.HasPrefix(q, "#")
}

// The verbs a verification statement starts with.
var verifyVerbRE = regexp.MustCompile(`(?i)^(?:verify|ensure|confirm|check|determine|review|test|validate|examine|inspect|assess|make sure)\b`)

// A row marked as no longer a requirement.
var retiredRowRE = regexp.MustCompile(`(?i)^[\[(]?\s*(?:deleted|moved|removed|withdrawn|merged|replaced|deprecated|obsolete)\b`)

// shapeFinding is what a row or a rule title states: a requirement by the
// document's layout, whatever its verb; a cue in it says which kind.
func shapeFinding(quote, cue, note string) finding {
	if f, ok := classify(quote, false); ok && f.kind != "permission" {
		return f
	}
	return finding{kind: "obligation", cue: cue, confidence: 0.8, strong: true, note: note}
}

// maxSentence is the longest sentence read as one, in bytes. A longer run
// is table rows or a list without full stops glued together: it is read
// line by line (then clause by clause), never dropped.
const maxSentence = 1500

// splitLong cuts a run longer than most bytes at its line breaks, and a
// line still longer at its semicolons, then at the last space before most.
func splitLong(s sentence, most int) []sentence {
	if len(requirement.Clean(s.text)) <= most {
		return []sentence{s}
	}
	var out []sentence
	for _, seps := range []string{"\n", ";"} {
		if !strings.Contains(s.text, seps) {
			continue
		}
		off := 0
		for _, part := range strings.SplitAfter(s.text, seps) {
			if t := strings.TrimSpace(part); t != "" {
				lead := len(part) - len(strings.TrimLeft(part, " \t\n"))
				out = append(out, splitLong(sentence{text: t, start: s.start + off + lead}, most)...)
			}
			off += len(part)
		}
		return out
	}
	cut := strings.LastIndexByte(s.text[:most], ' ')
	if cut <= 0 {
		// No space to cut at: the last whole character before most.
		for cut = most; cut > 0 && !utf8.RuneStart(s.text[cut]); cut-- {
		}
	}
	out = append(out, sentence{text: strings.TrimSpace(s.text[:cut]), start: s.start})
	rest := s.text[cut:]
	lead := len(rest) - len(strings.TrimLeft(rest, " \t\n"))
	return append(out, splitLong(sentence{text: strings.TrimSpace(rest), start: s.start + cut + lead}, most)...)
}

// found is a requirement found in a chunk, before it becomes a draft: the
// sentence, cleaned as its quote, and what it states.
type found struct {
	s     sentence
	quote string
	f     finding
	// Of a row or rule read by the document's shape (shape.go): the
	// requirement's text when it is not the quote (level columns left
	// out), the quotes after the first (the statement's runs of lines
	// between level columns or a repeated table header), and the row's
	// identifier and level columns as the document gives them, for the
	// record's source_id and attributes.
	text   string
	more   []string
	id     string
	levels string
	// attrs are other columns of the row or rule (a rule's severity).
	attrs map[string]string
	// fromTable: a row of a table, whose id is its id cell's text.
	fromTable bool
	// evidence says what of the document's evidence made it a
	// requirement or gave its id, for the rationale.
	evidence []string
}

// setAttr sets an attribute of a found requirement.
func (x *found) setAttr(name, value string) {
	if x.attrs == nil {
		x.attrs = map[string]string{}
	}
	x.attrs[name] = value
}

// span is a byte range of a chunk.
type span struct{ from, to int }

func (s span) holds(off int) bool { return off >= s.from && off < s.to }

// kindAt is the kind of the block that holds offset off.
func kindAt(bs []block, off int) blockKind {
	for _, b := range bs {
		if (span{b.start, b.end}).holds(off) {
			return b.kind
		}
	}
	return neutral
}

func inAny(spans []span, off int) bool {
	for _, s := range spans {
		if s.holds(off) {
			return true
		}
	}
	return false
}

// sentence is a sentence of a chunk: its text exactly as in the chunk
// (page marker lines removed) and where it starts.
type sentence struct {
	text  string
	start int
}

// sentences splits a chunk's text into the sentences a requirement is
// quoted from: a sentence goes on across a page break, and a list item is
// a sentence of its own (see document.Sentences).
func sentences(text string) []sentence {
	var out []sentence
	for _, sp := range document.Sentences(text, document.SentenceOptions{ListsEnd: true, NumbersEnd: true}) {
		raw := text[sp.Start:sp.End]
		if s := strings.TrimSpace(raw); s != "" {
			lead := len(raw) - len(strings.TrimLeft(raw, " \t\n"))
			out = append(out, sentence{text: s, start: sp.Start + lead})
		}
	}
	return out
}

// stripLead removes a list marker or clause number from the start of a
// sentence; the quote starts after it.
func stripLead(s sentence) sentence {
	for {
		end := document.ListMarkerLen(s.text)
		if end == 0 || end >= len(s.text) {
			return s
		}
		s = sentence{text: s.text[end:], start: s.start + end}
	}
}

// requirementTables reads the requirement tables of a chunk row by row
// (table.go), whatever the shape, and returns their rows and the chunk's
// text with those tables blanked, so that the shape's own reader does not
// see them; hideOthers blanks the other tables too, whose rows are no
// sentences. normativeAt, when given, tells whether an offset stands in a
// requirements section.
func requirementTables(body string, normativeAt func(int) bool, hideOthers bool) ([]found, string) {
	rows, reqTables, others := tableFindings(body, normativeAt)
	hide := reqTables
	if hideOthers {
		hide = append(hide, others...)
	}
	return rows, masked(body, hide)
}
