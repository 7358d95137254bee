package document

import (
	"regexp"
	"strconv"
	"strings"
)

// Part is a section a document marks as informative: no requirement
// stands in it, whatever its verbs. Title is its heading as section paths
// name it (HeadingTitle), Line and End its first and last line (from 1),
// Why what marks it.
type Part struct {
	Title string `json:"title"`
	Line  int    `json:"line"`
	End   int    `json:"end"`
	Why   string `json:"why"`
}

// outlined is a heading with the last line of its section (exclusive).
type outlined struct {
	heading
	end int
}

// outlineOf is the headings of a text's lines (as the chunks' section
// paths have them), each with where its section ends: at the next
// heading that is not below it.
func outlineOf(lines []string) []outlined {
	heads := findHeadings(lines)
	out := make([]outlined, len(heads))
	for i, h := range heads {
		out[i] = outlined{heading: h, end: len(lines)}
		for _, next := range heads[i+1:] {
			if !ancestor(h, next) {
				out[i].end = next.line
				break
			}
		}
	}
	return out
}

var (
	// A heading marked informative: "Appendix B. … (non normative)",
	// "Annex C (informative)".
	informativeTitleRE = regexp.MustCompile(`(?i)\(\s*(?:non[- ]?normative|informative)\s*\)|^(?:[\dA-Z]+(?:\.\d+)*\.?\s+)?(?:non[- ]?normative|informative)\b|\b(?:non[- ]?normative|informative)$`)
	// The section says so itself, in its first lines: "This section is
	// non-normative.", "This Appendix is informative and …".
	informativeLeadRE = regexp.MustCompile(`(?i)^\(?\s*(?:this|the following) (?:section|sub-?section|appendix|annex|chapter|clause|part)(?: and its sub-?sections)? (?:is|are) (?:entirely )?(?:non[- ]?normative|informative|not normative)\b`)
	// Parts that record a document rather than state it: its history,
	// its changes, its contributors, its examples.
	recordTitleRE = regexp.MustCompile(`(?i)^(?:(?:revision|change|document|version|edit|publication) (?:history|log)|change-?log|changes (?:from|since|in|to)\b.*|acknowledge?ments?|contributors|examples?)(?:\s*\(.*\))?$`)
	// An appendix's name before its title: "Appendix E - ", "Annex C: ".
	appendixNameRE = regexp.MustCompile(`(?i)^(?:appendix|annex|anhang|anlage)\s+[A-Z0-9]{1,3}\s*[.:—–‑-]?\s*`)
	// normalizedRE keeps a sentence's words for comparing restatements.
	normalizedRE = regexp.MustCompile(`[^\p{L}\p{N}]+`)
)

const (
	// A top-level section restates the body when this share of its
	// keyword statements, at least minRestated, stand before it.
	restatedShare = 0.6
	minRestated   = 10
	// maxPartShare is the most of a document one part found by its
	// heading may cover: a heading that seems to start a long part is an
	// entry of a table of contents, or a heading the outline misses
	// lies between (only a part that says so itself may be that long).
	maxPartShare = 0.3
)

// surveyInformative finds the informative parts of a text: sections whose
// heading or first lines mark them non-normative or informative, records
// of the document (history, changes, acknowledgements, examples), and
// sections that restate the body (a summary of its statements). A part
// inside another is not listed again.
func surveyInformative(lines []string, outline []outlined) []Part {
	var out []Part
	restated := restatements(lines, outline)
	covered := -1 // the last line of the part listed last
	for k, h := range outline {
		if h.line < covered {
			continue
		}
		title := h.title
		if strings.Count(title, "(") > strings.Count(title, ")") && h.line+1 < len(lines) {
			title += " " + strings.TrimSpace(lines[h.line+1]) // a heading over two lines
		}
		why := ""
		switch {
		case informativeTitleRE.MatchString(HeadingTitle(title)):
			why = "its heading marks it informative"
		case leadsInformative(lines, h):
			why = "it says it is informative: " + quoteShort(firstText(lines, h))
		case recordTitleRE.MatchString(bareTitle(h.title)):
			why = "it records the document (history, changes, contributors or examples), stating no requirement"
		case restated[k] != "":
			why = restated[k]
		default:
			continue
		}
		if !strings.HasPrefix(why, "it says") && float64(h.end-h.line) > maxPartShare*float64(len(lines)) {
			continue
		}
		out = append(out, Part{Title: HeadingTitle(h.title), Line: h.line + 1, End: h.end, Why: why})
		covered = h.end
	}
	return out
}

// bareTitle is a heading's title without its hashes, number and
// appendix name.
func bareTitle(t string) string {
	t = HeadingTitle(t)
	if m := numberedRE.FindStringSubmatch(t); m != nil {
		t = m[3]
	}
	return appendixNameRE.ReplaceAllString(t, "")
}

// leadsInformative reports whether a section's first lines say it is
// informative.
func leadsInformative(lines []string, h outlined) bool {
	return informativeLeadRE.MatchString(firstText(lines, h))
}

// firstText is the first paragraph under a heading, within its section
// and a few lines.
func firstText(lines []string, h outlined) string {
	var b []string
	for i := h.line + 1; i < h.end && i < h.line+8; i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || isMarker(t) {
			if len(b) > 0 {
				break
			}
			continue
		}
		b = append(b, t)
	}
	return strings.Join(b, " ")
}

// restatements tells, for each section of the outline, whether it
// restates the body: most of its statements with a normative keyword
// stand, word for word, before it (ids in brackets aside). It says how
// many, or "".
func restatements(lines []string, outline []outlined) []string {
	out := make([]string, len(outline))
	if len(outline) == 0 {
		return out
	}
	// The keyword statements of each line range, normalised, by line.
	firstSeen := map[string]int{} // statement → the line it first stands on
	type stmt struct {
		key  string
		line int
	}
	var stmts []stmt
	para, paraLine := []string{}, 0
	flush := func() {
		text := strings.Join(para, " ")
		para = para[:0]
		for _, sp := range Sentences(text, SentenceOptions{}) {
			s := text[sp.Start:sp.End]
			if !tagCueRE.MatchString(s) {
				continue
			}
			key := strings.TrimSpace(normalizedRE.ReplaceAllString(strings.ToLower(tagRE.ReplaceAllString(s, " ")), " "))
			if len(strings.Fields(key)) < 5 {
				continue
			}
			if _, ok := firstSeen[key]; !ok {
				firstSeen[key] = paraLine
			}
			stmts = append(stmts, stmt{key, paraLine})
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || isMarker(t) {
			if len(para) > 0 {
				flush()
			}
			continue
		}
		if len(para) == 0 {
			paraLine = i
		}
		// A tag opening a line starts a statement of its own (a row of a
		// summary table).
		if len(para) > 0 && strings.HasPrefix(t, "[") && tagRE.MatchString(t[:min(len(t), 40)]) {
			flush()
			paraLine = i
		}
		para = append(para, t)
	}
	if len(para) > 0 {
		flush()
	}
	for k, h := range outline {
		if h.level > 1 {
			continue // a summary restates a whole body, as a part of its own
		}
		total, before := 0, 0
		for _, s := range stmts {
			if s.line <= h.line || s.line >= h.end {
				continue
			}
			total++
			if firstSeen[s.key] < h.line {
				before++
			}
		}
		if total >= minRestated && float64(before) >= restatedShare*float64(total) {
			out[k] = "it restates the body: " + strconv.Itoa(before) + " of its " + strconv.Itoa(total) + " statements stand before it word for word"
		}
	}
	return out
}
