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
	lines := chunkLines(text)
	var out []found
	var skip []span
	kindOf := specSectionKinds(text, chunkHeading)
	add := func(id string, from, to int, cue, note string) {
		s := sentence{text: strings.TrimSpace(text[from:to]), start: from}
		q := requirement.Clean(s.text)
		if len(strings.Fields(q)) < 2 || !lowerWord.MatchString(q) || retiredRowRE.MatchString(q) {
			return
		}
		out = append(out, found{s: s, quote: q, text: q, id: id, f: shapeFinding(q, cue, note)})
	}
	// the end of an item: the line before a blank line, a heading, the
	// next list item, table row, story or scenario.
	end := func(j int, cont func(string) bool) int {
		for j+1 < len(lines) {
			n := lines[j+1].text
			if _, _, h := heading(n); n == "" || h || tableLineRE.MatchString(n) || document.ListMarkerLen(n) > 0 || !cont(n) {
				break
			}
			j++
		}
		return j
	}
	always := func(string) bool { return true }
	pendingID := ""       // of a heading, for the paragraph under it
	var pendingTitle span // the title after that identifier
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l.text == "" {
			continue
		}
		idm := idItemRE.FindStringSubmatchIndex(l.text)
		if _, _, ok := heading(l.text); ok && idm == nil {
			if pendingID != "" && pendingTitle.to > pendingTitle.from {
				// A heading with an identifier and no text under it
				// states the requirement itself.
				add(pendingID, pendingTitle.from, pendingTitle.to, "a heading with a requirement identifier", "a heading with its own requirement identifier, a requirement whatever its wording")
			}
			pendingTitle = span{}
			skip = append(skip, span{l.from, l.to})
			pendingID = ""
			if m := idHeadingRE.FindStringSubmatchIndex(l.text); m != nil {
				pendingID = l.text[m[2]:m[3]]
				rest := l.text[m[1]:]
				lead := len(rest) - len(strings.TrimLeft(rest, " \t:.)–—-*_"))
				if t := strings.TrimSpace(rest[lead:]); len(strings.Fields(t)) >= 3 {
					pendingTitle = span{l.from + m[1] + lead, l.to}
				}
			}
			continue
		}
		switch {
		case tableLineRE.MatchString(l.text):
			skip = append(skip, span{l.from, l.to})
			cells := rowCells(l.text)
			if tableRuleRE.MatchString(l.text) || len(cells) < 2 || i+1 < len(lines) && tableRuleRE.MatchString(lines[i+1].text) {
				continue // the header or its rule
			}
			id := ""
			if m := fullIDRE.FindStringSubmatch(cells[0].text); m != nil {
				id, cells = m[1], cells[1:]
			} else if kindOf(l.from) != normative {
				continue
			}
			best := cells[0]
			for _, c := range cells[1:] {
				if len(strings.Fields(c.text)) > len(strings.Fields(best.text)) {
					best = c
				}
			}
			if id == "" && len(strings.Fields(best.text)) < 4 {
				continue
			}
			add(id, l.from+best.at, l.from+best.at+len(best.text), "a row with a requirement identifier", "a table row with its own requirement identifier, a requirement whatever its wording")
		case idm != nil:
			m := idm
			marker, sep := "", strings.TrimSpace(l.text[m[6]:m[7]])
			if m[2] >= 0 {
				marker = l.text[m[2]:m[3]]
			}
			// An identifier with no list marker, separator or emphasis.
			bare := marker == "" && sep == "" && !strings.HasPrefix(l.text, "**") && !strings.HasPrefix(l.text, "__")
			if bare && !strings.Contains(l.text[m[5]:m[8]], "\t") {
				continue // an identifier in running text needs a separator or a cell's tab
			}
			j := end(i, func(n string) bool { return !idItemRE.MatchString(n) })
			if bare {
				j = i // a row of cells split by tabs is one line
			}
			skip = append(skip, span{l.from, lines[j].to})
			add(l.text[m[4]:m[5]], l.from+m[8], lines[j].to, "an item with a requirement identifier", "a list item with its own requirement identifier, a requirement whatever its wording")
			i = j
			pendingID = ""
		case storyRE.MatchString(l.text) || givenRE.MatchString(l.text):
			story := storyRE.MatchString(l.text)
			j := i
			if story {
				j = end(i, func(n string) bool { return !givenRE.MatchString(n) })
			} else {
				j = end(i, func(n string) bool { return scenarioRE.MatchString(n) })
			}
			from := l.from + len(l.text) - len(strings.TrimLeft(l.text[document.ListMarkerLen(l.text):], " \t*"))
			whole := text[from:lines[j].to]
			skip = append(skip, span{l.from, lines[j].to})
			i = j
			if !story && !thenRE.MatchString(whole) {
				continue
			}
			cue, note := "a user story", "a user story: what a user needs of the system, a requirement"
			if !story {
				cue, note = "an acceptance scenario", "an acceptance scenario (Given/When/Then): a condition the system must meet"
			}
			add(pendingID, from, lines[j].to, cue, note)
			pendingID = ""
		case fullIDRE.MatchString(l.text) && i+1 < len(lines) && lines[i+1].text != "":
			// An identifier in a cell of its own, the statement in the
			// next (tables of word processors, one cell a line).
			if _, _, h := heading(lines[i+1].text); h || fullIDRE.MatchString(lines[i+1].text) {
				continue
			}
			j := end(i+1, func(n string) bool { return !fullIDRE.MatchString(n) })
			skip = append(skip, span{l.from, lines[j].to})
			add(fullIDRE.FindStringSubmatch(l.text)[1], lines[i+1].from, lines[j].to, "an item with a requirement identifier", "a table row with its own requirement identifier, a requirement whatever its wording")
			i = j
			pendingID = ""
		case pendingID != "" && labelRE.FindString(l.text) == "":
			// The paragraph under a heading with an identifier.
			j := end(i, always)
			skip = append(skip, span{l.from, lines[j].to})
			add(pendingID, l.from+document.ListMarkerLen(l.text), lines[j].to, "a section with a requirement identifier", "the text under a heading with its own requirement identifier, a requirement whatever its wording")
			i = j
			pendingID = ""
		}
	}
	if pendingID != "" && pendingTitle.to > pendingTitle.from {
		add(pendingID, pendingTitle.from, pendingTitle.to, "a heading with a requirement identifier", "a heading with its own requirement identifier, a requirement whatever its wording")
	}
	out = append(out, otherSentences(text, skip, p, kindOf)...)
	return out
}
