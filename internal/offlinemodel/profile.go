package offlinemodel

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"creator/internal/document"
	"creator/internal/humanize"
)

// profile is what the built-in model notes about a document before it
// looks for requirements: language, identifier, and whether only
// upper-case keywords are normative.
type profile struct {
	Document   string
	Language   string // English or German
	Identifier string // RFC 9000, NIST SP 800-63B, GoBD …
	UpperOnly  bool
	Reason     string // why the convention was chosen
	// Shape is how the document states its requirements when that is by
	// its layout rather than its sentences (see shapes.go), else
	// shapeProse.
	Shape string
	// Evidence is what the document layer found in the whole document
	// (chunks/evidence.json): KeywordsWhy says why upper-case keywords
	// alone are normative, IDSchemes and Informative as found.
	KeywordsWhy string
	// Asides is the document's sentence that declares its notes or
	// examples non-normative, "" when there is none.
	Asides      string
	IDSchemes   []document.IDScheme
	Informative []document.Part
}

var (
	rfcRE         = regexp.MustCompile(`Request for Comments:\s*(\d{3,5})`)
	nistRE        = regexp.MustCompile(`(?i)NIST Special Publication\s+(\d{3}-\d+[A-Za-z]?)(\s+Rev(?:ision)?\.?\s*\d+)?`)
	isoRE         = regexp.MustCompile(`\bISO(?:/IEC)?\s+\d{4,5}(?:-\d+)?\b`)
	gobdTitleRE   = regexp.MustCompile(`\(GoBD\)|\bGoBD\b`)
	gdprTitleRE   = regexp.MustCompile(`(?i)Verordnung \(EU\) 2016/679|Regulation \(EU\) 2016/679|Datenschutz-Grundverordnung|General Data Protection Regulation`)
	declarationRE = regexp.MustCompile(`(?i)(RFC\s*2119|RFC\s*8174|BCP\s*14|key\s+words\s+"MUST")|terms? in (all )?capitals|capitali[sz]ed|\b(SHALL|MUST)\b[^.]{0,80}\bindicate`)
	upperRE       = regexp.MustCompile(`\b(MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED)\b`)
	lowerModalRE  = regexp.MustCompile(`\b(must|shall|should)\b`)
	germanRE      = regexp.MustCompile(`\b(der|die|das|und|ist|sind|nicht|werden|für|mit|von|den)\b`)
	englishRE     = regexp.MustCompile(`\b(the|and|is|are|not|be|for|with|of|to)\b`)
)

// makeProfile studies the first chunks of a document; sample is text
// from further in, where a document's tables or rules may only begin after
// its front matter. ev, when known, is the evidence found in the whole
// document, which decides the keyword convention.
func makeProfile(doc, text string, ev *document.Evidence, sample ...string) profile {
	p := profile{Document: doc, Language: "English"}
	if len(germanRE.FindAllString(text, -1)) > len(englishRE.FindAllString(text, -1)) {
		p.Language = "German"
	}
	head := text
	if len(head) > 6000 {
		head = head[:6000]
	}
	switch {
	case rfcRE.MatchString(head):
		p.Identifier = "RFC " + rfcRE.FindStringSubmatch(head)[1]
	case nistRE.MatchString(head):
		m := nistRE.FindStringSubmatch(head)
		p.Identifier = "NIST SP " + strings.ToUpper(m[1]) + m[2]
	case gdprTitleRE.MatchString(head):
		p.Identifier = "GDPR"
	case gobdTitleRE.MatchString(head):
		p.Identifier = "GoBD"
	case isoRE.MatchString(head):
		p.Identifier = isoRE.FindString(head)
	}
	// A title page may break the identifier across lines ("800-171\nRevision 1").
	p.Identifier = humanize.OneLine(p.Identifier)
	upper := len(upperRE.FindAllString(text, -1))
	lower := len(lowerModalRE.FindAllString(text, -1))
	if ev != nil {
		p.IDSchemes, p.Informative, p.Asides = ev.IDSchemes, ev.Informative, ev.Asides
	}
	switch {
	case ev != nil && p.Language == "English" && ev.Keywords.UpperOnly:
		p.UpperOnly, p.KeywordsWhy = true, ev.Keywords.Why()
		p.Reason = p.KeywordsWhy + ": its upper-case keywords (MUST, SHALL, SHOULD, MAY) carry the requirements"
	case ev != nil && p.Language == "English":
		p.Reason = "ordinary modal verbs carry the requirements: must, shall, should, may"
	case p.Language == "English" && upper >= 2 && declarationRE.MatchString(text):
		p.UpperOnly, p.Reason = true, "the document declares that its upper-case keywords (MUST, SHALL, SHOULD, MAY) carry the requirements"
	case p.Language == "English" && upper >= 5 && upper >= lower:
		p.UpperOnly, p.Reason = true, fmt.Sprintf("requirements are written with upper-case keywords (%d of %d modal verbs)", upper, upper+lower)
	case p.Language == "German":
		p.Reason = "German duty forms carry the requirements: muss, ist/sind … zu + infinitive, darf nicht, soll"
	default:
		p.Reason = "ordinary modal verbs carry the requirements: must, shall, should, may"
	}
	p.Shape = documentShape(text + "\n" + strings.Join(sample, "\n"))
	if r := shapeNamed(p.Shape).reason; r != "" {
		p.Reason = r
	}
	return p
}

