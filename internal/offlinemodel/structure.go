package offlinemodel

import (
	"fmt"
	"regexp"
	"strings"

	"creator/internal/requirement"
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
	// A label on a line of its own: one to five capitalised words.
	labelLineRE = regexp.MustCompile(`^[A-Z][A-Za-z]+(?: [A-Z][A-Za-z]+){0,4}$`)
	// A heading that starts a new control or requirement ("AC-2 ACCOUNT
	// MANAGEMENT", "3.1 ACCESS CONTROL") ends the block before it.
	catalogHeadingRE = regexp.MustCompile(`^(?:[A-Z]{2,4}-\d{1,3}(?:\(\d{1,2}\))?|\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+[A-Z][A-Z0-9 ,/()&'-]{3,}$`)
	// Items of a normative block: "a. ", "(1) ", "3.1.1 ", "AC-2(1) ".
	letterItemRE = regexp.MustCompile(`^[a-z]\.\s+\S`)
	numberItemRE = regexp.MustCompile(`^\(\d{1,2}\)\s+\S`)
	clauseItemRE = regexp.MustCompile(`^\d{1,2}(?:\.\d{1,2}){1,3}\.?\s+\S`)
	// A sub-item of an item: "(a) ", "(iv) ", "1. ".
	subItemRE = regexp.MustCompile(`^(?:\((?:[a-z]|[ivx]{1,4})\)|\d{1,2}\.|[-•–])\s+\S`)
	// A control's numbered title in ordinary case ("5.1 Policies for
	// information security"): it names the control whose statement
	// follows, and ends the guidance of the control before it.
	controlTitleRE = regexp.MustCompile(`^(\d{1,2}\.\d{1,2})\s+[A-Z][a-z]+(?:[ -][A-Za-z]+){0,10}$`)
	// An enhancement's title: the control's name and its own in capitals,
	// parted by a bar ("ACCOUNT MANAGEMENT | AUTOMATED SYSTEM ACCOUNT
	// MANAGEMENT"), over the enhancement's statement.
	enhancementTitleRE = regexp.MustCompile(`^[A-Z][A-Z0-9 ,/()&'-]*\|[A-Z0-9 ,/()&'|-]+$`)
	// A title: capitalised words (small words aside), no full stop.
	titleRE = regexp.MustCompile(`^[A-Z][\w'-]*(?:\s+(?:[A-Z][\w'-]*|a|an|the|of|and|or|for|to|in|on|with))*$`)
	// A label that stands for one statement: a control's own ("Control"
	// on a line of its own), not a section or a column of requirements.
	statementLabelRE = regexp.MustCompile(`^Control(?: [Ss]tatement)?$`)
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
	informativeLabelRE = regexp.MustCompile(`(?i)\b(guidance|discussion|notes?|rationale|examples?|references?|priority|baselines?|related|sources?|background|purpose|scope|other information|non[- ]?normative|informative)\b`)
	// A line that labels what follows as informative, in any case: "Non
	// normative comment", "Informative note".
	bulletRE          = regexp.MustCompile(`^[-*•◦▪–]\s+`)
	informativeLineRE = regexp.MustCompile(`(?i)^(?:non[- ]?normative|informative)(?: [a-z]+){0,3}$`)
	// An aside's title on a line of its own ("Note", "Example 3",
	// "Editor's note"): it speaks for its paragraph, not for the text
	// after it.
	asideLineRE      = regexp.MustCompile(`(?i)^(?:[\w']+ )?(?:notes?|examples?|tips?|warnings?|cautions?|hints?)(?: \d{1,3})?$`)
	normativeLabelRE = regexp.MustCompile(`(?i)\b(controls?|requirements?|enhancements?|statements?|obligations?)\b`)
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
	start, end int  // byte range in the text, the label included
	body       int  // where the text after the label starts
	lineLabel  bool // the label stood on a line of its own
	content    bool // a line of text followed the label
	label      string
	// control is the id of the control the block belongs to ("AC-2",
	// "5.1"), from the heading before it, or "".
	control string
	// bullet: the label led a bulleted item ("- Note: …"), one of a list
	// of an item's particulars.
	bullet bool
}

