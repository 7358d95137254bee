package document

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
)

// Layout thresholds, as fractions of the font size.
const (
	baselineTolerance  = 0.5  // glyphs whose baselines differ by less are on one line
	wordGap            = 0.15 // a gap wider than this separates words
	segmentGap         = 1.8  // a gap wider than this separates columns or table cells
	overprintTolerance = 0.1  // the same glyph drawn again within this is one glyph (fake bold)
)

// line is one line of text on a page.
type line struct {
	y, x0, x1 float64
	size      float64
	text      string
	group     int  // the baseline group it came from
	table     bool // a row of a table (pdftable.go)
	// numbered: the line had a margin line number (linenumbers.go),
	// which text has and the inside of figures and tables has not.
	numbered bool
}

// layoutPage turns a page's glyphs into lines of text in reading order:
// one run of lines for each direction of text, the main direction first.
func layoutPage(glyphs []glyph) [][]line {
	byRot := map[int8][]glyph{}
	upright := true
	for _, g := range glyphs {
		if g.rot != 0 {
			upright = false
			break
		}
	}
	if upright {
		return [][]line{buildLines(glyphs)} // the common case, without copying
	}
	for _, g := range glyphs {
		byRot[g.rot] = append(byRot[g.rot], g)
	}
	rots := make([]int8, 0, len(byRot))
	for r := range byRot {
		rots = append(rots, r)
	}
	// The main text direction first, then text set at an angle.
	sort.Slice(rots, func(i, j int) bool {
		if len(byRot[rots[i]]) != len(byRot[rots[j]]) {
			return len(byRot[rots[i]]) > len(byRot[rots[j]])
		}
		return rots[i] < rots[j]
	})
	out := make([][]line, 0, len(rots))
	for _, r := range rots {
		out = append(out, buildLines(byRot[r]))
	}
	return out
}

// renderPage renders a page's runs of lines as text: blank strings mark
// paragraph breaks. furniture flags lines of each run (findFurniture);
// their indexes in the text are returned.
func renderPage(runs [][]line, furniture [][]bool) (text []string, furnitureAt []int) {
	for r, lines := range runs {
		if len(text) > 0 && len(lines) > 0 {
			text = append(text, "")
		}
		k := 0
		for _, l := range paragraphs(lines) {
			if l == "" {
				text = append(text, l)
				continue // a paragraph break; every line has text
			}
			if furniture[r][k] {
				furnitureAt = append(furnitureAt, len(text))
			}
			text = append(text, l)
			k++
		}
	}
	return text, furnitureAt
}

// buildLines groups glyphs by baseline, then splits each group into
// segments at wide gaps and reads columns one after the other. Glyphs are
// bucketed by baseline rounded to half a point, and nearby buckets merged,
// so no sort over all glyphs is needed.
func buildLines(glyphs []glyph) []line {
	if len(glyphs) == 0 {
		return nil
	}
	// Glyphs come in runs on one baseline (a line drawn left to right), so
	// the buckets are counted and filled run by run: the glyph indexes of
	// all buckets lie in one slice, top of the page first, each bucket's in
	// drawing order.
	type run struct{ q, start, end int32 }
	var runs []run
	for i, g := range glyphs {
		q := int32(math.Round(g.y * 2))
		if n := len(runs); n > 0 && runs[n-1].q == q {
			runs[n-1].end++
			continue
		}
		runs = append(runs, run{q, int32(i), int32(i) + 1})
	}
	counts := map[int32]int32{}
	for _, r := range runs {
		counts[r.q] += r.end - r.start
	}
	keys := make([]int32, 0, len(counts))
	for q := range counts {
		keys = append(keys, q)
	}
	slices.Sort(keys)
	slices.Reverse(keys) // top of the page first
	next := make(map[int32]int32, len(keys))
	offset := int32(0)
	for _, q := range keys {
		next[q] = offset
		offset += counts[q]
	}
	order := make([]int32, len(glyphs))
	for _, r := range runs {
		at := next[r.q]
		for i := r.start; i < r.end; i++ {
			order[at] = i
			at++
		}
		next[r.q] = at
	}
	var groups []*baselineGroup
	start, end := int32(0), int32(0) // the last group's indexes in order
	for _, q := range keys {
		bucket := order[end : end+counts[q]]
		y := float64(q) / 2
		bsize := 1.0
		for _, i := range bucket {
			if !glyphs[i].space {
				bsize = math.Max(bsize, glyphs[i].size)
			}
		}
		end += counts[q]
		if n := len(groups); n > 0 {
			g := groups[n-1]
			// Text of very different sizes shares a line only if its
			// baselines nearly agree (a small running header is not part
			// of the large heading beside it).
			tol := baselineTolerance * math.Min(g.size, bsize)
			if math.Min(g.size, bsize) < 0.7*math.Max(g.size, bsize) {
				tol = 0.15 * math.Max(g.size, bsize)
			}
			if math.Abs(g.y-y) <= tol {
				g.idx = order[start:end:end]
				g.size = math.Max(g.size, bsize)
				continue
			}
		}
		start = end - counts[q]
		groups = append(groups, &baselineGroup{y: y, size: bsize, idx: order[start:end:end]})
	}
	groups = mergeScripts(groups, glyphs)
	var segs []line
	for gi, g := range groups {
		for _, l := range segments(glyphs, g.idx, g.size) {
			l.group = gi
			segs = append(segs, l)
		}
	}
	return orderColumns(findTables(segs))
}

