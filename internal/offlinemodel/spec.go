package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Two more shapes, told from the layout alone (never from a document's
// name, title or wording unique to it):
//
//   - numbered lists of imperatives with discussion blocks (security
//     baselines, control lists): "3.1.1 Restrict remote access to approved
//     devices." then a "DISCUSSION" paragraph, then the next item. Every
//     numbered item that states something is a requirement, whatever its
//     verb; a numbered line that is a title (no full stop, no imperative)
//     is none; discussion text is context;
//   - specifications (software requirements specifications, backlogs):
//     sections of requirements ("Functional requirements", "Constraints",
//     "User stories") beside sections that describe ("Introduction",
//     "Scope", "Overall description"); items that carry a requirement
//     identifier ("FR-1.1:", "NFR-3", "REQ-012") in a list, a table row or
//     a heading; user stories ("As a …, I want …") and their acceptance
//     criteria (Given/When/Then, or bullets). Inside a requirements section
//     every statement is a requirement, with or without a modal verb
//     ("Users can export reports as PDF."); in a descriptive section "will"
//     foretells ("The system will be used by …").
const (
	shapeNumbered = "numbered-list"
	shapeSpec     = "specification"
)

var (
	// A requirement identifier: letters, a hyphen, a number ("FR-1.1",
	// "NFR-3", "REQ-012", "SEC-04", "SR-AC-2").
	reqIDPattern = `[A-Z][A-Z0-9]{0,5}(?:-[A-Z]{1,4})?-\d{1,4}(?:\.\d{1,3}){0,3}[a-z]?`
	// A list item or line that starts with an identifier: "- **FR-1.1:**
	// Filter by size", "FR-2: …", "1. REQ-012 – …". Without a list marker
	// the identifier needs a separator or emphasis after it.
	idItemRE = regexp.MustCompile(`^(?:([-*+•]|\d{1,3}[.)])[ \t]+)?(?:\*\*|__|` + "`" + `)?(` + reqIDPattern + `)(?:\*\*|__|` + "`" + `)?([ \t]*[:.)–—-]?)(?:\*\*|__)?[ \t]+(\S.*)$`)
	// A heading that carries an identifier: "### FR-5 Order history".
	idHeadingRE = regexp.MustCompile(`^#{1,6}[ \t]+(?:\*\*)?(` + reqIDPattern + `)\b`)
	// A Markdown table row, and the row under a table's header.
	tableLineRE = regexp.MustCompile(`^\|.*\|$`)
	tableRuleRE = regexp.MustCompile(`^\|[\s:|-]+\|$`)
	fullIDRE    = regexp.MustCompile(`^(?:\*\*)?(` + reqIDPattern + `)(?:\*\*)?$`)
	// A user story, and the lines of an acceptance scenario.
	storyRE    = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\*\*)?As an? [^,]{2,80},?\s+I (?:want|need|would like|can)\b`)
	givenRE    = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\*\*)?Given\b`)
	scenarioRE = regexp.MustCompile(`^(?:[-*+]\s+)?(?:\*\*)?(?:When|Then|And|But)\b`)
	thenRE     = regexp.MustCompile(`\b[Tt]hen\b`)
	// Headings: Markdown, or a numbered title on a line of its own.
	mdHeadingRE      = regexp.MustCompile(`^(#{1,6})[ \t]+(.+)$`)
	numberedHeadRE   = regexp.MustCompile(`^(\d{1,2}(?:\.\d{1,2}){0,3})\.?[ \t]+(\p{Lu}[^.;:!?,]*)$`)
	sectionWordsRE   = regexp.MustCompile(`(?i)\b(?:requirements?|constraints?|stories|acceptance criteria|features|backlog|epics?)\b`)
	describeWordsRE  = regexp.MustCompile(`(?i)\b(?:introduction|purpose|scope|overview|background|perspective|description|definitions?|acronyms|abbreviations|glossary|terminology|references|conventions|audience|characteristics|assumptions|dependencies|questions|revision|history|appendix|about)\b`)
	srsHeadingRE     = regexp.MustCompile(`(?i)\b(?:functional|non-?functional|specific|software|quality) requirements\b|\buser stories\b|\bsystem features\b`)
	docNameRE        = regexp.MustCompile(`(?i)\brequirements?\s+(?:specification|document|definition)\b`)
	overviewHeadRE   = regexp.MustCompile(`(?i)\b(?:introduction|purpose|scope|overview)\b`)
	terminalRE       = regexp.MustCompile(`[.;!)"”]$`)
	discussionWordRE = regexp.MustCompile(`(?i)^discussion\b`)
)

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

