package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Some documents state their requirements by their layout, and everything
// else in them is context:
//
//   - verification tables (security verification standards, audit
//     checklists): one row a requirement, with a dotted identifier ("1.2.3",
//     "V1.2.3", "C.4") and a statement that often has no modal verb
//     ("Verify that …", "Ensure …"), often with level columns ("1 2 3",
//     "✓") that text extraction puts into the first line of the statement;
//   - rule lists (STIGs, benchmarks): each rule has a title ("… must …")
//     under a label ("Rule Title:") or in a table cell, then discussion,
//     check text ("If …, this is a finding."), fix text and metadata lines
//     (rule and group ids, severity, CCI), which state no requirement.
//
// The profile tells the shape from the text (never from a document's name
// or title); the chunks of such a document are read by it alone.
const (
	shapeProse = "prose"
	shapeTable = "verification-table"
	shapeRules = "rule-list"
)

var (
	// A row of a verification table: a dotted identifier, with or without
	// a letter prefix, and a statement that starts with a capital.
	verifyRowRE = regexp.MustCompile(`^((?:[A-Z]{1,3}[-.]?)?\d{1,3}(?:\.\d{1,3}){1,4}|[A-Z]{1,2}\.\d{1,3}(?:\.\d{1,3}){0,3})\.?[ \t]+([\p{Lu}\["“'(].*)$`)
	// The verbs a verification statement starts with.
	verifyVerbRE = regexp.MustCompile(`(?i)^(?:verify|ensure|confirm|check|determine|review|test|validate|examine|inspect|assess|make sure)\b`)
	// Level columns at the end of a row's first line: "1", "2 3", "L2",
	// ticks.
	levelLineRE = regexp.MustCompile(`^(?:[1-3]|L[1-3]|[✓✔●■])(?:[ \t]+(?:[1-3]|L[1-3]|[✓✔●■]))*$`)
	levelTailRE = regexp.MustCompile(`(?:[ \t]+(?:[1-3]|L[1-3]|[✓✔●■]))+[ \t]*$`)
	// A row marked as no longer a requirement.
	retiredRowRE = regexp.MustCompile(`(?i)^[\[(]?\s*(?:deleted|moved|removed|withdrawn|merged|replaced|deprecated|obsolete)\b`)
	// A sentence end before a page break: the row does not go on.
	sentenceEndRE = regexp.MustCompile(`[.!?:;)"”]$`)

	// A rule's title, under its label or in a table cell (a table row
	// starts with a bar).
	ruleTitleRE = regexp.MustCompile(`^(?:\|[ \t]*)?(?i:rule[ \t]+title|title)[ \t]*(?::|\|)[ \t]*(\S.*)$`)
	// The check text of a rule.
	findingRE = regexp.MustCompile(`(?i)\bthis is (?:a|not a) finding\b`)
	// Metadata lines of a rule: "Group ID (Vulid): V-…", "Rule ID | SV-…",
	// "Severity: CAT II", "CCI: CCI-000366".
	ruleMetaRE = regexp.MustCompile(`^(?:\|[ \t]*)?(?i:group[ \t]+id|group[ \t]+title|vuln(?:erability)?[ \t]+id|rule[ \t]+id|stig[ \t]+id|rule[ \t]+version|severity|cci|srg|check[ \t]+text|fix[ \t]+text|(?:vulnerability[ \t]+)?discussion)\b[^:|]{0,20}(?::|\||$)`)
	// Identifiers and separators before a title in a heading.
	headingIDsRE = regexp.MustCompile(`^(?:[A-Z]{1,6}-[\w.-]*\d[\w.-]*[ \t]*[—–:|-]*[ \t]*)+`)
	modalRE      = regexp.MustCompile(`\b(?:must|shall|should)\b`)
)

// documentShape tells how a document states its requirements, from the
// text of its profile chunks.
func documentShape(text string) string {
	rows, titles, findings, meta := 0, 0, 0, 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
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
		if ruleTitleRE.MatchString(l) {
			titles++
		}
		if ruleMetaRE.MatchString(l) {
			meta++
		}
		findings += len(findingRE.FindAllString(l, -1))
	}
	switch {
	case titles >= 2 && (findings >= 2 || meta >= 4):
		return shapeRules
	case findings >= 3 && meta >= 6:
		return shapeRules
	case rows >= 3:
		return shapeTable
	}
	if s := countSpecSignals(text).shape(); s != "" {
		return s
	}
	return shapeProse
}

