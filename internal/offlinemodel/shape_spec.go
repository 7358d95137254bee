package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Specifications (software requirements specifications, backlogs):
// sections of requirements ("Functional requirements", "Constraints",
// "User stories") beside sections that describe ("Introduction", "Scope",
// "Overall description"); items that carry a requirement identifier
// ("FR-1.1:", "NFR-3", "REQ-012") in a list, a table row or a heading;
// user stories ("As a …, I want …") and their acceptance criteria
// (Given/When/Then, or bullets). Inside a requirements section every
// statement is a requirement, with or without a modal verb ("Users can
// export reports as PDF."); in a descriptive section "will" foretells
// ("The system will be used by …").
const shapeSpec = "specification"

var specificationShape = shape{
	name:   shapeSpec,
	reason: "a specification: items with requirement identifiers, user stories and acceptance criteria, and the statements of its requirements sections are requirements; introductions and overviews describe",
	detect: func(text string) bool {
		s := countSpecSignals(text)
		return s.ids >= 3 || s.stories >= 2 || s.srsHeads >= 1 && s.overviewHeads >= 1
	},
	extract: func(c chunkRead, p profile) []found {
		kindOf := specSectionKinds(c.body, c.heading)
		rows, rest := requirementTables(c.body, func(off int) bool { return kindOf(off) == normative }, false)
		fields, fieldSpans := fieldItems(rest, p)
		rows = append(rows, fields...)
		return append(rows, specItems(masked(rest, fieldSpans), c.heading, p)...)
	},
}

// A list item or line that starts with an identifier: "- **FR-1.1:**
// Filter by size", "FR-2: …", "1. REQ-012 – …". Without a list marker
// the identifier needs a separator or emphasis after it.
var idItemRE = regexp.MustCompile(`^(?:([-*+•]|\d{1,3}[.)])[ \t]+)?(?:\*\*|__|` + "`" + `)?(` + reqIDPattern + `)(?:\*\*|__|` + "`" + `)?([ \t]*[:.)–—-]?)(?:\*\*|__)?[ \t]+(\S.*)$`)

// A heading that carries an identifier: "### FR-5 Order history".
var idHeadingRE = regexp.MustCompile(`^#{1,6}[ \t]+(?:\*\*)?(` + reqIDPattern + `)\b`)

var fullIDRE = regexp.MustCompile(`^(?:\*\*)?(` + reqIDPattern + `)(?:\*\*)?$`)

// A user story, and the lines of an acceptance scenario.
var storyRE = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\*\*)?As an? [^,]{2,80},?\s+I (?:want|need|would like|can)\b`)

var givenRE = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\*\*)?Given\b`)