// discussionLabel is a "DISCUSSION" line, or a "Discussion:" label.
func discussionLabel(line string) bool {
	if m := labelRE.FindStringSubmatch(line); m != nil {
		return discussionWordRE.MatchString(m[1])
	}
	return labelLineRE.MatchString(line) && discussionWordRE.MatchString(line) && len(strings.Fields(line)) <= 2
}

// specShape is the shape these signals make, or "".
func (s specSignals) shape() string {
	switch {
	case s.discussions >= 2 && s.numbered >= 3:
		return shapeNumbered
	case s.ids >= 3, s.stories >= 2, s.srsHeads >= 1 && s.overviewHeads >= 1:
		return shapeSpec
	}
	return ""
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

// numberedItems reads a chunk of a numbered list with discussion blocks:
// each numbered item up to a blank line, a label, a heading or the next
// item; discussion up to the next item or heading is left out; the rest
// is read by its cues.
func numberedItems(text string, p profile) []found {
	var out, items []found
	var skip []span
	lines := chunkLines(text)
	var cur []chunkLine
	discussion := -1 // where the discussion being read starts
	flush := func() {
		if len(cur) == 0 {
			return
		}
		first := cur[0]
		m := itemMarkerRE.FindString(first.text)
		s := sentence{text: text[first.from+len(m) : cur[len(cur)-1].to], start: first.from + len(m)}
		skip = append(skip, span{first.from, cur[len(cur)-1].to})
		cur = nil
		q := requirement.Clean(s.text)
		if len(strings.Fields(q)) < 3 || !lowerWord.MatchString(q) || leaderDots.MatchString(q) || strings.HasSuffix(q, ":") || retiredRowRE.MatchString(q) {
			return
		}
		if !terminalRE.MatchString(q) && !imperativeRE.MatchString(q) {
			return // a numbered title
		}
		items = append(items, found{s: s, quote: q, text: q, id: strings.TrimSuffix(strings.TrimSpace(m), "."),
			f: shapeFinding(q, "a numbered item", "an item of a numbered list of measures, an obligation whatever its verb")})
	}
	endDiscussion := func(at int) {
		if discussion >= 0 {
			skip = append(skip, span{discussion, at})
			discussion = -1
		}
	}
	for _, l := range lines {
		if _, marker := document.ParsePageMarker(l.text); marker {
			continue
		}
		_, _, isHeading := heading(l.text)
		switch {
		case clauseItemRE.MatchString(l.text):
			flush()
			endDiscussion(l.at)
			cur = []chunkLine{l}
		case discussionLabel(l.text):
			flush()
			endDiscussion(l.at)
			discussion = l.at
		case isHeading:
			flush()
			endDiscussion(l.at)
			skip = append(skip, span{l.from, l.to})
		case l.text == "" || labelRE.MatchString(l.text):
			flush()
			if discussion >= 0 && labelRE.MatchString(l.text) {
				endDiscussion(l.at)
			}
		case len(cur) > 0:
			cur = append(cur, l)
		}
	}
	flush()
	endDiscussion(len(text))
	out = append(out, items...)
	out = append(out, otherSentences(text, skip, p, nil)...)
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
	for _, sp := range document.Sentences(m, document.SentenceOptions{ListsEnd: true, NumbersEnd: true}) {
		raw := m[sp.Start:sp.End]
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		whole := sentence{text: t, start: sp.Start + len(raw) - len(strings.TrimLeft(raw, " \t\n"))}
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
