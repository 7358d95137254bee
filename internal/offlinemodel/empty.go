package offlinemodel

import (
	"regexp"
	"slices"
	"strings"

	"creator/internal/document"
	"creator/tools"
)

// A chunk that holds no requirement is declared empty with what it is,
// read from the chunk: the sections it belongs to or names (front matter,
// a table of contents, references, a glossary …), what most of its lines
// are (entries of a table of contents or of a list of references, dated
// changes, table cells), its labelled guidance, or else informative text.

// namedPart is a kind of section known by its name, as a heading or a
// line of its own.
type namedPart struct {
	re      *regexp.Regexp // matches the name, numbering taken off
	phrase  string         // what the reason calls it
	front   bool           // it belongs to a document's front matter
	heading bool           // known by a heading only: as a line, the name is a table's column
}

var namedParts = []namedPart{
	{re: regexp.MustCompile(`(?i)^(table of contents|contents|inhalt|inhaltsverzeichnis|list of (figures|tables|appendices))$`), phrase: "table of contents", front: true},
	{re: regexp.MustCompile(`(?i)^(abstract|executive summary|zusammenfassung)$`), phrase: "abstract", front: true},
	{re: regexp.MustCompile(`(?i)^(status of this memo|copyright notice|authority|disclaimer|notices?)$`), phrase: "notices", front: true},
	{re: regexp.MustCompile(`(?i)^(foreword|preface|vorwort)$`), phrase: "foreword", front: true},
	{re: regexp.MustCompile(`(?i)^(acknowledge?ments|contributors|authors'? addresses|danksagung)$`), phrase: "acknowledgements", front: true},
	{re: regexp.MustCompile(`(?i)^((normative|informative|general) )?(references|bibliography)$|^(literatur|quellen)(verzeichnis)?$`), phrase: "list of references"},
	{re: regexp.MustCompile(`(?i)^(glossary|definitions|(common )?terms and definitions|terminology|begriffsbestimmungen)$`), phrase: "glossary of terms"},
	{re: regexp.MustCompile(`(?i)^((common )?abbreviations|acronyms( and abbreviations)?|abkürzungen|abkürzungsverzeichnis)$`), phrase: "list of acronyms"},
	{re: regexp.MustCompile(`(?i)^(revision history|document history|change (log|history)|changelog|errata|record of changes|änderungshistorie)$`), phrase: "revision history"},
	{re: regexp.MustCompile(`(?i)^(index|stichwortverzeichnis)$`), phrase: "index of terms"},
	{re: regexp.MustCompile(`(?i)^(pseudocode|sample code|examples?)$`), phrase: "sample code", heading: true},
}

var (
	// Numbering before a section's name: "23.2.", "APPENDIX B", "Appendix A—".
	sectionNumberRE = regexp.MustCompile(`(?i)^(?:(?:appendix|annex|anhang|chapter|kapitel)\s+[A-Z0-9]{1,3}\b[.:—–-]*\s*|[A-Z]?\d{0,2}(?:\.\d{1,2})*\.?\s+)`)
	// An entry of a table of contents without leader dots: a numbered
	// title without a full stop ("12.2.  Coalescing Packets").
	tocEntryRE = regexp.MustCompile(`^(?:\d{1,2}(?:\.\d{1,2})*\.?|[A-Z]\.\d{1,2}(?:\.\d{1,2})*\.?|Appendix [A-Z]\.?)\s+[^.;:]+$`)
	// An entry of a list of references starts with its label or number.
	refEntryRE = regexp.MustCompile(`^(?:\[[^\]]{1,40}\]|\d{1,3}\.)\s+\S`)
	// Where a reference is published: a year, an address, an RFC, a DOI.
	publishedRE = regexp.MustCompile(`\b(?:19|20)\d\d\b|https?://|\bRFC ?\d{3,4}\b|\bDOI\b`)
	// A change dated at the start of its line: "05-01-2010 Editorial …".
	datedRE = regexp.MustCompile(`^\d{1,4}[-/.]\d{1,2}[-/.]\d{2,4}\s`)
	// A document that says a part of it is informative.
	informativeNoteRE = regexp.MustCompile(`(?i)\bthis (?:section|appendix|chapter|annex|part) is (?:informative|non-normative)\b`)
	lowerWordRE       = regexp.MustCompile(`^\p{Ll}`)
)

// emptyReason says what a chunk that holds no requirement is. p is its
// document's profile; opens is true for the first chunk of a document.
func emptyReason(c chunkRead, p profile, opens bool) string {
	return atLeastWords(describeChunk(c, p, opens))
}

