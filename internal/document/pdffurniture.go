package document

import (
	"math"
	"slices"
	"unicode/utf8"
)

// furnitureKey is how a line that may be a running header, footer or page
// number is compared across pages: its text with numbers and case left
// out (every page number alike) and its baseline's height, to two points.
type furnitureKey struct {
	text string
	y    int
}

const (
	furnitureStep = 2.0 // points: baselines this close are at one height
	pageNumberKey = "\x00page number"
)

// findFurniture finds the running headers and footers and page numbers of
// a PDF's laid-out pages by their place: a line among the top or bottom
// lines of its page whose text stands at the same height on at least 40%
// of the pages (at least three). It looks before the lines are put in
// reading order as text, so that a header set beside a column or above a
// table, which reading order puts within the text, is found where it
// stands. It returns, for each page, run and line, whether the line is
// furniture.
func findFurniture(pages [][][]line) [][][]bool {
	out := make([][][]bool, len(pages))
	edges := make([][][]bool, len(pages))
	for p, runs := range pages {
		out[p] = make([][]bool, len(runs))
		edges[p] = make([][]bool, len(runs))
		for r, lines := range runs {
			out[p][r] = make([]bool, len(lines))
			edges[p][r] = edgeLines(lines)
		}
	}
	if len(pages) < 3 {
		return out
	}
	threshold := max(3, (len(pages)*2+4)/5)
	keyOf := func(l line) furnitureKey {
		k := furnitureKey{y: int(math.Round(l.y / furnitureStep))}
		if isPageNumber(l.text) {
			k.text = pageNumberKey
		} else {
			k.text = runningKey(l.text)
		}
		return k
	}
	count := map[furnitureKey]int{}
	for p, runs := range pages {
		seen := map[furnitureKey]bool{}
		for r, lines := range runs {
			for i, l := range lines {
				if !edges[p][r][i] {
					continue // only edge lines are keyed: a key costs an allocation
				}
				if k := keyOf(l); !seen[k] {
					seen[k] = true
					count[k]++
				}
			}
		}
	}
	runs := func(l line) bool {
		k := keyOf(l)
		n := count[k] + count[furnitureKey{k.text, k.y - 1}] + count[furnitureKey{k.text, k.y + 1}]
		if utf8.RuneCountInString(l.text) > 60 {
			return n >= max(threshold, 5) // a long line is body text unless many pages show it
		}
		return n >= threshold
	}
	for p, page := range pages {
		for r, lines := range page {
			for i, l := range lines {
				out[p][r][i] = edges[p][r][i] && runs(l)
			}
		}
	}
	return out
}

// edgeLines tells for each line whether it stands on one of the
// runningZone highest or lowest baselines of its page, wherever reading
// order puts it. Of a short page, only its first and last few baselines
// count.
func edgeLines(lines []line) []bool {
	out := make([]bool, len(lines))
	if len(lines) == 0 {
		return out
	}
	heights := make([]int, len(lines))
	for i, l := range lines {
		heights[i] = int(math.Round(l.y / furnitureStep))
	}
	levels := slices.Clone(heights)
	slices.Sort(levels)
	levels = slices.Compact(levels) // lowest first: PDF heights grow upwards
	zone := runningZone
	if len(levels) <= 2*runningZone {
		zone = max(1, len(levels)/3)
	}
	for i, h := range heights {
		k, _ := slices.BinarySearch(levels, h)
		out[i] = k >= len(levels)-zone || k < zone
	}
	return out
}
