package document

import (
	"math"
	"strings"
)

// Tables in a PDF are found where their columns are clear: a run of
// baselines whose text segments (split at gaps wider than a word space)
// all start, centre or end where the first baseline's do (cells set flush
// left, centred or flush right) and each stays within its column,
// with at least three baselines of two cells or more (or a header row
// over the text in its columns: the rest of a table on a new page) and at
// least one column of short cells (an id, a priority). Two columns of prose side by
// side are a page's columns, not a table, and two columns are a table only
// under a header row (numbers set apart from their paragraphs or
// headings are none). A row starts at a baseline with
// text in the first column; the baselines under it without (a cell's text
// wrapped) belong to it. The table is written as table lines (table.go),
// its first row as a header when it reads as one.

const (
	columnTolerance = 0.4 // of the font size: segments starting this close start the same column
	rowGapLimit     = 1.9 // of the run's usual baseline distance: a wider gap ends the table
)

// pdfBaseline is the segments of one baseline, left to right.
type pdfBaseline struct {
	y, size float64
	segs    []line
}

// findTables replaces the segments of each clear table among segs (in
// baseline order, top of the page first) with one line a row.
func findTables(segs []line) []line {
	var bls []pdfBaseline
	for _, s := range segs {
		if n := len(bls); n > 0 && bls[n-1].segs[0].group == s.group {
			bls[n-1].segs = append(bls[n-1].segs, s)
			bls[n-1].size = math.Max(bls[n-1].size, s.size)
			continue
		}
		bls = append(bls, pdfBaseline{y: s.y, size: s.size, segs: []line{s}})
	}
	var out []line
	for i := 0; i < len(bls); {
		if end, cols := tableRun(bls, i); end > i {
			out = append(out, tableLines(bls[i:end], cols)...)
			i = end
			continue
		}
		out = append(out, bls[i].segs...)
		i++
	}
	return out
}

// tableRun looks for a table starting at baseline i: the baselines up to
// end (exclusive) and its columns' starts, or end == i.
func tableRun(bls []pdfBaseline, i int) (end int, cols []line) {
	first := bls[i]
	if len(first.segs) < 2 {
		return i, nil
	}
	tol := columnTolerance * first.size
	cols = first.segs
	column := func(s line) int { return columnOf(s, cols, tol) }
	// fits reports whether every segment of a baseline is in a column and
	// ends before the next column starts.
	fits := func(b pdfBaseline) bool {
		for _, s := range b.segs {
			j := column(s)
			if j < 0 || j+1 < len(cols) && s.x1 > cols[j+1].x0+tol {
				return false
			}
		}
		return true
	}
	if !fits(first) {
		return i, nil
	}
	usual := 0.0 // the smallest distance between baselines so far
	multi := 1
	end = i + 1
	for ; end < len(bls); end++ {
		b := bls[end]
		d := bls[end-1].y - b.y
		if math.Abs(b.size-first.size) > 0.15*first.size || d <= 0 || !fits(b) {
			break
		}
		limit := rowGapLimit * b.size * 1.3
		if usual > 0 {
			limit = rowGapLimit * usual
		}
		if end == i+1 && len(first.segs) >= 2 && headerLike(cellTexts(bls[i:end+1], column, len(cols))) {
			limit *= 2 // a header row set apart from the rows (a rule, a shaded band)
		}
		if d > limit {
			break
		}
		if usual == 0 || d < usual {
			usual = d
		}
		if len(b.segs) >= 2 {
			multi++
		}
	}
	headed := end-i >= 2 && headerLike(cellTexts(bls[i:end], column, len(cols)))
	if multi < 3 && !headed || !clearColumns(bls[i:end], cols, column, headed) {
		return i, nil
	}
	return end, cols
}

// columnOf is the column of a segment: the one of the first baseline's
// segments (cols) it starts, centres or ends with — cells are set flush
// left, centred or flush right — or -1.
func columnOf(s line, cols []line, tol float64) int {
	mid := (s.x0 + s.x1) / 2
	for j, c := range cols {
		if math.Abs(s.x0-c.x0) <= tol || math.Abs(mid-(c.x0+c.x1)/2) <= tol || math.Abs(s.x1-c.x1) <= tol {
			return j
		}
	}
	return -1
}

// cellTexts are the texts of a run's baselines by column: the first
// baseline's, then each further one's, for headerLike.
func cellTexts(run []pdfBaseline, column func(line) int, n int) [][]string {
	var rows [][]string
	for _, b := range run {
		r := make([]string, n)
		for _, s := range b.segs {
			if j := column(s); j >= 0 {
				r[j] = strings.TrimSpace(r[j] + " " + s.text)
			}
		}
		rows = append(rows, r)
	}
	return rows
}

// clearColumns reports whether the columns of a run make a table: every
// column holds text in at least two baselines (under a header, in one), one column has short cells
// (three words at most), and two columns are not two of prose of a like
// width (a page set in columns).
func clearColumns(run []pdfBaseline, cols []line, column func(line) int, headed bool) bool {
	filled := make([]int, len(cols))
	words := make([]int, len(cols))
	width := make([]float64, len(cols))
	for _, b := range run {
		for _, s := range b.segs {
			j := column(s)
			filled[j]++
			words[j] += len(strings.Fields(s.text))
			width[j] = math.Max(width[j], s.x1-s.x0)
		}
	}
	short := false
	for j := range cols {
		if filled[j] < 2 && !headed {
			return false
		}
		if words[j] <= 3*filled[j] {
			short = true
		}
	}
	if len(cols) == 2 && math.Min(width[0], width[1]) >= 0.6*math.Max(width[0], width[1]) {
		return false
	}
	if len(cols) == 2 {
		// Two columns are a table only under a header: numbered
		// paragraphs and headings ("3.2.1  Vollständigkeit") set their
		// numbers apart the same way.
		if len(run[0].segs) < 2 || !headerLike(cellTexts(run, column, len(cols))) {
			return false
		}
	}
	return short
}

// tableLines renders a table's baselines as rows: a row starts at a
// baseline with text in the first column (or the table's first), and a
// cell's lines are joined with spaces.
func tableLines(run []pdfBaseline, cols []line) []line {
	tol := columnTolerance * run[0].size
	column := func(s line) int { return max(columnOf(s, cols, tol), 0) }
	// A first baseline that reads as a header is the header row alone.
	headed := headerLike(cellTexts(run, column, len(cols)))
	var rows [][]string
	for k, b := range run {
		if k == 0 || k == 1 && headed || column(b.segs[0]) == 0 {
			rows = append(rows, make([]string, len(cols)))
		}
		r := rows[len(rows)-1]
		for _, s := range b.segs {
			j := column(s)
			r[j] = strings.TrimSpace(r[j] + " " + s.text)
		}
	}
	texts := renderTable(rows, headed || headerLike(rows))
	out := make([]line, len(texts))
	x0, x1 := math.MaxFloat64, 0.0
	for _, b := range run {
		for _, s := range b.segs {
			x0, x1 = math.Min(x0, s.x0), math.Max(x1, s.x1)
		}
	}
	for k, t := range texts {
		// Each row a group of its own, so that no row is joined to another.
		out[k] = line{y: run[0].y, x0: x0, x1: x1, size: run[0].size, text: t, group: -1 - k, table: true}
	}
	return out
}
