package document

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Evidence is what a document says about how it states its requirements,
// found in the whole of its text before any requirement is looked for:
// whether its upper-case keywords carry them (a BCP 14 declaration, or
// the keywords used in capitals throughout), the identifier schemes it
// repeats in one role (headings, list prefixes, trailing tags, a table's
// first column), and the parts it marks as informative (non-normative
// sections, change logs, summaries that restate the body). Rules come
// from this evidence, never from a document's name or wording.
type Evidence struct {
	Keywords Keywords `json:"keywords"`
	// Asides is the sentence that declares the document's notes or
	// examples non-normative ("… all authoring guidelines, diagrams,
	// examples, and notes in this specification are non-normative"), ""
	// when it declares nothing of them: then a note that uses a keyword
	// states a requirement by it.
	Asides      string     `json:"asides,omitempty"`
	IDSchemes   []IDScheme `json:"id_schemes,omitempty"`
	Informative []Part     `json:"informative,omitempty"`
}

// Keywords is the evidence on the document's normative keywords.
type Keywords struct {
	// Declaration is the sentence that declares the keywords of BCP 14
	// (RFC 2119, RFC 8174) normative, and Line its line in the text
	// (from 1); empty when there is none.
	Declaration string `json:"declaration,omitempty"`
	Line        int    `json:"line,omitempty"`
	// Upper and Lower count MUST, SHALL, SHOULD, REQUIRED, RECOMMENDED in
	// capitals and must, shall, should in lower case, the declaration
	// aside.
	Upper int `json:"upper"`
	Lower int `json:"lower"`
	// UpperOnly: only the upper-case keywords carry requirements, by the
	// declaration or by the typography (five or more in capitals, as many
	// as in lower case).
	UpperOnly bool `json:"upper_only,omitempty"`
}

// Why says in one sentence what the keyword evidence is.
func (k Keywords) Why() string {
	switch {
	case k.Declaration != "":
		return "the document declares the BCP 14 keywords (line " + strconv.Itoa(k.Line) + ": " + quoteShort(k.Declaration) + ")"
	case k.UpperOnly:
		return "the document writes its keywords in capitals (" + strconv.Itoa(k.Upper) + " in capitals, " + strconv.Itoa(k.Lower) + " in lower case)"
	}
	return ""
}

// Survey finds the evidence in a document's text (as Document.Text
// renders it).
func Survey(text string) Evidence {
	lines := strings.Split(text, "\n")
	outline := outlineOf(lines)
	return Evidence{
		Keywords:    surveyKeywords(lines),
		Asides:      surveyAsides(lines),
		IDSchemes:   surveyIDSchemes(lines, outline),
		Informative: surveyInformative(lines, outline),
	}
}

var (
	// bcp14RE names the keywords' definition; a declaration also quotes
	// two keywords or more.
	bcp14RE         = regexp.MustCompile(`(?i)\bRFC\s*2119\b|\bRFC\s*8174\b|\bBCP\s*14\b|\bkey\s*words\b.{0,40}\binterpreted\b`)
	upperKeywordRE  = regexp.MustCompile(`\b(?:MUST|SHALL|SHOULD|REQUIRED|RECOMMENDED)\b`)
	lowerKeywordRE  = regexp.MustCompile(`\b(?:must|shall|should)\b`)
	declaredWordsRE = regexp.MustCompile(`\b(?:MUST|MUST NOT|SHALL|SHALL NOT|SHOULD|SHOULD NOT|REQUIRED|RECOMMENDED|MAY|OPTIONAL)\b`)
)

// surveyKeywords reads the keyword evidence. The declaration is looked
// for in the whole text: a document may declare its keywords in its
// seventh chunk (after a long status and copyright section).
func surveyKeywords(lines []string) Keywords {
	var k Keywords
	declared := -1
	for i := 0; i < len(lines) && declared < 0; i++ {
		if !bcp14RE.MatchString(lines[i]) {
			continue
		}
		// The sentence around the match: its paragraph's lines nearby.
		from, to := i, i
		for from > 0 && from > i-4 && strings.TrimSpace(lines[from-1]) != "" && !isMarker(lines[from-1]) {
			from--
		}
		for to+1 < len(lines) && to < i+4 && strings.TrimSpace(lines[to+1]) != "" && !isMarker(lines[to+1]) {
			to++
		}
		para := strings.Join(strings.Fields(strings.Join(lines[from:to+1], " ")), " ")
		if len(declaredWordsRE.FindAllString(para, -1)) >= 2 {
			k.Declaration, k.Line, declared = sentenceAround(para, bcp14RE), i+1, i
			// The keywords of the declaration are named, not used.
			k.Upper -= len(upperKeywordRE.FindAllString(para, -1))
			k.Lower -= len(lowerKeywordRE.FindAllString(para, -1))
		}
	}
	for _, l := range lines {
		k.Upper += len(upperKeywordRE.FindAllString(l, -1))
		k.Lower += len(lowerKeywordRE.FindAllString(l, -1))
	}
	k.Upper, k.Lower = max(k.Upper, 0), max(k.Lower, 0)
	k.UpperOnly = k.Declaration != "" && k.Upper >= 2 || k.Upper >= 5 && k.Upper >= k.Lower
	return k
}