// describeChunk names the chunk's parts, front matter first; a chunk
// without a known part is guidance, a marked informative section, a table,
// or informative text.
func describeChunk(c chunkRead, p profile, opens bool) string {
	lines := textLines(c.body)
	if len(lines) == 0 {
		return "blank: the chunk holds no text"
	}
	parts, front, at := chunkParts(c, lines)
	if c.heading == "" && front {
		if opens {
			parts = append([]string{"title page"}, parts...)
		}
		return "front matter: " + joinPhrases(parts)
	}
	if len(parts) > 0 {
		// Parts that start late in the chunk follow text of its section.
		if at > len(lines)/3 {
			parts = append([]string{"informative text"}, parts...)
		}
		return joinPhrases(parts)
	}
	if label, ok := guidanceLabel(c.body); ok {
		return label + " only: informative text"
	}
	switch {
	case informativeNoteRE.MatchString(c.body):
		return "informative section, as the document marks it"
	case tableLike(lines):
		return "a table without sentences: no duty stated"
	case p.UpperOnly:
		return "informative text: no sentence uses a requirement keyword"
	}
	return "informative text: no sentence states a duty"
}

// chunkParts finds the known parts of a chunk in their order: named by
// its headings or a line, or making up most of its lines. front is true
// when one belongs to front matter; at is the line where the first one
// starts (-1 for a heading).
func chunkParts(c chunkRead, lines []string) (parts []string, front bool, at int) {
	at = len(lines)
	add := func(i int, np namedPart) {
		if !slices.Contains(parts, np.phrase) {
			parts = append(parts, np.phrase)
			front = front || np.front
			at = min(at, i)
		}
	}
	for _, h := range strings.Split(c.heading, document.SectionSeparator) {
		if np, ok := partNamed(h); ok {
			add(-1, np)
		}
	}
	// A table of contents has leader dots, or stands before the first
	// heading; from its first entry on, the names of sections are its
	// entries, not parts of the chunk.
	entries, dots := 0, 0
	for _, l := range lines {
		if leaderDots.MatchString(l) {
			dots++
		}
		if tocEntryRE.MatchString(l) || leaderDots.MatchString(l) {
			entries++
		}
	}
	n := len(lines)
	toc := entries >= 5 && 2*entries >= n && (2*dots >= n || c.heading == "")
	refs, published, dated, firstRef, firstDated := 0, 0, 0, -1, -1
	inToc := false
	for i, l := range lines {
		if toc && (tocEntryRE.MatchString(l) || leaderDots.MatchString(l)) {
			add(i, namedParts[0])
			inToc = true
		}
		if np, ok := partNamed(l); ok && !np.heading && !inToc && len(strings.Fields(l)) <= 6 {
			add(i, np)
		}
		if refEntryRE.MatchString(l) {
			refs++
			firstRef = firstIndex(firstRef, i)
		}
		if publishedRE.MatchString(l) {
			published++
		}
		if datedRE.MatchString(l) {
			dated++
			firstDated = firstIndex(firstDated, i)
		}
	}
	if refs >= 3 && 3*published >= n {
		add(firstRef, partByPhrase("list of references"))
	}
	if dated >= 3 && 3*dated >= n {
		add(firstDated, partByPhrase("revision history"))
	}
	return parts, front, at
}

func firstIndex(cur, i int) int {
	if cur < 0 {
		return i
	}
	return cur
}

func partByPhrase(phrase string) namedPart {
	for _, np := range namedParts {
		if np.phrase == phrase {
			return np
		}
	}
	panic("no part " + phrase)
}

// partNamed is the kind of section a heading or a line names.
func partNamed(s string) (namedPart, bool) {
	name := strings.TrimSpace(sectionNumberRE.ReplaceAllString(strings.TrimSpace(s), ""))
	for _, np := range namedParts {
		if name != "" && np.re.MatchString(name) {
			return np, true
		}
	}
	return namedPart{}, false
}

// textLines are the lines of a chunk's text that hold something, page
// markers left out.
func textLines(body string) []string {
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if _, marker := document.ParsePageMarker(l); marker {
			continue
		}
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// tableLike reports whether most lines are cells rather than prose: few
// of them have three lower-case words.
func tableLike(lines []string) bool {
	prose := 0
	for _, l := range lines {
		lower := 0
		for _, w := range strings.Fields(l) {
			if lowerWordRE.MatchString(w) {
				lower++
			}
		}
		if lower >= 3 {
			prose++
		}
	}
	return len(lines) >= 5 && 4*prose <= len(lines)
}

// guidanceLabel is the label of the informative blocks ("Supplemental
// Guidance") when they make up most of the text.
func guidanceLabel(body string) (string, bool) {
	var label string
	size, longest := 0, 0
	for _, b := range blocks(body) {
		if b.kind != informative {
			continue
		}
		size += b.end - b.start
		if b.end-b.start > longest {
			longest = b.end - b.start
			label = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(body[b.start:b.body]), ":"))
		}
	}
	return label, label != "" && 2*size >= len(strings.TrimSpace(body))
}

// joinPhrases lists phrases: "a", "a and b", "a, b and c".
func joinPhrases(p []string) string {
	if len(p) <= 1 {
		return strings.Join(p, "")
	}
	return strings.Join(p[:len(p)-1], ", ") + " and " + p[len(p)-1]
}

// atLeastWords makes sure a reason has the words declare_chunk_empty asks
// for: "sample code" alone says what the chunk is, not that it holds no
// requirement.
func atLeastWords(reason string) string {
	if len(strings.Fields(reason)) < tools.MinReasonWords {
		reason += ": no duty stated"
	}
	return reason
}