// noteLabelRE is a note's label.
var noteLabelRE = regexp.MustCompile(`(?i)^notes?$`)

// keywordNotes makes the notes of a document of upper-case keywords that
// does not declare its notes non-normative neutral, to be read by their
// keywords: in such a document "Note: … MAY be interleaved" states a
// permission. A note among an item's bulleted particulars stays context.
func keywordNotes(bs []block, p profile) []block {
	if !p.UpperOnly || p.Asides != "" {
		return bs
	}
	for i, b := range bs {
		if b.kind == informative && !b.bullet && !b.lineLabel && noteLabelRE.MatchString(b.label) {
			bs[i].kind = neutral
		}
	}
	return bs
}

// blocks cuts text into labelled blocks. Text before the first label, or
// after a heading, is neutral. Guidance between the items of a normative
// block ("(1) …", guidance on it, "(2) …") ends at the next item, where the
// normative block goes on.
func blocks(text string) []block {
	return blocksFrom(text, "")
}

// blocksFrom is blocks for a chunk that starts inside the control
// named: items at its start ("(16) The information system …", "c. …")
// go on the control's statements from the chunk before, as items of a
// normative block.
func blocksFrom(text, control string) []block {
	c := blockCutter{cur: block{kind: neutral}, control: control}
	if control != "" {
		if first := strings.TrimSpace(text); itemKind(first) != nil {
			c.cur = block{kind: normative, control: control, content: true, label: "(continued)"}
			c.marker = itemKind(first)
		}
	}
	pos := 0
	blank := false // the line before was blank
	for _, line := range strings.SplitAfter(text, "\n") {
		if strings.TrimSpace(line) == "" {
			blank = true
			pos += len(line)
			continue
		}
		c.line(line, pos, blank)
		blank = false
		if pos >= c.cur.body && pos > c.cur.start {
			c.cur.content = true
		}
		pos += len(line)
	}
	c.cur.end = len(text)
	return keptBlocks(text, append(c.out, c.cur))
}

// blockCutter is blocksFrom's state as it goes down the lines.
type blockCutter struct {
	out     []block        // the blocks ended so far
	cur     block          // the block the line is in
	control string         // the chunk's control, then that of the latest control heading or title
	marker  *regexp.Regexp // the item marker of the latest normative block
}

// next ends the current block at pos and goes on in b.
func (c *blockCutter) next(pos int, b block) {
	c.cur.end = pos
	c.out = append(c.out, c.cur)
	c.cur = b
}