// asidesRE declares notes or examples non-normative.
var asidesRE = regexp.MustCompile(`(?i)\b(?:notes|examples)\b[^.]{0,80}\b(?:are|is) (?:all )?(?:non[- ]?normative|informative)\b|\b(?:non[- ]?normative|informative)\b[^.]{0,20}\b(?:are|is)\b[^.]{0,40}\b(?:notes|examples)\b`)

// surveyAsides finds the sentence that declares notes or examples
// non-normative, over a line break too.
func surveyAsides(lines []string) string {
	for i := range lines {
		two := strings.Join(strings.Fields(lines[i]+" "+lineAt(lines, i+1)), " ")
		if loc := asidesRE.FindStringIndex(two); loc != nil && loc[0] < len(strings.TrimSpace(lines[i]))+1 {
			return sentenceAround(two, asidesRE)
		}
	}
	return ""
}

func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// sentenceAround is the sentence of a paragraph that holds re's match.
func sentenceAround(para string, re *regexp.Regexp) string {
	loc := re.FindStringIndex(para)
	if loc == nil {
		return para
	}
	for _, sp := range Sentences(para, SentenceOptions{}) {
		if sp.Start <= loc[0] && loc[0] < sp.End {
			return strings.TrimSpace(para[sp.Start:sp.End])
		}
	}
	return para
}

// quoteShort quotes a text of at most 120 characters, cut at a word.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 120 {
		r := []rune(s)
		cut := strings.LastIndexByte(string(r[:118]), ' ')
		if cut < 40 {
			cut = len(string(r[:118]))
		}
		s = string(r[:118])[:cut] + " …"
	}
	return "“" + s + "”"
}

// EvidenceFile is where chunk_document keeps the evidence of each
// document of a job, beside the chunk manifest.
const EvidenceFile = "chunks/evidence.json"

// EvidenceList is the content of chunks/evidence.json.
type EvidenceList struct {
	Documents []DocumentEvidence `json:"documents"`
}

// DocumentEvidence is the evidence of one document: its name, the text it
// was found in, and what was found.
type DocumentEvidence struct {
	Document string   `json:"document"`
	Source   string   `json:"source"`
	Evidence Evidence `json:"evidence"`
}

// ParseEvidence reads chunks/evidence.json.
func ParseEvidence(data []byte) (EvidenceList, error) {
	var l EvidenceList
	if err := json.Unmarshal(data, &l); err != nil {
		return l, fmt.Errorf("%s is not valid JSON: %v", EvidenceFile, err)
	}
	return l, nil
}

// Put replaces the evidence of a source.
func (l *EvidenceList) Put(d DocumentEvidence) {
	for i, e := range l.Documents {
		if e.Source == d.Source {
			l.Documents[i] = d
			return
		}
	}
	l.Documents = append(l.Documents, d)
}

// Summary tells the evidence in a few sentences, for a reader who decides
// what a requirement is: the keywords, the id schemes, the informative
// parts (at most max of them named).
func (e Evidence) Summary(max int) string {
	var b strings.Builder
	if why := e.Keywords.Why(); why != "" && e.Keywords.UpperOnly {
		b.WriteString("Keywords: " + why + ": only the upper-case keywords (MUST, SHALL, SHOULD, MAY, REQUIRED, RECOMMENDED, OPTIONAL) state requirements.")
	} else {
		fmt.Fprintf(&b, "Keywords: ordinary modal verbs (%d must/shall/should in lower case, %d in capitals) state requirements.", e.Keywords.Lower, e.Keywords.Upper)
	}
	if len(e.IDSchemes) > 0 {
		b.WriteString(" Identifier schemes (a requirement's source_id):")
		for i, s := range e.IDSchemes {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s as %s (%d ids, e.g. %s)", s.Pattern, roleName(s.Role), s.Distinct, strings.Join(s.Examples, ", "))
		}
		b.WriteString(".")
	}
	if len(e.Informative) > 0 {
		b.WriteString(" Informative parts, which state no requirements:")
		for i, p := range e.Informative {
			if i == max {
				fmt.Fprintf(&b, " and %d more", len(e.Informative)-max)
				break
			}
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %q (%s)", p.Title, p.Why)
		}
		b.WriteString(".")
	}
	return b.String()
}

func roleName(role string) string {
	switch role {
	case RoleHeading:
		return "headings"
	case RolePrefix:
		return "list prefixes"
	case RoleTag:
		return "tags closing statements"
	case RoleColumn:
		return "a table's first column"
	}
	return role
}
