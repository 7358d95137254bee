package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/requirement"
)

// An item under a heading with its id ("### NFR-PF-001") often gives its
// particulars as fields, one a line: "Category: Performance",
// "Description: The map view shall …", "Measurable Metric: …". That is
// one requirement: its statement field is the quote and the others are
// its attributes, under their labels; the id is the heading's.

var (
	// A field: a label of one to four words and a colon, then its value;
	// as a line or a bulleted item.
	fieldLineRE = regexp.MustCompile(`^(?:[-*•]\s+)?([A-Z][A-Za-z]*(?:[ /-][A-Za-z]+){0,3})\s*:\s+(\S.*)$`)
	// The label of the field that states the requirement.
	statementFieldRE = regexp.MustCompile(`(?i)^(?:description|requirement|requirement text|statement|text|specification|the requirement)$`)
	// headingIDRE is an id that heads a heading's title: letters or
	// digits with a digit, joined by - . _ ("NFR-PF-001", "AB.CDE.1.1v2").
	// sectionIDRE is a section's number: digits, or an appendix
	// letter, with dots ("4.1.2", "A.3").
	sectionIDRE = regexp.MustCompile(`^(?:\d+|[A-Z])(?:\.\d+)*\.?$`)
	headingIDRE = regexp.MustCompile(`^#{1,6}[ \t]+([A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)+|[A-Za-z]+\d[A-Za-z0-9]*)(?:[ \t:–—-]|$)`)
)

// fieldItems finds the field lists that stand directly under a heading
// with an id: each is one requirement, and its span is read by no other
// rule. A list needs two fields or more, one of them a statement (its
// label names one, or else the longest value that is a sentence).
func fieldItems(text string, p profile) (out []found, spans []span) {
	lines := chunkLines(text)
	for i := 0; i < len(lines); i++ {
		m := headingIDRE.FindStringSubmatch(lines[i].text)
		if m == nil || !strings.ContainsAny(m[1], "0123456789") || sectionIDRE.MatchString(m[1]) {
			continue // no id, or a section's number ("### 1.3 Definitions")
		}
		j := i + 1
		for j < len(lines) && lines[j].text == "" {
			j++
		}
		type field struct {
			label, value string
			at           int
		}
		var fields []field
		k := j
		for ; k < len(lines); k++ {
			f := fieldLineRE.FindStringSubmatchIndex(lines[k].text)
			if f == nil {
				break
			}
			l := lines[k]
			fields = append(fields, field{l.text[f[2]:f[3]], l.text[f[4]:f[5]], l.from + f[4]})
		}
		if len(fields) < 2 {
			continue
		}
		best := -1
		for n, f := range fields {
			if statementFieldRE.MatchString(f.label) {
				best = n
				break
			}
		}
		if best < 0 {
			for n, f := range fields {
				if statement(f.value) && (best < 0 || len(f.value) > len(fields[best].value)) {
					best = n
				}
			}
		}
		if best < 0 || !statement(fields[best].value) {
			continue
		}
		st := fields[best]
		q := requirement.Clean(st.value)
		f, ok := classify(q, p.UpperOnly)
		if !ok {
			f = finding{kind: "obligation", cue: "the statement of an item with its id", confidence: 0.75, strong: true,
				note: "the statement field of an item under a heading with its own id, a requirement whatever its verb"}
		}
		x := found{s: sentence{text: st.value, start: st.at}, quote: q, text: q, f: f, id: m[1]}
		for n, fl := range fields {
			if n != best {
				x.setAttr(attrName(fl.label, n), fl.value)
			}
		}
		x.evidence = append(x.evidence, "its id "+m[1]+" heads it, its other fields are its attributes")
		out = append(out, x)
		// The heading too: its id is the item's, and its title no statement.
		spans = append(spans, span{lines[i].from, lines[k-1].to})
		i = k - 1
	}
	return out, spans
}
