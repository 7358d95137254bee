package builtin

import (
	"regexp"
	"strings"
)

// Control catalogs and requirement lists state their requirements by
// structure, not by modal verbs: a labelled block ("Control:", "Control
// Enhancements:", "Requirements:") holds statements, often lettered
// ("a. Develop, document, and disseminate …") or numbered ("(1) The
// organization employs …"), and labelled guidance ("Supplemental
// Guidance:", "Discussion:", "Note:") explains them without adding any.
// The built-in model reads such blocks by their labels: every item of a
// normative block is a requirement whatever its verb, and the sentences of
// an informative block are none, whatever their verbs.

type blockKind int

const (
	neutral     blockKind = iota // no label: sentences are read by their cues
	normative                    // its statements are requirements
	informative                  // guidance: no requirements
)

var (
	// A label at the start of a line: one to five words and a colon.
	labelRE = regexp.MustCompile(`^([A-Z][A-Za-z]+(?:[ -][A-Za-z]+){0,4}):(?:[ \t]|$)`)
	// A heading that starts a new control or requirement ("AC-2 ACCOUNT
	// MANAGEMENT", "3.1 ACCESS CONTROL") ends the block before it.
	catalogHeadingRE = regexp.MustCompile(`^(?:[A-Z]{2,4}-\d{1,3}(?:\(\d{1,2}\))?|\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+[A-Z][A-Z0-9 ,/()&'-]{3,}$`)
	// Items of a normative block: "a. ", "(1) ", "3.1.1 ", "AC-2(1) ".
	letterItemRE = regexp.MustCompile(`^[a-z]\.\s+\S`)
	numberItemRE = regexp.MustCompile(`^\(\d{1,2}\)\s+\S`)
	clauseItemRE = regexp.MustCompile(`^\d{1,2}(?:\.\d{1,2}){1,3}\.?\s+\S`)
	// A sub-item of an item: "(a) ", "(iv) ".
	subItemRE = regexp.MustCompile(`^\((?:[a-z]|[ivx]{1,4})\)\s+\S`)
	// The marker of an item, taken off its quote.
	itemMarkerRE = regexp.MustCompile(`^(?:[a-z]\.|\(\d{1,2}\)|\d{1,2}(?:\.\d{1,2}){1,3}\.?)\s+`)
)

// itemKind is the marker a line starts an item with, or nil.
func itemKind(line string) *regexp.Regexp {
	for _, re := range []*regexp.Regexp{letterItemRE, numberItemRE, clauseItemRE} {
		if re.MatchString(line) {
			return re
		}
	}
	return nil
}

// Label words that make a block informative or normative, whole words
// only ("Change Controller:" in a definition list is neither).
var (
	informativeLabelRE = regexp.MustCompile(`(?i)\b(guidance|discussion|notes?|rationale|examples?|references?|priority|baselines?|related|sources?|background|purpose|scope)\b`)
	normativeLabelRE   = regexp.MustCompile(`(?i)\b(controls?|requirements?|enhancements?|statements?|obligations?)\b`)
)

// labelKind classifies a block by its label.
func labelKind(label string) blockKind {
	switch {
	case informativeLabelRE.MatchString(label):
		return informative
	case normativeLabelRE.MatchString(label):
		return normative
	}
	return neutral
}

// block is a run of a chunk's text under one label.
type block struct {
	kind       blockKind
	start, end int // byte range in the text, the label included
	body       int // where the text after the label starts
}

// blocks cuts text into labelled blocks. Text before the first label, or
// after a heading, is neutral. Guidance between the items of a normative
// block ("(1) …", guidance on it, "(2) …") ends at the next item, where the
// normative block goes on.
func blocks(text string) []block {
	var out []block
	cur := block{kind: neutral}
	var marker *regexp.Regexp // the item marker of the latest normative block
	pos := 0
	blank := false // the line before was blank
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimSpace(line)
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		if trimmed == "" {
			blank = true
			pos += len(line)
			continue
		}
		after := blank
		blank = false
		switch {
		case labelRE.MatchString(trimmed):
			cur.end = pos
			out = append(out, cur)
			label := labelRE.FindStringSubmatch(trimmed)
			cur = block{kind: labelKind(label[1]), start: pos, body: pos + lead + len(label[1]) + 1}
			if cur.kind == normative {
				marker = nil
			}
		case catalogHeadingRE.MatchString(trimmed):
			cur.end = pos
			out = append(out, cur)
			cur = block{kind: neutral, start: pos + len(line), body: pos + len(line)}
			marker = nil
		case cur.kind == normative && marker == nil:
			marker = itemKind(trimmed)
		case cur.kind == informative && marker != nil && marker.MatchString(trimmed):
			cur.end = pos
			out = append(out, cur)
			cur = block{kind: normative, start: pos, body: pos + lead}
		case after && cur.kind != neutral && (cur.kind == informative || itemKind(trimmed) == nil && !subItemRE.MatchString(trimmed)):
			// A label speaks for its paragraph, and a normative one for the
			// items that follow it; a paragraph after them is on its own
			// (a definition list's "Notes:" entry ends at its paragraph).
			cur.end = pos
			out = append(out, cur)
			cur = block{kind: neutral, start: pos, body: pos}
		}
		pos += len(line)
	}
	cur.end = len(text)
	out = append(out, cur)
	var kept []block
	for _, b := range out {
		if b.end > b.start {
			kept = append(kept, b)
		}
	}
	return kept
}

// items returns the statements of a normative block as sentences: each
// lettered or numbered item (with its sub-items), or the block's statement
// when it has no items. A lead-in that ends in a colon introduces the
// items and is not one; withdrawn items and one-word remarks ("None.") are
// left out.
func items(text string, b block) []sentence {
	body := text[b.body:b.end]
	var starts []int
	var marker *regexp.Regexp
	pos := 0
	for _, line := range strings.SplitAfter(body, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		at := pos + len(line) - len(trimmed)
		if re := itemKind(trimmed); re != nil && (marker == nil || marker == re) {
			marker = re
			starts = append(starts, at)
		}
		pos += len(line)
	}
	var out []sentence
	add := func(from, to int) {
		raw := strings.TrimSpace(body[from:to])
		start := b.body + from + leadSpace(body[from:to])
		if marker != nil {
			if m := itemMarkerRE.FindString(raw); m != "" {
				raw, start = raw[len(m):], start+len(m)
			}
		}
		s := sentence{text: raw, start: start}
		q := cleanQuote(s.text)
		if len(strings.Fields(q)) < 4 || strings.Contains(q, "[Withdrawn") || strings.HasSuffix(q, ":") {
			return
		}
		out = append(out, s)
	}
	if len(starts) == 0 {
		add(0, len(body))
		return out
	}
	for i, s := range starts {
		end := len(body)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		add(s, end)
	}
	return out
}

func leadSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\n"))
}
