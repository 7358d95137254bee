package offlinemodel

import (
	"strings"

	"creator/internal/requirement"
)

// Prose: requirements are sentences with a normative cue (by the
// document's keyword convention), the statements of labelled normative
// blocks ("Control:", "Requirements:"), the rows of requirement tables,
// and the statements the document's tags close; labelled guidance
// ("Note:", "Discussion:") is context.
const shapeProse = "prose"

var proseShape = shape{
	name:    shapeProse,
	detect:  func(string) bool { return true },
	extract: proseFindings,
}

// proseFindings reads a chunk of prose: requirement tables (other tables
// hold no sentences), normative blocks, rows with identifiers, tagged
// statements and the sentences with a cue elsewhere.
func proseFindings(c chunkRead, p profile) []found {
	return proseFindingsIn(c, p, "")
}

// proseFindingsIn is proseFindings for a chunk that starts inside the
// control named ("" for none).
func proseFindingsIn(c chunkRead, p profile, control string) []found {
	all, body := requirementTables(c.body, nil, true)
	fields, fieldSpans := fieldItems(body, p)
	all = append(all, fields...)
	body = masked(body, fieldSpans)
	bs := keywordNotes(blocksFrom(body, control), p)
	all = append(all, blockStatements(body, bs)...)
	rows, rowSpans := tableRows(body, bs, p)
	all = append(all, rows...)
	tagged, tagSpans := taggedStatements(body, bs, p)
	all = append(all, tagged...)
	return append(all, cueSentences(body, bs, append(rowSpans, tagSpans...), p)...)
}

// blockStatements are the items of the normative blocks: obligations
// whatever their verb.
func blockStatements(text string, bs []block) []found {
	var out []found
	for _, b := range bs {
		if b.kind != normative {
			continue
		}
		for _, x := range items(text, b) {
			x.f = finding{kind: "obligation", cue: "a statement of a normative block", confidence: 0.8, strong: true,
				note: "a statement under a requirement or control label, an obligation whatever its verb"}
			out = append(out, x)
		}
	}
	return out
}

// tableRows are the rows of requirement tables in the neutral blocks, and
// the spans of their lines. A document of upper-case keywords marks its
// rows with them, so there the sentences speak for themselves.
func tableRows(text string, bs []block, p profile) ([]found, []span) {
	if p.UpperOnly {
		return nil, nil
	}
	var out []found
	var spans []span
	for _, b := range bs {
		if b.kind != neutral {
			continue
		}
		for _, row := range idRows(text, b.start, b.end) {
			quote := row.quote
			f, ok := classify(quote, false)
			if !ok {
				if !rowStatesDuty(quote) {
					continue // a table of names: "Access Control for Mobile Devices"
				}
				f = finding{kind: "obligation", cue: "a row with an identifier", confidence: 0.7,
					note: "a row of a requirements table with its own identifier, an obligation whatever its verb"}
			}
			spans = append(spans, span{row.line, row.start + len(row.text)})
			out = append(out, found{s: row.sentence, quote: quote, f: f, id: row.id})
		}
	}
	return out, spans
}

// cueSentences are the sentences of the neutral blocks, outside table
// rows, that carry a normative cue. A run of text before a table ends
// where its first row begins; a run too long for one sentence is read in
// parts.
func cueSentences(text string, bs []block, rows []span, p profile) []found {
	var out []found
	for _, whole := range p.splitAtPrefixIDs(sentences(text)) {
		if kindAt(bs, whole.start) != neutral || inAny(rows, whole.start) {
			continue
		}
		for _, r := range rows {
			if r.from > whole.start && r.from < whole.start+len(whole.text) {
				whole.text = strings.TrimSpace(whole.text[:r.from-whole.start])
				break
			}
		}
		for _, s := range splitLong(whole, maxSentence) {
			s = stripLead(s)
			quote := requirement.Clean(s.text)
			if f, ok := classify(quote, p.UpperOnly); ok {
				x := found{s: s, quote: quote, f: f}
				withLeadIn(text, &x)
				out = append(out, x)
			}
		}
	}
	return out
}
