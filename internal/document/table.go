package document

import (
	"regexp"
	"strings"
)

// Tables are rendered the same way whatever the format: one line a row,
// its cells between bars ("| FR-1 | The system shall … | High |"), a bar
// inside a cell written "\|", the lines of a cell joined by spaces. A
// header row is followed by a rule line ("|---|---|---|"), as in Markdown.
// A row is never cut across lines, nor (see chunk.go) across chunks.

// TableRowRE matches a rendered table row or rule line.
var TableRowRE = regexp.MustCompile(`^[ \t]*\|.*\|[ \t]*$`)

// tableRuleRE matches the rule line under a table's header.
var tableRuleRE = regexp.MustCompile(`^[ \t]*\|(?:[ \t]*:?-{1,}:?[ \t]*\|)+[ \t]*$`)

// IsTableRule reports whether a line is the rule under a table's header.
func IsTableRule(line string) bool { return tableRuleRE.MatchString(line) }

// renderTable renders rows of cells as table lines; header says the first
// row is the table's header. Rows without any text are left out; rows
// shorter than the widest get empty cells, so columns line up.
func renderTable(rows [][]string, header bool) []string {
	width := 0
	var kept [][]string
	for _, r := range rows {
		empty := true
		for _, c := range r {
			if strings.TrimSpace(c) != "" {
				empty = false
			}
		}
		if !empty {
			kept = append(kept, r)
			width = max(width, len(r))
		}
	}
	if len(kept) == 0 {
		return nil
	}
	var out []string
	for i, r := range kept {
		var b strings.Builder
		b.WriteString("|")
		for j := range width {
			c := ""
			if j < len(r) {
				c = tableCellText(r[j])
			}
			b.WriteString(" " + c + " |")
		}
		out = append(out, strings.ReplaceAll(b.String(), "  |", " |"))
		if i == 0 && header && len(kept) > 1 {
			out = append(out, "|"+strings.Repeat("---|", width))
		}
	}
	return out
}

// tableCellText is a cell's text on one line, its bars escaped.
func tableCellText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// headerLike reports whether a table's first row reads as a header, for
// formats that do not mark it: every cell a short name (at most five
// words, no digit, no sentence end), and some column's cells below longer
// than its name, so that a table of names and values ("Severity | CAT II")
// has none.
func headerLike(rows [][]string) bool {
	if len(rows) < 2 || len(rows[0]) < 2 {
		return false
	}
	for _, c := range rows[0] {
		c = strings.TrimSpace(c)
		if c == "" || len(strings.Fields(c)) > 5 || strings.ContainsAny(c, "0123456789") || strings.ContainsAny(c[len(c)-1:], ".;!?") {
			return false
		}
	}
	for j, name := range rows[0] {
		for _, r := range rows[1:] {
			if j < len(r) && len(strings.Fields(r[j])) > len(strings.Fields(name))+1 {
				return true
			}
		}
	}
	return false
}

// nestedTableText is the text of a table inside a table's cell: its rows
// parted by semicolons, their cells by spaces.
func nestedTableText(rows [][]string) string {
	var out []string
	for _, r := range rows {
		if t := strings.Join(strings.Fields(strings.Join(r, " ")), " "); t != "" {
			out = append(out, t)
		}
	}
	return strings.Join(out, "; ")
}
