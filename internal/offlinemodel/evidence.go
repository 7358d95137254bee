package offlinemodel

import (
	"regexp"
	"strings"
	"unicode"

	"creator/internal/document"
)

// The evidence the document layer found in the whole document (the
// profile's Keywords, Ids and Informative fields) applies to every
// shape: a requirement never stands in a part the document marks
// informative, it carries the document's own id where the document gives
// one in a role of its schemes, and its rationale says which evidence
// made it a requirement.

// informativePart is the informative part a section path lies in, if
// any: the path, or one of the sections above, is one the evidence names.
func (p profile) informativePart(section string) (document.Part, bool) {
	if len(p.Informative) == 0 || section == "" {
		return document.Part{}, false
	}
	for _, title := range document.SplitSectionPath(section) {
		for _, part := range p.Informative {
			if part.Title == title {
				return part, true
			}
		}
	}
	return document.Part{}, false
}

// schemes are the id schemes of a role, compiled. A tag matches its
// scheme's pattern, or, mistyped ("MQTT-3.3.1.-1"), starts with the
// letters every id of the scheme starts with and has a digit after them.
func (p profile) schemes(role string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range p.IDSchemes {
		if s.Role != role {
			continue
		}
		pattern := s.Pattern
		if prefix := s.Prefix(); role == document.RoleTag && len(prefix) >= 2 && strings.IndexFunc(prefix, unicode.IsLetter) >= 0 {
			pattern += `|` + regexp.QuoteMeta(prefix) + `[A-Za-z0-9._-]*\d[A-Za-z0-9._-]*`
		}
		if re, err := regexp.Compile(`^(?:` + pattern + `)$`); err == nil {
			out = append(out, re)
		}
	}
	return out
}

func matchesAny(res []*regexp.Regexp, id string) bool {
	for _, re := range res {
		if re.MatchString(id) {
			return true
		}
	}
	return false
}

var (
	// A bracketed id in a quote, and the punctuation that may follow the
	// last one at the end of a statement.
	// A tag may break at a hyphen or dot over two lines ("[MQTT-\n3.1.0-1]").
	bracketIDRE = regexp.MustCompile(`[\[(]([A-Za-z0-9][A-Za-z0-9._-]*(?:[-.][ \t]*\n[ \t]*[A-Za-z0-9._-]+)?)[\])]`)
	// An id at the start of a line or list item and its separator.
	leadIDRE = regexp.MustCompile(`^([A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)*)(\s*[:–—)]\s*|\s+[-–—]\s+|\.\s+|\t+)`)
)

// applyEvidence gives a found requirement the document's own id by the
// profile's schemes, when its rule gave none: the tags that close its
// statement (taken off the quote's end), the id that leads its line, the
// id of the nearest heading of its section. An id a table's cell gave
// that cannot be an id (a number, a code) is dropped. It returns false
// for a requirement in an informative part.
func (p profile) applyEvidence(x *found, section string) bool {
	if _, ok := p.informativePart(section); ok {
		return false
	}
	if x.fromTable && x.id != "" && !plausibleID(x.id) {
		x.id = ""
	}
	if x.id != "" {
		return true
	}
	if tags := p.schemes(document.RoleTag); len(tags) > 0 {
		var ids []string
		cut := -1
		for _, m := range bracketIDRE.FindAllStringSubmatchIndex(x.quote, -1) {
			if id := bracketID(x.quote[m[2]:m[3]]); matchesAny(tags, id) {
				ids = append(ids, id)
				if cut < 0 && strings.Trim(tailAfterTags(x.quote[m[0]:], tags), " .,;") == "" {
					cut = m[0]
				}
			}
		}
		if len(ids) > 0 {
			x.id = ids[0]
			if len(ids) > 1 {
				x.setAttr("tags", strings.Join(ids, ", "))
			}
			if cut > 0 {
				x.quote = strings.TrimSpace(x.quote[:cut])
				x.s.text = x.quote
				if x.text != "" {
					x.text = x.quote
				}
			}
			x.evidence = append(x.evidence, "its id "+x.id+" is the tag that closes it, by the document's scheme of tags")
			return true
		}
	}
	if prefixes := p.schemes(document.RolePrefix); len(prefixes) > 0 {
		if m := leadIDRE.FindStringSubmatchIndex(x.quote); m != nil && matchesAny(prefixes, x.quote[m[2]:m[3]]) && m[1] < len(x.quote) {
			x.id = x.quote[m[2]:m[3]]
			x.quote = x.quote[m[1]:]
			x.s = sentence{text: x.s.text[min(m[1], len(x.s.text)):], start: x.s.start + m[1]}
			if x.text != "" && strings.HasPrefix(x.text, x.id) {
				x.text = strings.TrimSpace(x.text[m[1]:])
			}
			x.evidence = append(x.evidence, "its id "+x.id+" leads its line, by the document's scheme of list prefixes")
			return true
		}
	}
	if heads := p.schemes(document.RoleHeading); len(heads) > 0 {
		path := document.SplitSectionPath(section)
		for i := len(path) - 1; i >= 0; i-- {
			tok := leadToken(path[i])
			if tok != "" && matchesAny(heads, tok) {
				x.id = tok
				x.evidence = append(x.evidence, "its id "+x.id+" heads its section, by the document's scheme of headings")
				return true
			}
		}
	}
	return true
}

// bracketID is the id in brackets, without the line break a tag may
// have.
func bracketID(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// splitAtPrefixIDs cuts sentences where a line starts with an id of the
// document's list prefixes: "R1.4: Users must change passwords" does not
// go on over the next line "R2: Location Services", whatever its
// punctuation.
func (p profile) splitAtPrefixIDs(ss []sentence) []sentence {
	prefixes := p.schemes(document.RolePrefix)
	if len(prefixes) == 0 {
		return ss
	}
	var out []sentence
	for _, s := range ss {
		from := 0
		for i := strings.IndexByte(s.text, '\n'); i >= 0; {
			line := strings.TrimLeft(s.text[i+1:], " \t")
			if m := leadIDRE.FindStringSubmatch(line); m != nil && matchesAny(prefixes, m[1]) {
				at := len(s.text) - len(line)
				if part := strings.TrimSpace(s.text[from:i]); part != "" {
					out = append(out, sentence{text: part, start: s.start + from + leadSpace(s.text[from:i])})
				}
				from = at
			}
			next := strings.IndexByte(s.text[i+1:], '\n')
			if next < 0 {
				break
			}
			i += 1 + next
		}
		if part := strings.TrimSpace(s.text[from:]); part != "" {
			out = append(out, sentence{text: part, start: s.start + from + leadSpace(s.text[from:])})
		}
	}
	return out
}

// tailAfterTags is what follows a run of tags at the start of s.
func tailAfterTags(s string, tags []*regexp.Regexp) string {
	for {
		s = strings.TrimLeft(s, " ,;")
		s = strings.TrimPrefix(s, "and ")
		m := bracketIDRE.FindStringSubmatchIndex(s)
		if m == nil || m[0] != 0 || !matchesAny(tags, bracketID(s[m[2]:m[3]])) {
			return s
		}
		s = s[m[1]:]
	}
}

// leadToken is the id-like first word of a heading's title.
func leadToken(title string) string {
	f := strings.Fields(title)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimRight(f[0], ":.")
}

var hexIDRE = regexp.MustCompile(`^0[xX][0-9A-Fa-f]+$`)

// plausibleID reports whether a table cell's text can be a requirement's
// id: not a code (0x1A), which a table of codes gives its rows.
func plausibleID(id string) bool {
	return !hexIDRE.MatchString(id)
}
