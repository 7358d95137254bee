package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Verification tables (security verification standards, audit
// checklists): one row a requirement, with a dotted identifier ("1.2.3",
// "V1.2.3", "C.4") and a statement that often has no modal verb ("Verify
// that …", "Ensure …"), often with level columns ("1 2 3", "✓") that text
// extraction puts into the first line of the statement. The prose around
// the tables is context.
const shapeTable = "verification-table"

var verificationTableShape = shape{
	name:   shapeTable,
	reason: "requirements stand in table rows with dotted identifiers (verification statements); the prose around the tables is context",
	detect: isVerificationTable,
	extract: func(c chunkRead, _ profile) []found {
		rows, rest := requirementTables(c.body, nil, false)
		return append(rows, verificationRows(rest)...)
	},
	layoutStates: true,
}

// isVerificationTable: three rows or more of a dotted identifier and a
// verification statement, in table cells or on lines.
func isVerificationTable(text string) bool {
	rows := 0
	for _, l := range profileLines(text) {
		row := l
		if tableLineRE.MatchString(l) {
			// A table row: its cells, as a row set without bars reads.
			var cells []string
			for _, c := range rowCells(l) {
				cells = append(cells, c.text)
			}
			row = strings.Join(cells, " ")
		}
		if m := verifyRowRE.FindStringSubmatch(row); m != nil && verifyVerbRE.MatchString(m[2]) {
			rows++
		}
	}
	return rows >= 3
}

// A row of a verification table: a dotted identifier, with or without
// a letter prefix, and a statement that starts with a capital.
var verifyRowRE = regexp.MustCompile(`^((?:[A-Z]{1,3}[-.]?)?\d{1,3}(?:\.\d{1,3}){1,4}|[A-Z]{1,2}\.\d{1,3}(?:\.\d{1,3}){0,3})\.?[ \t]+([\p{Lu}\["“'(].*)$`)

// Level columns at the end of a row's first line: "1", "2 3", "L2",
// ticks.
var levelLineRE = regexp.MustCompile(`^(?:[1-3]|L[1-3]|[✓✔●■])(?:[ \t]+(?:[1-3]|L[1-3]|[✓✔●■]))*$`)

var levelTailRE = regexp.MustCompile(`(?:[ \t]+(?:[1-3]|L[1-3]|[✓✔●■]))+[ \t]*$`)

// A sentence end before a page break: the row does not go on.
var sentenceEndRE = regexp.MustCompile(`[.!?:;)"”]$`)

// verificationRows are the rows of a verification table in a chunk. A row
// goes on over its lines and across a page break (the table's header
// repeated on the new page left out) up to a blank line, the next row, a
// label or a heading. The level columns are no part of the requirement:
// its quotes are the statement before them and the statement after them.
func verificationRows(text string) []found {
	var out []found
	type row struct {
		id      string
		start   int    // of the statement
		lines   []span // the statement's lines
		cut     []bool // a line that starts a new run of them
		levels  string // the level columns of its first line
		broken  bool   // a page break since its last line
		header  bool   // a header skipped since its last line
		ownLine bool   // the level columns stood on a line of their own
	}
	var cur *row
	flush := func() {
		if cur == nil {
			return
		}
		r := cur
		cur = nil
		first := text[r.lines[0].from:r.lines[0].to]
		if m := levelTailRE.FindStringIndex(first); m != nil && m[0] > 0 && r.levels == "" {
			r.levels = strings.TrimSpace(first[m[0]:])
			r.lines[0].to = r.lines[0].from + m[0]
		}
		var parts []string
		for _, l := range r.lines {
			parts = append(parts, text[l.from:l.to])
		}
		whole := requirement.Clean(strings.Join(parts, "\n"))
		if len(strings.Fields(whole)) < 4 || !lowerWord.MatchString(whole) || leaderDots.MatchString(whole) || retiredRowRE.MatchString(whole) {
			return
		}
		if !verifyVerbRE.MatchString(whole) && !imperativeRE.MatchString(whole) {
			if _, ok := classify(whole, false); !ok {
				return // a heading or a table of names
			}
		}
		// The quotes: each run of the statement's lines, verbatim; the
		// level columns and a header repeated on a new page cut a run.
		var quotes []sentence
		seg := r.lines[0]
		for i, l := range r.lines[1:] {
			if r.cut[i+1] || i == 0 && r.levels != "" && !r.ownLine {
				quotes = append(quotes, sentence{text: text[seg.from:seg.to], start: seg.from})
				seg = l
				continue
			}
			seg.to = l.to
		}
		quotes = append(quotes, sentence{text: text[seg.from:seg.to], start: seg.from})
		x := found{s: quotes[0], quote: requirement.Clean(quotes[0].text), text: whole, id: r.id, levels: r.levels,
			f: shapeFinding(whole, "a row of a verification table", "a row of a verification table with its own identifier, an obligation whatever its verb")}
		for _, q := range quotes[1:] {
			x.more = append(x.more, requirement.Clean(q.text))
		}
		out = append(out, x)
	}
	for _, l := range chunkLines(text) {
		trimmed, from, to := l.text, l.from, l.to
		if _, marker := document.ParsePageMarker(trimmed); marker {
			if cur != nil {
				cur.broken = true
			}
			continue
		}
		m := verifyRowRE.FindStringSubmatchIndex(trimmed)
		switch {
		case m != nil:
			flush()
			cur = &row{id: trimmed[m[2]:m[3]], start: from + m[4], lines: []span{{from + m[4], to}}, cut: []bool{false}}
		case cur == nil:
		case levelLineRE.MatchString(trimmed):
			// The level columns on a line of their own, after the
			// statement's first line.
			if cur.levels == "" {
				cur.levels, cur.ownLine = trimmed, true
			}
			cur.header = true
		case cur.broken && (trimmed == "" || !lowerWord.MatchString(trimmed) && len(strings.Fields(trimmed)) <= 4):
			// The table's header on the new page.
			cur.header = cur.header || trimmed != ""
		case trimmed == "" || mdHeadingRE.MatchString(trimmed) || rowLabel(trimmed):
			flush()
		case cur.broken && sentenceEndRE.MatchString(text[cur.lines[len(cur.lines)-1].from:cur.lines[len(cur.lines)-1].to]) && !lowerWordRE.MatchString(trimmed):
			// After a page break, text that does not go on from the row.
			flush()
		default:
			cur.lines = append(cur.lines, span{from, to})
			cur.cut = append(cur.cut, cur.header)
			cur.broken, cur.header = false, false
		}
	}
	flush()
	return out
}

// clauseVerbRE finds a verb in what looks like a label: "Possible
// controls could include:" is a clause that goes on, not a label.
var clauseVerbRE = regexp.MustCompile(`(?i)\b(?:can|could|may|might|must|shall|should|will|would|is|are|was|were|includes?)\b`)

// rowLabel reports whether a line is a label that ends a row ("Note:").
func rowLabel(line string) bool {
	m := labelRE.FindStringSubmatch(line)
	return m != nil && labelKind(m[1]) != neutral && !clauseVerbRE.MatchString(m[1])
}
