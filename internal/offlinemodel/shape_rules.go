package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// Rule lists (STIGs, benchmarks): each rule has a title ("… must …")
// under a label ("Rule Title:") or in a table cell, then discussion, check
// text ("If …, this is a finding."), fix text and metadata lines (rule and
// group ids, severity, CCI), which state no requirement. Each rule's
// title is its requirement, its STIG id or rule version its source_id.
const shapeRules = "rule-list"

var ruleListShape = shape{
	name:         shapeRules,
	reason:       "a list of rules: each rule's title is its requirement; discussion, check and fix texts and metadata are context",
	detect:       isRuleList,
	extract:      func(c chunkRead, _ profile) []found { return ruleTitles(c.body) },
	layoutStates: true,
}

// isRuleList: rule titles with check texts ("this is a finding") or the
// metadata lines of rules.
func isRuleList(text string) bool {
	titles, findings, meta := 0, 0, 0
	for _, l := range profileLines(text) {
		if ruleTitleRE.MatchString(l) {
			titles++
		}
		if ruleMetaRE.MatchString(l) {
			meta++
		}
		findings += len(findingRE.FindAllString(l, -1))
	}
	return titles >= 2 && (findings >= 2 || meta >= 4) || findings >= 3 && meta >= 6
}

// A rule's title, under its label or in a table cell (a table row
// starts with a bar).
var ruleTitleRE = regexp.MustCompile(`^(?:\|[ \t]*)?(?i:rule[ \t]+title|title)[ \t]*(?::|\|)[ \t]*(\S.*)$`)

// The check text of a rule.
var findingRE = regexp.MustCompile(`(?i)\bthis is (?:a|not a) finding\b`)

// Metadata lines of a rule: "Group ID (Vulid): V-…", "Rule ID | SV-…",
// "Severity: CAT II", "CCI: CCI-000366".
var ruleMetaRE = regexp.MustCompile(`^(?:\|[ \t]*)?(?i:group[ \t]+id|group[ \t]+title|vuln(?:erability)?[ \t]+id|rule[ \t]+id|stig[ \t]+id|rule[ \t]+version|severity|cci|srg|check[ \t]+text|fix[ \t]+text|(?:vulnerability[ \t]+)?discussion)\b[^:|]{0,20}(?::|\||$)`)

// Identifiers and separators before a title in a heading.
var headingIDsRE = regexp.MustCompile(`^(?:[A-Z]{1,6}-[\w.-]*\d[\w.-]*[ \t]*[—–:|-]*[ \t]*)+`)

var modalRE = regexp.MustCompile(`\b(?:must|shall|should)\b`)

// ruleMetaNameRE names the metadata a rule's record keeps: its id (the
// STIG id or rule version, which the rule is known by) as source_id, the
// others as attributes.
var ruleMetaNameRE = regexp.MustCompile(`(?i)^(?:(stig[ \t]+id|rule[ \t]+version)|(severity)|(rule[ \t]+id)|(group[ \t]+id|vuln(?:erability)?[ \t]+id))\b`)

// ruleMeta reads a metadata line of a rule ("Severity: CAT II", "Rule
// Version (STIG-ID) | RHEL-09-211010") as a name and its value; ok is
// false for the lines kept as neither (discussion, check text, CCI).
func ruleMeta(line string) (name, value string, ok bool) {
	line = strings.TrimSpace(strings.TrimPrefix(line, "|")) // a table row
	g := ruleMetaNameRE.FindStringSubmatch(line)
	if g == nil {
		return "", "", false
	}
	i := strings.IndexAny(line, ":|")
	if i < 0 {
		return "", "", false
	}
	value = strings.TrimSpace(strings.Trim(strings.TrimSpace(line[i+1:]), "|"))
	if value == "" || len(value) > 100 {
		return "", "", false
	}
	switch {
	case g[1] != "":
		return "id", value, true
	case g[2] != "":
		return "severity", value, true
	case g[3] != "":
		return "rule_id", value, true
	}
	return "group_id", value, true
}

// ruleTitles are the titles of the rules in a chunk of a rule list: the
// text after a "Rule Title:" label (or in its table cell) up to a blank
// line or the next label, or a heading that states a duty.
func ruleTitles(text string) []found {
	var out []found
	var cur []span
	// meta are the metadata lines of the rule before its title: its id
	// and its other columns.
	id, attrs := "", map[string]string{}
	flush := func() {
		if len(cur) == 0 {
			return
		}
		s := sentence{text: strings.TrimSpace(text[cur[0].from:cur[len(cur)-1].to]), start: cur[0].from}
		cur = nil
		q := requirement.Clean(s.text)
		// The metadata belong to this rule, kept or not: never the next.
		ruleID, ruleAttrs := id, attrs
		id, attrs = "", map[string]string{}
		if len(strings.Fields(q)) < 3 {
			return
		}
		out = append(out, found{s: s, quote: q, text: q, id: ruleID, attrs: ruleAttrs,
			f: shapeFinding(q, "a rule's title", "the title of a rule in a rule list, which states the rule")})
	}
	for _, l := range chunkLines(text) {
		trimmed, from, to := l.text, l.from, l.to
		if _, marker := document.ParsePageMarker(trimmed); marker {
			continue
		}
		switch m := ruleTitleRE.FindStringSubmatchIndex(trimmed); {
		case m != nil:
			flush()
			cur = []span{{from + m[2], to}}
			if strings.Contains(trimmed[:m[2]], "|") {
				// A table cell: the title ends with its row.
				cur[0].to = from + m[2] + len(strings.TrimSpace(strings.Split(trimmed[m[2]:], "|")[0]))
				flush()
			}
		case mdHeadingRE.MatchString(trimmed):
			// A heading that holds a rule's title: "## SV-1234 RHEL
			// must …".
			flush()
			at := mdHeadingRE.FindStringSubmatchIndex(trimmed)[4] // the title
			title := trimmed[at:]
			skip := len(headingIDsRE.FindString(title))
			if modalRE.MatchString(title[skip:]) {
				cur = []span{{from + at + skip, to}}
				flush()
			}
		case ruleMetaRE.MatchString(trimmed):
			flush()
			if name, value, ok := ruleMeta(trimmed); ok {
				if name == "id" {
					id = value
				} else {
					attrs[name] = value
				}
			}
		case trimmed == "" || labelRE.MatchString(trimmed):
			flush()
		case cur != nil:
			cur = append(cur, span{from, to})
		}
	}
	flush()
	return out
}