// line reads a line that is not blank, at pos; after says a blank line
// came before it.
func (c *blockCutter) line(line string, pos int, after bool) {
	trimmed := strings.TrimSpace(line)
	lead := len(line) - len(strings.TrimLeft(line, " \t"))
	item := guidanceBullet(trimmed)
	switch {
	case mdHeadingRE.MatchString(trimmed):
		// A Markdown heading ends the block before it.
		c.next(pos, block{kind: neutral, start: pos, body: pos, control: c.control})
		c.marker = nil
	case labelRE.MatchString(trimmed[item:]):
		c.next(pos, labelBlock(trimmed, pos, lead, item, c.control))
		if c.cur.kind == normative {
			c.marker = nil
		}
	case labelLineRE.MatchString(trimmed) && labelKind(trimmed) != neutral || informativeLineRE.MatchString(trimmed) || asideLineRE.MatchString(trimmed):
		// A label on a line of its own ("Basic Security Requirements",
		// "Discussion"): the block starts on the next line. One that
		// says "non-normative" speaks for its paragraph only ("Non
		// normative comment" between statements).
		c.next(pos, block{kind: labelKind(trimmed), start: pos, body: pos + len(line), label: trimmed, control: c.control,
			lineLabel: !informativeLineRE.MatchString(trimmed) && !asideLineRE.MatchString(trimmed)})
		c.marker = nil
	case catalogHeadingRE.MatchString(trimmed):
		c.control = strings.TrimSuffix(strings.Fields(trimmed)[0], ".")
		c.next(pos, block{kind: neutral, start: pos + len(line), body: pos + len(line), control: c.control})
		c.marker = nil
	case controlTitleRE.MatchString(trimmed) && (c.cur.kind != normative || c.marker == nil):
		// A control's title in ordinary case ends the guidance under
		// a label line before it, which goes on over paragraphs, and a
		// block that has no items yet (a title such as "Security
		// Controls: A Guide" is no label of items).
		c.control = controlTitleRE.FindStringSubmatch(trimmed)[1]
		c.next(pos, block{kind: neutral, start: pos, body: pos, control: c.control})
		c.marker = nil
	case c.cur.kind == normative && c.marker == nil:
		c.marker = itemKind(trimmed)
	case c.cur.kind == informative && c.marker != nil && c.marker.MatchString(trimmed):
		c.next(pos, block{kind: normative, start: pos, body: pos + lead, control: c.control})
	case after && c.cur.content && c.cur.kind != neutral && (c.cur.kind == informative && !c.cur.lineLabel || c.cur.kind == normative && itemKind(trimmed) == nil && !subItemRE.MatchString(trimmed)):
		// A label speaks for its paragraph, and a normative one for the
		// items that follow it; a paragraph after them is on its own
		// (a definition list's "Notes:" entry ends at its paragraph).
		c.next(pos, block{kind: neutral, start: pos, body: pos, control: c.control})
	}
}

// guidanceBullet is the length of the bullet before a guidance label
// ("- Note: …", "- Rationale: …"), whose item is labelled as a line is;
// 0 for other lines and items (numbered and lettered items are
// statements).
func guidanceBullet(trimmed string) int {
	item := len(bulletRE.FindString(trimmed))
	if m := labelRE.FindStringSubmatch(trimmed[item:]); item > 0 && (m == nil || labelKind(m[1]) != informative) {
		return 0 // only guidance is labelled in an item
	}
	return item
}

// labelBlock is the block a label opens on the line trimmed at pos, lead
// its indentation and item the length of the bullet before the label.
func labelBlock(trimmed string, pos, lead, item int, control string) block {
	label := labelRE.FindStringSubmatch(trimmed[item:])
	b := block{kind: labelKind(label[1]), start: pos, body: pos + lead + item + len(label[1]) + 1,
		content: strings.TrimSpace(trimmed[item+len(label[0]):]) != "", label: label[1], control: control, bullet: item > 0}
	if b.kind == normative && titleRE.MatchString(strings.TrimSpace(trimmed[len(label[0]):])) {
		// A document's title and subtitle ("Security Controls: A
		// Practical Guide") are no label.
		b.kind = neutral
	}
	return b
}

// keptBlocks are the blocks that hold text, a label line over plain
// prose made neutral.
func keptBlocks(text string, bs []block) []block {
	var kept []block
	for _, b := range bs {
		if b.end <= b.start {
			continue
		}
		// A heading such as "Requirements" over plain prose: its
		// sentences are read by their cues.
		// A control's own label ("Control") stands for its one statement.
		if b.kind == normative && b.lineLabel && !hasItems(text[b.body:b.end]) && !statementLabelRE.MatchString(b.label) {
			b.kind = neutral
		}
		kept = append(kept, b)
	}
	return kept
}

func hasItems(body string) bool {
	for _, line := range strings.Split(body, "\n") {
		if itemKind(strings.TrimLeft(line, " \t")) != nil {
			return true
		}
	}
	return false
}