// render writes a profile for notes/document.md.
func (p profile) render() string {
	conv := "ordinary-language"
	if p.UpperOnly {
		conv = "upper-case-keywords"
	}
	id := p.Identifier
	if id == "" {
		id = "-"
	}
	shape := p.Shape
	if shape == "" {
		shape = shapeProse
	}
	// One line a field: parseProfiles reads them back line by line.
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n- Language: %s\n- Identifier: %s\n- Convention: %s\n- Shape: %s\n- Why: %s\n",
		humanize.OneLine(p.Document), humanize.OneLine(p.Language), humanize.OneLine(id), conv, shape, humanize.OneLine(p.Reason))
	if p.KeywordsWhy != "" {
		fmt.Fprintf(&b, "- Keywords: %s\n", humanize.OneLine(p.KeywordsWhy))
	}
	if p.Asides != "" {
		fmt.Fprintf(&b, "- Asides: %s\n", humanize.OneLine(p.Asides))
	}
	for _, s := range p.IDSchemes {
		fmt.Fprintf(&b, "- Ids: %s %s (%d ids, e.g. %s)\n", s.Role, s.Pattern, s.Distinct, humanize.OneLine(strings.Join(s.Examples, ", ")))
	}
	for _, part := range p.Informative {
		fmt.Fprintf(&b, "- Informative: %s — %s\n", humanize.OneLine(part.Title), humanize.OneLine(part.Why))
	}
	return b.String()
}

var (
	profileSectionRE = regexp.MustCompile(`(?m)^## (.+)\n\n- Language: (\w+)\n- Identifier: (.+)\n- Convention: ([\w-]+)\n(?:- Shape: ([\w-]+)\n)?`)
	profileFieldRE   = regexp.MustCompile(`^- (Keywords|Asides|Ids|Informative): (.+)$`)
	profileIDsRE     = regexp.MustCompile(`^(\w+) (\S+) \((\d+) ids, e\.g\. (.*)\)$`)
	profileInfRE     = regexp.MustCompile(`^(.*) — (it.*)$`)
)

// parseProfiles reads notes/document.md as written by render.
func parseProfiles(text string) map[string]profile {
	out := map[string]profile{}
	ms := profileSectionRE.FindAllStringSubmatchIndex(text, -1)
	for k, at := range ms {
		m := func(g int) string {
			if at[2*g] < 0 {
				return ""
			}
			return text[at[2*g]:at[2*g+1]]
		}
		p := profile{Document: m(1), Language: m(2), Identifier: m(3), UpperOnly: m(4) == "upper-case-keywords"}
		if m(5) != shapeProse {
			p.Shape = m(5)
		}
		if p.Identifier == "-" {
			p.Identifier = ""
		}
		end := len(text)
		if k+1 < len(ms) {
			end = ms[k+1][0]
		}
		for _, line := range strings.Split(text[at[1]:end], "\n") {
			f := profileFieldRE.FindStringSubmatch(line)
			if f == nil {
				continue
			}
			switch f[1] {
			case "Keywords":
				p.KeywordsWhy = f[2]
			case "Asides":
				p.Asides = f[2]
			case "Ids":
				if g := profileIDsRE.FindStringSubmatch(f[2]); g != nil {
					n, _ := strconv.Atoi(g[3])
					p.IDSchemes = append(p.IDSchemes, document.IDScheme{Role: g[1], Pattern: g[2], Distinct: n, Examples: strings.Split(g[4], ", ")})
				}
			case "Informative":
				if g := profileInfRE.FindStringSubmatch(f[2]); g != nil {
					p.Informative = append(p.Informative, document.Part{Title: g[1], Why: g[2]})
				}
			}
		}
		out[p.Document] = p
	}
	return out
}
