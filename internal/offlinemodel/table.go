package offlinemodel

import (
	"fmt"
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Requirement tables (ID | Requirement | Priority | Owner) state one
// requirement a row. Text extraction renders every format's tables as
// table lines, one a row, cells between bars, a rule line under a header
// (document/table.go). The roles of a table's columns are told from its
// header and its cells together:
//
//   - the text column: the one whose header names a statement
//     ("Requirement", "Description") and whose cells are sentences, else
//     the column with the longest cells, when they read as sentences;
//   - the id column: a column before the text whose header names an
//     identifier ("ID", "#", "Ref") and whose cells are short, or whose
//     cells are nearly all distinct identifiers ("FR-1", "1.2.3", "C.4")
//     under a header that names no other thing (a version, a level);
//   - every other column is an attribute, named by its header.
//
// A table with a text column is a requirements table unless it is a
// glossary, a list of abbreviations or a history (by its headers, or a
// column of dates). Each row whose text states a duty (a normative cue,
// an imperative, a capability, a verification statement, or a statement
// in a requirements section) is a requirement: its id cell the source_id,
// its other cells attributes, its text cell the quote, verbatim; in a
// table without an id column whose text column is not named for
// requirements, only a normative cue makes a row one. Other tables (a
// table of names and values, of short cells) state none.

var (
	// An identifier cell: "FR-1.1", "REQ-012", "1.2.3", "V1.2.3", "C.4",
	// "7", "A1".
	idCellRE = regexp.MustCompile(`^(?:\*\*|__)?(?:` + reqIDPattern + `|(?:[A-Z]{1,3}[-.]?)?\d{1,3}(?:\.\d{1,3}){0,4}[a-z]?|[A-Z]{1,2}\.\d{1,3}(?:\.\d{1,3}){0,3})\.?(?:\*\*|__)?$`)
	// Header names of the columns.
	idHeaderRE   = regexp.MustCompile(`(?i)^(?:#|id|ids|no\.?|nr\.?|num(?:ber)?|ref(?:erence)?|key|identifier|req(?:uirement)?\.?[ _-]?(?:id|no\.?|#)|control[ ._-]?(?:id|no\.?)|item|lfd\.? ?nr\.?|kennung)$`)
	textHeaderRE = regexp.MustCompile(`(?i)\b(?:requirements?|description|statement|text|shall|control|obligation|rule|criteri(?:on|a)|condition|measure|anforderung(?:en)?|beschreibung|maßnahme)\b`)
	reqHeaderRE  = regexp.MustCompile(`(?i)\b(?:requirements?|statement|shall|obligation|anforderung(?:en)?)\b`)
	// Headers of tables that state no requirements: glossaries, lists of
	// abbreviations, histories.
	notRequirementsHeaderRE = regexp.MustCompile(`(?i)\b(?:terms?|definitions?|meaning|abbreviations?|acronyms?|glossary|changes?|history|begriffe?|bedeutung|erklärung|abkürzung(?:en)?|änderung(?:en)?)\b`)
	// A column of user stories, and the columns that state requirements
	// of their own beside the text: a story's acceptance criteria, its
	// definition of done.
	storyHeaderRE    = regexp.MustCompile(`(?i)\b(?:user )?stor(?:y|ies)\b`)
	criteriaHeaderRE = regexp.MustCompile(`(?i)\bacceptance\b|\bcriteri(?:on|a)\b|\bdefinition of done\b|^dod$|\bconditions? of satisfaction\b`)
	// Columns that are never an id: versions, dates, levels.
	notIDHeaderRE = regexp.MustCompile(`(?i)\b(?:version|rev(?:ision)?|date|datum|level|priority|severity|status|page|seite|stufe|edition|release)\b`)
	// A date cell: a revision history or a log. A date of day and month
	// has a year of four digits: "1.3.12" is a clause number.
	dateCellRE = regexp.MustCompile(`^\d{4}-\d{2}(?:-\d{2})?$|^\d{1,2}[./-]\d{1,2}[./-]\d{4}$|^(?:\d{1,2}\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{4}$`)
	// A row that refers elsewhere or notes something: no duty of its own.
	referenceRowRE = regexp.MustCompile(`(?i)^(?:see|refer to|cf\.|siehe|note:|hinweis:|n/a\b|tbd\b|reserved\b)`)
	// An imperative at the start of a row's text: a word in the base form
	// before a determiner ("Encrypt all backups", "Rotate the keys"). The
	// words that cannot be such a verb are in notImperativeWord.
	imperativeLeadRE = regexp.MustCompile(`^(\p{Lu}\p{Ll}+)\s+(?:all|the|a|an|each|every|any|only|no|its|their|your|our|this|these|those|both|at least|at most)\b`)
	// Verbs that start requirement rows beyond those of imperativeRE,
	// whatever follows them ("Shred printed data after use").
	rowVerbRE = regexp.MustCompile(`(?i)^(?:apply|approve|assign|assess|block|classify|clear|close|confirm|define|deploy|destroy|dispose|erase|escalate|grant|hash|install|isolate|label|mask|patch|purge|register|renew|replace|reset|respond|rotate|sanitize|sanitise|scan|separate|set|shred|test|train|transmit|upgrade|wipe)\b`)
)

// notImperativeWord are the words that start a row without being an
// imperative: determiners, pronouns, prepositions, conjunctions.
var notImperativeWord = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the all any each every no some this that these those it its they their we our you your he she his her there here
		what which who whom whose where when why how if unless whether although though because while as once so then thus also only both either neither not
		about above across after against along among around at before behind below beneath beside between beyond by despite down during except for from
		in inside into like near of off on onto out outside over past since through throughout to toward towards under until up upon with within without per via`) {
		notImperativeWord[w] = true
	}
}

// imperativeLead reports whether a row's text starts with an imperative:
// a verb of rowVerbRE, or a word in its base form followed by its object
// ("Encrypt all backups", not "Backups of the …").
func imperativeLead(q string) bool {
	if rowVerbRE.MatchString(q) {
		return true
	}
	m := imperativeLeadRE.FindStringSubmatch(q)
	if m == nil {
		return false
	}
	w := strings.ToLower(m[1])
	if notImperativeWord[w] {
		return false
	}
	// A third-person verb, a participle or an adverb is no imperative
	// ("Stores all …", "Encrypted the …"); "Process", "Access" are.
	return !(strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss")) && !strings.HasSuffix(w, "ed") &&
		!strings.HasSuffix(w, "ing") && !strings.HasSuffix(w, "ly")
}

// tableRow is a row of a table in a chunk: its line and its cells.
type tableRow struct {
	line   chunkLine
	cells  []cell
	broken bool // a page break stands between it and the row before
}

// pipeTable is a table in a chunk: its header's names (empty when it has
// none), its rows and the span of its lines.
type pipeTable struct {
	header []string
	rows   []tableRow
	span   span
}

// rowCells splits a table line into its cells; a bar written "\|" stays
// in its cell.
func rowCells(line string) []cell {
	var out []cell
	start := -1
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			i++
		case line[i] == '|':
			if start >= 0 {
				raw := line[start:i]
				t := strings.TrimSpace(raw)
				out = append(out, cell{text: t, at: start + strings.Index(raw, t)})
			}
			start = i + 1
		}
	}
	return out
}

// pipeTables finds the tables of a chunk: runs of table lines, which go
// on over a page marker. A table's first line is its header when a rule
// line follows it, or when it reads as names over rows of longer text.
func pipeTables(text string) []pipeTable {
	var out []pipeTable
	var cur *pipeTable
	var lines []chunkLine
	var breaks []bool // a page break before the line
	pending := false
	flush := func() {
		if cur == nil {
			return
		}
		t := cur
		cur = nil
		var rows []tableRow
		hasRule := false
		broken := false
		for i, l := range lines {
			broken = broken || breaks[i]
			if document.IsTableRule(l.text) {
				if i == 1 {
					hasRule = true
				}
				continue
			}
			rows = append(rows, tableRow{line: l, cells: rowCells(l.text), broken: broken})
			broken = false
		}
		lines, breaks = nil, nil
		if len(rows) == 0 {
			return
		}
		if hasRule || len(rows) > 1 && namesOver(rows[0], rows[1:]) {
			for _, c := range rows[0].cells {
				t.header = append(t.header, c.text)
			}
			rows = rows[1:]
		}
		t.rows = rows
		out = append(out, *t)
	}
	for _, l := range chunkLines(text) {
		if _, marker := document.ParsePageMarker(l.text); marker && cur != nil {
			pending = true
			continue
		}
		if !tableLineRE.MatchString(l.text) {
			flush()
			pending = false
			continue
		}
		if cur == nil {
			cur = &pipeTable{span: span{l.from, l.to}}
		}
		cur.span.to = l.to
		lines = append(lines, l)
		breaks = append(breaks, pending)
		pending = false
	}
	flush()
	return out
}

// namesOver reports whether a first row is a header: short names, none a
// sentence, over rows whose longest cell is longer.
func namesOver(first tableRow, rest []tableRow) bool {
	longest := 0
	for _, r := range rest {
		for _, c := range r.cells {
			longest = max(longest, len(strings.Fields(c.text)))
		}
	}
	for _, c := range first.cells {
		n := len(strings.Fields(c.text))
		if n > 4 || n >= longest || strings.HasSuffix(c.text, ".") || idCellRE.MatchString(c.text) {
			return false
		}
	}
	return true
}

// columnRoles finds a table's text column and id column (-1: none), or
// ok false when the table is no requirements table.
func (t pipeTable) columnRoles() (textCol, idCol int, ok bool) {
	width := 0
	for _, r := range t.rows {
		width = max(width, len(r.cells))
	}
	name := func(j int) string {
		if j < len(t.header) {
			return t.header[j]
		}
		return ""
	}
	type stats struct {
		filled, words, ids, dates, sentences int
		distinct                             map[string]bool
	}
	cols := make([]stats, width)
	for j := range cols {
		cols[j].distinct = map[string]bool{}
	}
	for _, r := range t.rows {
		for j, c := range r.cells {
			if c.text == "" {
				continue
			}
			s := &cols[j]
			s.filled++
			s.words += len(strings.Fields(c.text))
			s.distinct[c.text] = true
			if idCellRE.MatchString(c.text) {
				s.ids++
			}
			if dateCellRE.MatchString(strings.ToLower(c.text)) {
				s.dates++
			}
			if len(strings.Fields(c.text)) >= 3 && lowerWord.MatchString(c.text) {
				s.sentences++
			}
		}
	}
	textCol, idCol = -1, -1
	avg := func(j int) float64 { return float64(cols[j].words) / float64(max(cols[j].filled, 1)) }
	for j, s := range cols {
		if s.filled == 0 {
			continue
		}
		if 2*s.dates >= s.filled {
			return -1, -1, false // a revision history or a log
		}
		if 2*s.sentences < s.filled {
			continue
		}
		named := textHeaderRE.MatchString(name(j))
		switch {
		case textCol < 0, named && !textHeaderRE.MatchString(name(textCol)),
			named == textHeaderRE.MatchString(name(textCol)) && avg(j) > avg(textCol):
			textCol = j
		}
	}
	if textCol < 0 {
		return -1, -1, false
	}
	// A column of user stories is the text; its criteria stand beside it.
	for j := range cols {
		if storyHeaderRE.MatchString(name(j)) && 2*cols[j].sentences >= cols[j].filled && cols[j].filled > 0 {
			textCol = j
			break
		}
	}
	for j := 0; j < textCol; j++ {
		s := cols[j]
		if s.filled == 0 || notIDHeaderRE.MatchString(name(j)) || avg(j) > 3 {
			continue
		}
		if idHeaderRE.MatchString(strings.TrimSpace(name(j))) && 2*s.ids >= s.filled ||
			10*s.ids >= 8*s.filled && len(s.distinct) == s.filled && s.filled >= 2 {
			idCol = j
			break
		}
	}
	if idCol < 0 {
		for j := range cols {
			if notRequirementsHeaderRE.MatchString(name(j)) {
				return -1, -1, false // a glossary, a list of abbreviations, a history
			}
		}
	}
	return textCol, idCol, true
}

// name is the header's name of column j, or "".
func (t pipeTable) name(j int) string {
	if j >= 0 && j < len(t.header) {
		return t.header[j]
	}
	return ""
}

// attrName is a header's name as an attribute: lower case, words joined
// by "_" ("Risk Level" → "risk_level"); a column without a header is
// "column_N".
func attrName(header string, j int) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(header), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && r != '–' && r != '—')
	}) {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(w)
	}
	if b.Len() == 0 {
		return fmt.Sprintf("column_%d", j+1)
	}
	return b.String()
}

// tableFindings are the requirements of the requirements tables of a
// chunk, and the spans of all its tables (requirements tables first, as
// tables); normativeAt, when given, tells whether an offset stands in a
// requirements section, where a row's statement is a requirement whatever
// its verb.
func tableFindings(text string, normativeAt func(int) bool) (out []found, reqTables, others []span) {
	for _, t := range pipeTables(text) {
		textCol, idCol, ok := t.columnRoles()
		if !ok {
			others = append(others, t.span)
			continue
		}
		reqTables = append(reqTables, t.span)
		criteria := t.criteriaColumns(textCol, idCol)
		last := -1      // the row before in out, when it was kept
		broken := false // a page break since that row
		for _, r := range t.rows {
			broken = broken || r.broken
			if textCol >= len(r.cells) || sameCells(r, t.header) {
				continue // a header repeated on the new page
			}
			tc := r.cells[textCol]
			wasBroken := broken
			broken = false
			if wasBroken && idCol >= 0 && (idCol >= len(r.cells) || r.cells[idCol].text == "") {
				// The rest of the row before, on the next page: its text
				// goes on, quoted in its own part.
				if last >= 0 && tc.text != "" {
					out[last].more = append(out[last].more, requirement.Clean(tc.text))
					out[last].text += " " + requirement.Clean(tc.text)
				}
				continue
			}
			last = -1
			q := requirement.Clean(tc.text)
			if len(strings.Fields(q)) < 3 || !lowerWord.MatchString(q) || retiredRowRE.MatchString(q) || referenceRowRE.MatchString(q) ||
				strings.HasSuffix(q, "?") || strings.HasSuffix(q, ":") {
				continue
			}
			f, ok := classify(q, false)
			switch {
			case ok:
			case idCol < 0 && !reqHeaderRE.MatchString(t.name(textCol)):
				continue // a table of other things: only a cue makes a row a duty
			case verifyVerbRE.MatchString(q) || rowStatesDuty(q) || imperativeLead(q):
				f = finding{kind: "obligation", cue: "a row of a requirements table", confidence: 0.75, strong: true,
					note: "a row of a requirements table that states what is to be done, an obligation whatever its verb"}
			case normativeAt != nil && normativeAt(r.line.from) && statement(q):
				f = finding{kind: "obligation", cue: "a row of a requirements table in a requirements section", confidence: 0.7,
					note: "a statement in a requirements table under a requirements heading, an obligation whatever its verb"}
			default:
				continue // no duty: a description, a title
			}
			x := found{s: sentence{text: tc.text, start: r.line.from + tc.at}, quote: q, text: q, f: f, attrs: map[string]string{}, fromTable: true}
			for j, c := range r.cells {
				switch {
				case j == textCol || c.text == "" || criteria[j]:
				case j == idCol:
					x.id = strings.Trim(strings.TrimSuffix(c.text, "."), "*_")
				default:
					name := ""
					if j < len(t.header) {
						name = t.header[j]
					}
					x.attrs[attrName(name, j)] = c.text
				}
			}
			// An index, not a pointer: the criteria appended next may
			// move out.
			last = len(out)
			out = append(out, x)
			for j, c := range r.cells {
				if !criteria[j] || !statement(c.text) {
					continue
				}
				cq := requirement.Clean(c.text)
				cf, ok := classify(cq, false)
				if !ok {
					cf = finding{kind: "obligation", cue: "a story's " + strings.ToLower(t.name(j)), confidence: 0.75, strong: true,
						note: "a condition a user story must meet (" + t.name(j) + "), a requirement whatever its verb"}
				}
				out = append(out, found{s: sentence{text: c.text, start: r.line.from + c.at}, quote: cq, text: cq, f: cf, id: x.id, fromTable: true})
			}
		}
	}
	return out, reqTables, others
}

// criteriaColumns are the columns of a table that state requirements of
// their own beside its text column: acceptance criteria, a definition of
// done.
func (t pipeTable) criteriaColumns(textCol, idCol int) map[int]bool {
	out := map[int]bool{}
	for j := range t.header {
		if j != textCol && j != idCol && criteriaHeaderRE.MatchString(t.header[j]) {
			out[j] = true
		}
	}
	return out
}

// sameCells reports whether a row repeats the header (a header repeated
// on a new page).
func sameCells(r tableRow, header []string) bool {
	if len(header) == 0 || len(header) != len(r.cells) {
		return false
	}
	for j, c := range r.cells {
		if !strings.EqualFold(c.text, header[j]) {
			return false
		}
	}
	return true
}