// items returns the statements of a normative block with their quotes
// (the finding is the caller's): each lettered or numbered item (with its
// sub-items), or the block's statement when it has no items. A lead-in
// that ends in a colon introduces the items and is not one; withdrawn
// items and one-word remarks ("None.") are left out.
func items(text string, b block) []found {
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
	var out []found
	add := func(from, to int) {
		raw := strings.TrimSpace(body[from:to])
		start := b.body + from + leadSpace(body[from:to])
		if marker != nil {
			if m := itemMarkerRE.FindString(raw); m != "" {
				raw, start = raw[len(m):], start+len(m)
			}
		}
		// An enhancement's title in capitals is not its statement: the
		// lines after it are.
		if first, rest, ok := strings.Cut(raw, "\n"); ok && enhancementTitleRE.MatchString(strings.TrimSpace(first)) {
			lead := len(first) + 1 + leadSpace(rest)
			raw, start = strings.TrimSpace(raw[lead:]), start+lead
		} else if enhancementTitleRE.MatchString(strings.TrimSpace(raw)) {
			return
		}
		id := itemID(b.control, marker, strings.TrimSpace(body[from:to]))
		if lead, bullets := bulletParts(raw); len(bullets) > 0 && len(strings.Fields(raw)) > maxItemWords {
			// "a. Develops a plan that: - Is consistent with …; - Defines
			// …", too long for one requirement: the lead-in and each
			// bullet, which continues it.
			out = append(out, found{s: sentence{text: lead.text, start: start + lead.start}, quote: requirement.Clean(lead.text), id: id})
			for k, bl := range bullets {
				x := found{s: sentence{text: bl.text, start: start + bl.start}, quote: requirement.Clean(bl.text), id: fmt.Sprintf("%s.%d", id, k+1)}
				x.more = []string{requirement.Clean(lead.text)}
				out = append(out, x)
			}
			return
		}
		s := sentence{text: raw, start: start}
		q := requirement.Clean(s.text)
		if len(strings.Fields(q)) < 3 || strings.Contains(q, "[Withdrawn") || strings.HasSuffix(q, ":") {
			return
		}
		out = append(out, found{s: s, quote: q, id: id})
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

// maxItemWords is the longest item kept as one requirement when it has
// bullets: a longer one states several.
const maxItemWords = 60

// itemBulletRE is a bullet that goes on an item's lead-in.
var itemBulletRE = regexp.MustCompile(`(?m)^[ \t]*[-•–][ \t]+\S`)

// bulletParts splits an item whose lead-in ends in a colon into the
// lead-in and its bullets ("- Is consistent with …"), each a part of the
// item's text with its place; none when the item has no such bullets.
func bulletParts(item string) (lead sentence, bullets []sentence) {
	locs := itemBulletRE.FindAllStringIndex(item, -1)
	if len(locs) < 2 {
		return sentence{}, nil
	}
	head := strings.TrimSpace(item[:locs[0][0]])
	if !strings.HasSuffix(head, ":") || len(strings.Fields(head)) < 3 {
		return sentence{}, nil
	}
	lead = sentence{text: head, start: 0}
	for i, l := range locs {
		end := len(item)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		part := item[l[0]:end]
		marker := len(part) - len(strings.TrimLeft(strings.TrimLeft(strings.TrimLeft(part, " \t"), "-•–"), " \t"))
		text := strings.TrimSpace(part[marker:])
		if len(strings.Fields(text)) < 2 {
			continue
		}
		bullets = append(bullets, sentence{text: text, start: l[0] + marker})
	}
	return lead, bullets
}

// itemID is the id of an item of a control's block: its clause number,
// else the control's id with the item's letter ("AC-2.a") or number
// ("AC-2(1)"), or the control's id for its one statement.
func itemID(control string, marker *regexp.Regexp, item string) string {
	if id := clauseID(marker, item); id != "" || control == "" {
		return id
	}
	m := strings.TrimSpace(itemMarkerRE.FindString(item))
	switch marker {
	case letterItemRE:
		return control + "." + strings.TrimSuffix(m, ".")
	case numberItemRE:
		return control + m
	}
	return control
}

// clauseID is the number of a numbered clause ("3.1.1 The system …" is
// 3.1.1), the document's id of the item; letters and bracketed numbers
// ("a.", "(1)") only count the items of their block, and give none.
func clauseID(marker *regexp.Regexp, item string) string {
	if marker != clauseItemRE {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSpace(itemMarkerRE.FindString(item)), ".")
}

func leadSpace(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t\n"))
}

// Requirement tables give each requirement an identifier ("FR-A1", "W06",
// "H01", "REQ-12", "SR-1.2") at the start of its row, often without a full
// stop. A row is a requirement when its text reads like a sentence: four
// words or more, one of them lower-case (a table of contents or a baseline
// table of control names is not).
var (
	rowIDRE    = regexp.MustCompile(`^([A-Z]{1,5}(?:[-_.][A-Z]{1,3})?[-_.]?\d{1,4}(?:\.\d{1,3})*[a-z]?)[ \t]+(\S.*)$`)
	lowerWord  = regexp.MustCompile(`(?:^|\s)\p{Ll}\p{L}{2,}`)
	leaderDots = regexp.MustCompile(`\.{4,}|…{2,}`)
)

// idRow is a row of a requirements table: its text after the identifier,
// that text as a quote, and where its line starts.
type idRow struct {
	sentence
	quote string
	line  int
	id    string // the row's identifier: its source_id
}

// idRows returns the rows with an identifier in text[from:to], each with
// the lines that continue it (up to a blank line, the next row or a label).
func idRows(text string, from, to int) []idRow {
	var out []idRow
	var cur *idRow
	pos := from
	flush := func() {
		if cur != nil {
			cur.text = strings.TrimSpace(cur.text)
			cur.quote = requirement.Clean(cur.text)
			if q := cur.quote; len(strings.Fields(q)) >= 4 && lowerWord.MatchString(q) && !leaderDots.MatchString(q) {
				out = append(out, *cur)
			}
			cur = nil
		}
	}
	for _, line := range strings.SplitAfter(text[from:to], "\n") {
		trimmed := strings.TrimSpace(line)
		lead := len(line) - len(strings.TrimLeft(line, " \t"))
		switch m := rowIDRE.FindStringSubmatchIndex(trimmed); {
		case m != nil:
			flush()
			cur = &idRow{sentence: sentence{text: trimmed[m[4]:], start: pos + lead + m[4]}, line: pos, id: trimmed[m[2]:m[3]]}
		case trimmed == "" || labelRE.MatchString(trimmed) || catalogHeadingRE.MatchString(trimmed):
			flush()
		case cur != nil:
			cur.text += "\n" + line[:len(strings.TrimRight(line, "\n"))]
		}
		pos += len(line)
	}
	flush()
	return out
}

// What makes a row of a requirements table a statement of what is to be
// done, without a normative cue: a capability ("can", "is able to"), a
// commitment ("will", "is to"), or an imperative verb at its start
// ("Display the order status", "Limit system access").
var (
	rowModalRE   = regexp.MustCompile(`(?i)\b(can|will|is able to|are able to|is to|are to)\b`)
	imperativeRE = regexp.MustCompile(`(?i)^(accept|allow|alert|archive|audit|authenticate|authorize|back up|calculate|check|collect|configure|control|create|delete|deny|detect|disable|display|document|enable|encrypt|enforce|ensure|establish|export|generate|identify|implement|import|include|inform|keep|limit|lock|log|maintain|manage|monitor|notify|permit|prevent|print|produce|protect|provide|record|reject|remove|report|require|restrict|retain|review|revoke|run|save|send|show|sign|store|support|terminate|track|update|use|validate|verify)\b`)
)

// rowStatesDuty reports whether a row's text, which has no normative cue,
// still states what is to be done.
func rowStatesDuty(quote string) bool {
	return rowModalRE.MatchString(quote) || imperativeRE.MatchString(quote)
}
