package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Numbered lists of imperatives with discussion blocks (security
// baselines, control lists): "3.1.1 Restrict remote access to approved
// devices." then a "DISCUSSION" paragraph, then the next item. Every
// numbered item that states something is a requirement, whatever its
// verb; a numbered line that is a title (no full stop, no imperative) is
// none; discussion text is context.
const shapeNumbered = "numbered-list"

var numberedListShape = shape{
	name:   shapeNumbered,
	reason: "a numbered list of measures with discussion blocks: each numbered item is a requirement whatever its verb; discussion is context",
	detect: func(text string) bool {
		s := countSpecSignals(text)
		return s.discussions >= 2 && s.numbered >= 3
	},
	extract: func(c chunkRead, p profile) []found {
		rows, rest := requirementTables(c.body, nil, false)
		return append(rows, numberedItems(rest, p)...)
	},
}

var terminalRE = regexp.MustCompile(`[.;!)"”]$`)

var discussionWordRE = regexp.MustCompile(`(?i)^discussion\b`)

// discussionLabel is a "DISCUSSION" line, or a "Discussion:" label.
func discussionLabel(line string) bool {
	if m := labelRE.FindStringSubmatch(line); m != nil {
		return discussionWordRE.MatchString(m[1])
	}
	return labelLineRE.MatchString(line) && discussionWordRE.MatchString(line) && len(strings.Fields(line)) <= 2
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