// shapeFinding is what a row or a rule title states: a requirement by the
// document's layout, whatever its verb; a cue in it says which kind.
func shapeFinding(quote, cue, note string) finding {
	if f, ok := classify(quote, false); ok && f.kind != "permission" {
		return f
	}
	return finding{kind: "obligation", cue: cue, confidence: 0.8, strong: true, note: note}
}

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

// ruleMetaNameRE names the metadata a rule's record keeps: its id (the
// STIG id or rule version, which the rule is known by) as source_id, the
// others as attributes.
var ruleMetaNameRE = regexp.MustCompile(`(?i)^(?:(stig[ \t]+id|rule[ \t]+version)|(severity)|(rule[ \t]+id)|(group[ \t]+id|vuln(?:erability)?[ \t]+id))\b`)

// ruleMeta reads a metadata line of a rule ("Severity: CAT II", "Rule
// Version (STIG-ID) | RHEL-09-211010") as a name and its value; ok is
// false for the lines kept as neither (discussion, check text, CCI).
func ruleMeta(line string) (name, value string, ok bool) {
	line = strings.TrimSpace(strings.TrimPrefix(line, "|")) // a table row
	g := ruleMetaNameRE.FindStringSubmatch(line)
	if g == nil {
		return "", "", false
	}
	i := strings.IndexAny(line, ":|")
	if i < 0 {
		return "", "", false
	}
	value = strings.TrimSpace(strings.Trim(strings.TrimSpace(line[i+1:]), "|"))
	if value == "" || len(value) > 100 {
		return "", "", false
	}
	switch {
	case g[1] != "":
		return "id", value, true
	case g[2] != "":
		return "severity", value, true
	case g[3] != "":
		return "rule_id", value, true
	}
	return "group_id", value, true
}

// ruleTitles are the titles of the rules in a chunk of a rule list: the
// text after a "Rule Title:" label (or in its table cell) up to a blank
// line or the next label, or a heading that states a duty.
func ruleTitles(text string) []found {
	var out []found
	var cur []span
	// meta are the metadata lines of the rule before its title: its id
	// and its other columns.
	id, attrs := "", map[string]string{}
	flush := func() {
		if len(cur) == 0 {
			return
		}
		s := sentence{text: strings.TrimSpace(text[cur[0].from:cur[len(cur)-1].to]), start: cur[0].from}
		cur = nil
		q := requirement.Clean(s.text)
		// The metadata belong to this rule, kept or not: never the next.
		ruleID, ruleAttrs := id, attrs
		id, attrs = "", map[string]string{}
		if len(strings.Fields(q)) < 3 {
			return
		}
		out = append(out, found{s: s, quote: q, text: q, id: ruleID, attrs: ruleAttrs,
			f: shapeFinding(q, "a rule's title", "the title of a rule in a rule list, which states the rule")})
	}
	for _, l := range chunkLines(text) {
		trimmed, from, to := l.text, l.from, l.to
		if _, marker := document.ParsePageMarker(trimmed); marker {
			continue
		}
		switch m := ruleTitleRE.FindStringSubmatchIndex(trimmed); {
		case m != nil:
			flush()
			cur = []span{{from + m[2], to}}
			if strings.Contains(trimmed[:m[2]], "|") {
				// A table cell: the title ends with its row.
				cur[0].to = from + m[2] + len(strings.TrimSpace(strings.Split(trimmed[m[2]:], "|")[0]))
				flush()
			}
		case mdHeadingRE.MatchString(trimmed):
			// A heading that holds a rule's title: "## SV-1234 RHEL
			// must …".
			flush()
			at := mdHeadingRE.FindStringSubmatchIndex(trimmed)[4] // the title
			title := trimmed[at:]
			skip := len(headingIDsRE.FindString(title))
			if modalRE.MatchString(title[skip:]) {
				cur = []span{{from + at + skip, to}}
				flush()
			}
		case ruleMetaRE.MatchString(trimmed):
			flush()
			if name, value, ok := ruleMeta(trimmed); ok {
				if name == "id" {
					id = value
				} else {
					attrs[name] = value
				}
			}
		case trimmed == "" || labelRE.MatchString(trimmed):
			flush()
		case cur != nil:
			cur = append(cur, span{from, to})
		}
	}
	flush()
	return out
}