var scenarioRE = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\*\*)?(?:When|Then|And|But)\b`)

var thenRE = regexp.MustCompile(`\b[Tt]hen\b`)

var sectionWordsRE = regexp.MustCompile(`(?i)\b(?:requirements?|constraints?|stories|acceptance criteria|features|backlog|epics?)\b`)

var describeWordsRE = regexp.MustCompile(`(?i)\b(?:introduction|purpose|scope|overview|background|perspective|description|definitions?|acronyms|abbreviations|glossary|terminology|references|conventions|audience|characteristics|assumptions|dependencies|questions|revision|history|appendix|about)\b`)

var srsHeadingRE = regexp.MustCompile(`(?i)\b(?:functional|non-?functional|specific|software|quality) requirements\b|\buser stories\b|\bsystem features\b`)

var docNameRE = regexp.MustCompile(`(?i)\brequirements?\s+(?:specification|document|definition)\b`)

var overviewHeadRE = regexp.MustCompile(`(?i)\b(?:introduction|purpose|scope|overview)\b`)

// sectionKind is what a section's heading says of its text.
func sectionKind(title string) blockKind {
	switch {
	case docNameRE.MatchString(title):
		return neutral // the title of the whole document
	case sectionWordsRE.MatchString(title):
		return normative
	case describeWordsRE.MatchString(title):
		return informative
	}
	return neutral
}

// specSignals counts what tells a specification or a numbered list from
// its layout, in the profile's text.
type specSignals struct {
	ids, stories, srsHeads, overviewHeads, discussions, numbered int
}

func countSpecSignals(text string) specSignals {
	var s specSignals
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if m := idItemRE.FindStringSubmatch(l); m != nil && (m[1] != "" || strings.TrimSpace(m[3]) != "" || strings.HasPrefix(l, "**")) && lowerWord.MatchString(m[4]) {
			s.ids++
		} else if idHeadingRE.MatchString(l) {
			s.ids++
		} else if tableLineRE.MatchString(l) {
			if cells := rowCells(l); len(cells) > 1 && fullIDRE.MatchString(cells[0].text) {
				s.ids++
			}
		}
		if storyRE.MatchString(l) {
			s.stories++
		}
		if _, title, ok := heading(l); ok {
			if srsHeadingRE.MatchString(title) {
				s.srsHeads++
			}
			if overviewHeadRE.MatchString(title) {
				s.overviewHeads++
			}
		}
		if discussionLabel(l) {
			s.discussions++
		}
		if m := clauseItemRE.FindString(l); m != "" && len(strings.Fields(l)) >= 4 && lowerWord.MatchString(l) {
			s.numbered++
		}
	}
	return s
}

// specSectionKinds tells, for an offset of a chunk of a specification,
// the kind of the section that holds it: the nearest heading above it
// (the chunk's own heading path first) that names requirements or a
// description.
func specSectionKinds(text, chunkHeading string) func(int) blockKind {
	type head struct {
		level int
		kind  blockKind
	}
	var stack []head
	for i, h := range strings.Split(chunkHeading, document.SectionSeparator) {
		if h = strings.TrimSpace(h); h != "" {
			stack = append(stack, head{i + 1, sectionKind(h)})
		}
	}
	kindNow := func() blockKind {
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i].kind != neutral {
				return stack[i].kind
			}
		}
		return neutral
	}
	type sect struct {
		from int
		kind blockKind
	}
	sects := []sect{{0, kindNow()}}
	for _, l := range chunkLines(text) {
		level, title, ok := heading(l.text)
		if !ok || idItemRE.MatchString(l.text) {
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, head{level, sectionKind(title)})
		sects = append(sects, sect{l.at, kindNow()})
	}
	return func(off int) blockKind {
		k := neutral
		for _, s := range sects {
			if s.from <= off {
				k = s.kind
			}
		}
		return k
	}
}

// specItems reads a chunk of a specification: the items with a
// requirement identifier (list items, table rows, the text under a
// heading with one), user stories and acceptance scenarios, and the
// sentences, by the kind of section that holds them.
func specItems(text, chunkHeading string, p profile) []found {
	r := &specReader{text: text, lines: chunkLines(text), kindOf: specSectionKinds(text, chunkHeading)}
	for i := 0; i < len(r.lines); i++ {
		l := r.lines[i]
		if l.text == "" {
			continue
		}
		idm := idItemRE.FindStringSubmatchIndex(l.text)
		if _, _, ok := heading(l.text); ok && idm == nil {
			r.headingLine(l)
			continue
		}
		switch {
		case tableLineRE.MatchString(l.text):
			r.tableRow(i)
		case idm != nil:
			i = r.idItem(i, idm)
		case storyRE.MatchString(l.text) || givenRE.MatchString(l.text):
			i = r.storyOrScenario(i)
		case fullIDRE.MatchString(l.text) && i+1 < len(r.lines) && r.lines[i+1].text != "":
			i = r.idCell(i)
		case r.pendingID != "" && labelRE.FindString(l.text) == "":
			i = r.underHeading(i)
		}
	}
	r.headingStatement()
	return append(r.out, otherSentences(text, r.skip, p, r.kindOf)...)
}

// specReader is specItems' reading of a chunk's lines. Each kind of item
// takes its lines from i on and returns the index of its last line.
type specReader struct {
	text   string
	lines  []chunkLine
	kindOf func(int) blockKind
	out    []found
	// skip are the lines the items took, which leaves them out of the
	// sentences read after.
	skip         []span
	pendingID    string // of a heading, for the paragraph under it
	pendingTitle span   // the title after that identifier
}

func (r *specReader) add(id string, from, to int, cue, note string) {
	s := sentence{text: strings.TrimSpace(r.text[from:to]), start: from}
	q := requirement.Clean(s.text)
	if len(strings.Fields(q)) < 2 || !lowerWord.MatchString(q) || retiredRowRE.MatchString(q) {
		return
	}
	r.out = append(r.out, found{s: s, quote: q, text: q, id: id, f: shapeFinding(q, cue, note)})
}

// itemEnd is the last line of the item that holds line j: the line
// before a blank line, a heading, the next list item, table row, story
// or scenario, or a line cont refuses.
func (r *specReader) itemEnd(j int, cont func(string) bool) int {
	for j+1 < len(r.lines) {
		n := r.lines[j+1].text
		if _, _, h := heading(n); n == "" || h || tableLineRE.MatchString(n) || document.ListMarkerLen(n) > 0 || !cont(n) {
			break
		}
		j++
	}
	return j
}

// headingStatement adds the title of the pending heading with an
// identifier: with no text under it, it states the requirement itself.
func (r *specReader) headingStatement() {
	if r.pendingID != "" && r.pendingTitle.to > r.pendingTitle.from {
		r.add(r.pendingID, r.pendingTitle.from, r.pendingTitle.to, "a heading with a requirement identifier", "a heading with its own requirement identifier, a requirement whatever its wording")
	}
}

// headingLine takes a heading without a list item's identifier: it ends
// the section before and keeps this heading's identifier, if any, for
// the paragraph under it.
func (r *specReader) headingLine(l chunkLine) {
	r.headingStatement()
	r.pendingTitle = span{}
	r.skip = append(r.skip, span{l.from, l.to})
	r.pendingID = ""
	if m := idHeadingRE.FindStringSubmatchIndex(l.text); m != nil {
		r.pendingID = l.text[m[2]:m[3]]
		rest := l.text[m[1]:]
		lead := len(rest) - len(strings.TrimLeft(rest, " \t:.)–—-*_"))
		if t := strings.TrimSpace(rest[lead:]); len(strings.Fields(t)) >= 3 {
			r.pendingTitle = span{l.from + m[1] + lead, l.to}
		}
	}
}

// tableRow takes a table row: its longest cell is a requirement when the
// row starts with an identifier or stands in a requirements section.
func (r *specReader) tableRow(i int) {
	l := r.lines[i]
	r.skip = append(r.skip, span{l.from, l.to})
	cells := rowCells(l.text)
	if tableRuleRE.MatchString(l.text) || len(cells) < 2 || i+1 < len(r.lines) && tableRuleRE.MatchString(r.lines[i+1].text) {
		return // the header or its rule
	}
	id := ""
	if m := fullIDRE.FindStringSubmatch(cells[0].text); m != nil {
		id, cells = m[1], cells[1:]
	} else if r.kindOf(l.from) != normative {
		return
	}
	best := cells[0]
	for _, c := range cells[1:] {
		if len(strings.Fields(c.text)) > len(strings.Fields(best.text)) {
			best = c
		}
	}
	if id == "" && len(strings.Fields(best.text)) < 4 {
		return
	}
	r.add(id, l.from+best.at, l.from+best.at+len(best.text), "a row with a requirement identifier", "a table row with its own requirement identifier, a requirement whatever its wording")
}

// idItem takes a list item or line that starts with an identifier; m is
// its match of idItemRE.
func (r *specReader) idItem(i int, m []int) int {
	l := r.lines[i]
	marker, sep := "", strings.TrimSpace(l.text[m[6]:m[7]])
	if m[2] >= 0 {
		marker = l.text[m[2]:m[3]]
	}
	// An identifier with no list marker, separator or emphasis.
	bare := marker == "" && sep == "" && !strings.HasPrefix(l.text, "**") && !strings.HasPrefix(l.text, "__")
	if bare && !strings.Contains(l.text[m[5]:m[8]], "\t") {
		return i // an identifier in running text needs a separator or a cell's tab
	}
	j := r.itemEnd(i, func(n string) bool { return !idItemRE.MatchString(n) })
	if bare {
		j = i // a row of cells split by tabs is one line
	}
	r.skip = append(r.skip, span{l.from, r.lines[j].to})
	r.add(l.text[m[4]:m[5]], l.from+m[8], r.lines[j].to, "an item with a requirement identifier", "a list item with its own requirement identifier, a requirement whatever its wording")
	r.pendingID = ""
	return j
}

// storyOrScenario takes a user story, or an acceptance scenario
// (Given/When/Then), which is one only with its "then".
func (r *specReader) storyOrScenario(i int) int {
	l := r.lines[i]
	story := storyRE.MatchString(l.text)
	j := i
	if story {
		j = r.itemEnd(i, func(n string) bool { return !givenRE.MatchString(n) })
	} else {
		j = r.itemEnd(i, func(n string) bool { return scenarioRE.MatchString(n) })
	}
	from := l.from + len(l.text) - len(strings.TrimLeft(l.text[document.ListMarkerLen(l.text):], " \t*"))
	whole := r.text[from:r.lines[j].to]
	r.skip = append(r.skip, span{l.from, r.lines[j].to})
	if !story && !thenRE.MatchString(whole) {
		return j
	}
	cue, note := "a user story", "a user story: what a user needs of the system, a requirement"
	if !story {
		cue, note = "an acceptance scenario", "an acceptance scenario (Given/When/Then): a condition the system must meet"
	}
	r.add(r.pendingID, from, r.lines[j].to, cue, note)
	r.pendingID = ""
	return j
}

// idCell takes an identifier in a cell of its own, the statement in the
// next (tables of word processors, one cell a line).
func (r *specReader) idCell(i int) int {
	l, next := r.lines[i], r.lines[i+1]
	if _, _, h := heading(next.text); h || fullIDRE.MatchString(next.text) {
		return i
	}
	j := r.itemEnd(i+1, func(n string) bool { return !fullIDRE.MatchString(n) })
	r.skip = append(r.skip, span{l.from, r.lines[j].to})
	r.add(fullIDRE.FindStringSubmatch(l.text)[1], next.from, r.lines[j].to, "an item with a requirement identifier", "a table row with its own requirement identifier, a requirement whatever its wording")
	r.pendingID = ""
	return j
}

// underHeading takes the paragraph under a heading with an identifier.
func (r *specReader) underHeading(i int) int {
	l := r.lines[i]
	j := r.itemEnd(i, func(string) bool { return true })
	r.skip = append(r.skip, span{l.from, r.lines[j].to})
	r.add(r.pendingID, l.from+document.ListMarkerLen(l.text), r.lines[j].to, "a section with a requirement identifier", "the text under a heading with its own requirement identifier, a requirement whatever its wording")
	r.pendingID = ""
	return j
}