type baselineGroup struct {
	y, size float64
	idx     []int32
}

// mergeScripts puts superscripts (footnote marks) and subscripts, set in a
// smaller size slightly above or below a line, into that line, so that
// they do not become lines of their own that cut sentences in two.
func mergeScripts(groups []*baselineGroup, glyphs []glyph) []*baselineGroup {
	out := groups[:0:0]
	for i, g := range groups {
		var host *baselineGroup
		// The line below (superscript) or above (subscript), set larger.
		if i+1 < len(groups) {
			b := groups[i+1]
			if g.size < 0.8*b.size && g.y > b.y && g.y-b.y <= 0.75*b.size && scriptOnly(g, glyphs) {
				host = b
			}
		}
		if host == nil && len(out) > 0 {
			a := out[len(out)-1]
			if g.size < 0.8*a.size && a.y > g.y && a.y-g.y <= 0.4*a.size && scriptOnly(g, glyphs) {
				host = a
			}
		}
		if host != nil {
			host.idx = append(host.idx, g.idx...)
			continue
		}
		out = append(out, g)
	}
	return out
}

// scriptOnly is true for a mark of at most three characters without
// spaces, such as a footnote number.
func scriptOnly(g *baselineGroup, glyphs []glyph) bool {
	n := 0
	for _, i := range g.idx {
		if glyphs[i].space {
			return false
		}
		n++
	}
	return n <= 3
}

// segments joins the glyphs of one baseline (given by index) into words
// and splits them at gaps too wide for a word space.
func segments(all []glyph, idx []int32, size float64) []line {
	byX := func(a, b int32) int {
		if c := cmp.Compare(all[a].x, all[b].x); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	}
	if !slices.IsSortedFunc(idx, byX) {
		slices.SortFunc(idx, byX)
	}
	var out []line
	var b strings.Builder
	var cur line
	started := false
	pendingSpace := false
	var prev glyph
	flush := func() {
		if started {
			cur.text = strings.TrimSpace(b.String())
			if cur.text != "" {
				out = append(out, cur)
			}
		}
		b.Reset()
		started, pendingSpace = false, false
	}
	for _, i := range idx {
		g := all[i]
		if g.space {
			if started {
				pendingSpace = true
			}
			continue
		}
		if started {
			gap := g.x - prev.end()
			if prev.s == g.s && math.Abs(g.x-prev.x) < overprintTolerance*size {
				continue // drawn twice for a bold effect
			}
			switch {
			case gap > segmentGap*size:
				flush()
			case pendingSpace || gap > wordGap*size:
				b.WriteByte(' ')
			}
		}
		if !started {
			cur = line{y: g.y, x0: g.x, size: size}
			started = true
		}
		b.WriteString(g.s)
		cur.x1 = math.Max(cur.x1, g.end())
		pendingSpace = false
		prev = g
	}
	flush()
	return out
}

// orderColumns puts segments into reading order. On a page set in columns,
// segments left of a gutter are read before those right of it, region by
// region between lines that span the whole width.
func orderColumns(segs []line) []line {
	if len(segs) < 8 {
		return joinBaselines(segs)
	}
	gutter, ok := findGutter(segs)
	if !ok {
		return joinBaselines(segs)
	}
	var out, left, right []line
	flushRegion := func() {
		out = append(out, left...)
		out = append(out, right...)
		left, right = nil, nil
	}
	for _, s := range segs {
		switch {
		case s.x1 <= gutter:
			left = append(left, s)
		case s.x0 >= gutter:
			right = append(right, s)
		default: // spans the gutter: ends the region above it
			flushRegion()
			out = append(out, s)
		}
	}
	flushRegion()
	return out
}

// joinBaselines puts the segments of one baseline on one line: on a page
// without columns, a wide gap separates a number from its title or the
// cells of a table row. A gap of more than a quarter of the text width
// (a running header at the far margin) still separates two lines.
func joinBaselines(segs []line) []line {
	minX, maxX := math.MaxFloat64, -math.MaxFloat64
	for _, s := range segs {
		minX, maxX = math.Min(minX, s.x0), math.Max(maxX, s.x1)
	}
	limit := 0.25 * (maxX - minX)
	var out []line
	var joined strings.Builder // the text of the last line, when segments are joined to it
	flush := func() {
		if joined.Len() > 0 {
			out[len(out)-1].text = joined.String()
			joined.Reset()
		}
	}
	for _, s := range segs {
		if n := len(out); n > 0 && out[n-1].group == s.group && s.x0-out[n-1].x1 <= limit {
			if joined.Len() == 0 {
				joined.WriteString(out[n-1].text)
			}
			joined.WriteByte(' ')
			joined.WriteString(s.text)
			out[n-1].x1 = s.x1
			continue
		}
		flush()
		out = append(out, s)
	}
	flush()
	return out
}

// findGutter looks for a vertical strip that many segments end before and
// many start after, with almost nothing crossing it.
func findGutter(segs []line) (float64, bool) {
	minX, maxX := math.MaxFloat64, -math.MaxFloat64
	for _, s := range segs {
		minX, maxX = math.Min(minX, s.x0), math.Max(maxX, s.x1)
	}
	width := maxX - minX
	if width <= 0 {
		return 0, false
	}
	best, bestScore := 0.0, 0
	for f := 0.3; f <= 0.7; f += 0.01 {
		x := minX + f*width
		leftN, rightN, cross := 0, 0, 0
		for _, s := range segs {
			switch {
			case s.x1 <= x:
				leftN++
			case s.x0 >= x:
				rightN++
			default:
				cross++
			}
		}
		if cross*10 > len(segs) || leftN < len(segs)/4 || rightN < len(segs)/4 {
			continue
		}
		// Columns of text are about as wide as each other; a narrow column
		// beside a wide one is a table (terms and definitions), read by rows.
		lw, rw := x-minX, maxX-x
		if math.Min(lw, rw) < 0.6*math.Max(lw, rw) {
			continue
		}
		if score := min(leftN, rightN); score > bestScore {
			best, bestScore = x, score
		}
	}
	return best, bestScore > 0
}

// paragraphs renders lines, with a blank line where the vertical gap is
// clearly wider than the usual line spacing.
func paragraphs(lines []line) []string {
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		if d := lines[i-1].y - lines[i].y; d > 0 {
			gaps = append(gaps, d/math.Max(lines[i].size, 1))
		}
	}
	// The usual line spacing: a low percentile, since on a page of short
	// paragraphs half of the gaps may be paragraph gaps.
	usual := percentile(gaps, 0.3)
	full := fullWidth(lines)
	out := make([]string, 0, len(lines))
	prev := 0.0
	for i, l := range lines {
		if i > 0 && usual > 0 {
			d := (lines[i-1].y - l.y) / math.Max(l.size, 1)
			// A wider gap than usual starts a paragraph, unless the lines
			// before were spaced exactly as widely (a list set with more
			// leading).
			wide := d > usual*1.45
			sameAsBefore := prev > usual*1.45 && math.Abs(d-prev) < 0.05*d
			// A table stands apart, its rows together; a heading from the
			// text before and after it; numbered text from unnumbered
			// lines (a figure's) on a line-numbered page.
			if d < -1 || wide && !sameAsBefore && !l.table || l.table != lines[i-1].table || l.numbered != lines[i-1].numbered ||
				endsHeading(lines[i-1], l, full) || startsHeading(lines[i-1], l, full) {
				out = append(out, "")
			}
			prev = d
		}
		out = append(out, l.text)
	}
	return out
}

func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}
