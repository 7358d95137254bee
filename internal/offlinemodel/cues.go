package offlinemodel

import (
	"regexp"
	"strings"
)

// finding is what the rules make of a sentence.
type finding struct {
	kind       string  // obligation, prohibition, permission, recommendation
	cue        string  // the words that carry it, as found
	confidence float64 // by the strength of the cue
	strong     bool    // a legal or MUST/SHALL-strength duty
	note       string  // how the cue reads, for the rationale
}

// rule is one normative cue.
type rule struct {
	re         *regexp.Regexp
	kind       string
	confidence float64
	strong     bool
	note       string
}

func r(pattern, kind string, conf float64, strong bool, note string) rule {
	return rule{regexp.MustCompile(pattern), kind, conf, strong, note}
}

// Upper-case keywords of RFC 2119 / BCP 14, strongest first.
var keywordRules = []rule{
	r(`\b(MUST NOT|SHALL NOT)\b`, "prohibition", 0.95, true, "an RFC 2119 prohibition keyword"),
	r(`\b(MUST|SHALL|REQUIRED)\b`, "obligation", 0.95, true, "an RFC 2119 requirement keyword"),
	r(`\b(SHOULD NOT|NOT RECOMMENDED)\b`, "recommendation", 0.9, false, "an RFC 2119 recommendation keyword (against)"),
	r(`\b(SHOULD|RECOMMENDED)\b`, "recommendation", 0.9, false, "an RFC 2119 recommendation keyword"),
	r(`\b(MAY|OPTIONAL)\b`, "permission", 0.85, false, "an RFC 2119 permission keyword"),
}

// Cues in ordinary English and German, strongest first.
var textRules = []rule{
	// English prohibitions
	r(`(?i)\b(must|shall|may) not\b|\b(must|shall) never\b`, "prohibition", 0.9, true, "a prohibition"),
	r(`(?i)\b(is|are) (strictly )?(prohibited|forbidden|not permitted|not allowed)\b`, "prohibition", 0.85, true, "a prohibition"),
	// German prohibitions: darf/dürfen … nicht/kein, unzulässig, untersagt, verboten
	r(`(?i)\b(darf|dürfen|durfte|durften)\b[^.;:]*?\b(nicht|kein|keine|keinen|keinem|keiner|nie|niemals)\b`, "prohibition", 0.9, true, "„darf … nicht“, a prohibition"),
	r(`(?i)\b(ist|sind)\s+(\w+\s+){0,3}(unzulässig|nicht zulässig|untersagt|verboten)\b`, "prohibition", 0.85, true, "„… ist unzulässig“, a prohibition"),
	// English obligations
	r(`(?i)\b(must|shall)\b`, "obligation", 0.9, true, "an obligation („must“/„shall“)"),
	r(`(?i)\b(is|are) (required|obliged|obligated) to\b`, "obligation", 0.85, true, "an obligation („is required to“)"),
	r(`(?i)\b(has|have) to\b`, "obligation", 0.75, false, "an obligation („has to“)"),
	r(`(?i)\b(is|are) required\b`, "obligation", 0.7, false, "a requirement („is required“)"),
	r(`(?i)\b(needs?|need) to\b`, "obligation", 0.7, false, "an obligation („needs to“)"),
	r(`(?i)\b(is|are) to be\s+\w+(?:ed|en|wn|lt|pt|nt)\b`, "obligation", 0.7, false, "an obligation („is to be …“)"),
	// "will" states a duty where a specification says what its system
	// will do; of people or events it only foretells.
	r(`(?i)\b(?:system|software|application|app|product|service|platform|tool|module|component|server|client|interface|website|site|api|device|program|solution|vendor|contractor|supplier|provider)s?\s+will\b`, "obligation", 0.7, false, "what the system „will“ do, an obligation in a specification"),
	// German obligations
	r(`(?i)\b(muss|müssen|musste|mussten)\b`, "obligation", 0.9, true, "„muss“, an obligation"),
	r(`(?i)\b(ist|sind)\s+(\w+\s+){0,2}verpflichtet\b`, "obligation", 0.9, true, "„ist verpflichtet“, an obligation"),
	r(`(?i)\b(ist|sind)\s+(\w+\s+){0,2}erforderlich\b`, "obligation", 0.75, false, "„ist erforderlich“, a requirement"),
	r(`(?i)\bhat\s+zu\s+erfolgen\b|\bhaben\s+zu\s+erfolgen\b|\bbedarf\b|\bbedürfen\b`, "obligation", 0.8, true, "a duty („hat zu erfolgen“/„bedarf“)"),
	// English recommendations and permissions
	r(`(?i)\b(should|ought to)\b|\b(is|are) recommended\b`, "recommendation", 0.8, false, "a recommendation („should“)"),
	r(`(?i)\b(soll|sollen|sollte|sollten)\b|\bempfiehlt sich\b|\bwird empfohlen\b`, "recommendation", 0.8, false, "„soll“, a recommendation"),
	r(`(?i)\bmay only\b|\bdürfen nur\b|\bdarf nur\b`, "obligation", 0.8, true, "a restriction („may only“)"),
	r(`(?i)\b(is|are) (permitted|allowed) to\b`, "permission", 0.75, false, "a permission („is permitted to“)"),
	r(`(?i)\b(darf|dürfen)\b|\b(ist|sind) zulässig\b`, "permission", 0.75, false, "„darf“, a permission"),
	r(`\b(may)\b`, "permission", 0.6, false, "a permission („may“)"),
}

// German duties in verb-final form: "sind … aufzubewahren", "hat …
// sicherzustellen", "ist … zu dokumentieren". The auxiliary comes first;
// the infinitive with zu closes the clause.
var (
	auxRE       = regexp.MustCompile(`(?i)\b(ist|sind|hat|haben|war|waren)\b`)
	zuInfRE     = regexp.MustCompile(`\b([a-zäöüß]+zu[a-zäöüß]{2,}(?:en|ern|eln)|zu\s+[a-zäöüß]{3,}(?:en|ern|eln))\b`)
	zuPurposeRE = regexp.MustCompile(`(?i)\b(um|ohne|anstatt|statt)\b[^,.;]*\bzu\b`)
	notVerbRE   = regexp.MustCompile(`^(zu\s+)?(zuzüglich|zusammen\w*|zuständig\w*|zufolge|zugunsten|zuvor|zunächst|zumindest|zuletzt|zurück\w*)$`)
)

func germanDuty(s string) (finding, bool) {
	a := auxRE.FindStringIndex(s)
	if a == nil {
		return finding{}, false
	}
	for _, m := range zuInfRE.FindAllStringIndex(s[a[1]:], -1) {
		inf := s[a[1]+m[0] : a[1]+m[1]]
		if notVerbRE.MatchString(inf) {
			continue
		}
		clause := s[:a[1]+m[1]]
		if zuPurposeRE.MatchString(clause[max(0, len(clause)-80):]) {
			continue // "um … zu erhalten": a purpose, not a duty
		}
		aux := s[a[0]:a[1]]
		cue := aux + " … " + inf
		return finding{kind: "obligation", cue: cue, confidence: 0.8, strong: true,
			note: "„" + cue + "“ (" + strings.ToLower(aux) + " … zu + infinitive), a duty"}, true
	}
	return finding{}, false
}

// keywordDefinition is true for the sentence that explains the keywords
// themselves ("The key words "MUST", … are to be interpreted as …").
var keywordDefRE = regexp.MustCompile(`(?i)RFC\s*2119|RFC\s*8174|BCP\s*14|key\s*words|interpreted\s+as\s+described`)

// classify applies the rules to a sentence. upperOnly limits them to the
// upper-case keywords, for documents that declare that only those are
// normative.
func classify(s string, upperOnly bool) (finding, bool) {
	if keywordDefRE.MatchString(s) && len(keywordsIn(s)) >= 2 {
		return finding{}, false
	}
	for _, rl := range keywordRules {
		if loc := rl.re.FindStringIndex(s); loc != nil && !quoted(s, loc) {
			return finding{rl.kind, s[loc[0]:loc[1]], rl.confidence, rl.strong, rl.note}, true
		}
	}
	if upperOnly {
		return finding{}, false
	}
	best, found := finding{}, false
	for _, rl := range textRules {
		if loc := rl.re.FindStringIndex(s); loc != nil && !quoted(s, loc) {
			if notADuty(s, loc) {
				return finding{}, false
			}
			best, found = finding{rl.kind, s[loc[0]:loc[1]], rl.confidence, rl.strong, rl.note}, true
			break
		}
	}
	if d, ok := germanDuty(s); ok && (!found || rank(d.kind) < rank(best.kind)) {
		return d, true
	}
	return best, found
}

// rank orders the kinds: a sentence with a prohibition and a permission is
// a prohibition.
func rank(kind string) int {
	return map[string]int{"prohibition": 0, "obligation": 1, "recommendation": 2, "permission": 3}[kind]
}

// quoted is true when the match stands in quotation marks: the keyword is
// being talked about, not used.
func quoted(s string, loc []int) bool {
	before := strings.TrimRight(s[:loc[0]], " ")
	after := strings.TrimLeft(s[loc[1]:], " ")
	open := strings.HasSuffix(before, `"`) || strings.HasSuffix(before, "“") || strings.HasSuffix(before, "„") || strings.HasSuffix(before, "'")
	close := strings.HasPrefix(after, `"`) || strings.HasPrefix(after, "”") || strings.HasPrefix(after, "“") || strings.HasPrefix(after, "'")
	return open && close
}

func keywordsIn(s string) []string {
	seen := map[string]bool{}
	var out []string
	for _, rl := range keywordRules {
		for _, m := range rl.re.FindAllString(s, -1) {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// A modal verb in ordinary text does not always state a duty. These are
// the uses that do not, whatever the document:
var (
	// the document speaking of itself ("this publication should be used
	// as …", "Nothing in this publication should be taken to …");
	selfReferenceRE = regexp.MustCompile(`(?i)^(?:[\w,]+\s+){0,6}?(?:this|the present)\s+(?:document|publication|guide|guideline|guidance|standard|specification|report|paper|section|chapter|appendix|annex|book|handbook|manual)\b`)
	// reported speech ("the categories they felt should be included");
	reportedRE = regexp.MustCompile(`(?i)\b(?:felt|thought|believed?|believes|said|says|suggested|stated|argued|noted|mentioned|reported|indicated|asked|wondered)\b(?:\s+\w+){0,6}\s*$`)
	// "may" of possibility ("the process may take up to half an hour",
	// "there may be", "may also", "may result in");
	mayPossibilityRE     = regexp.MustCompile(`^may\s+(?:also|simply|well|still|greatly|sometimes|often|not always|even|include|includes|contain|result|affect|vary|differ|have|take|cause|lead|occur|become|seem|need|wish|exist|arise|apply|change|depend|be (?:necessary|needed|possible|useful|helpful|appropriate|difficult|impossible|unwise|wise|desirable|advisable|able|unable|due|the case)|already|therefore|thus|in turn)\b`)
	possibilitySubjectRE = regexp.MustCompile(`(?i)\b(?:there|it|this|that|which|these|those|they|such \w+)\s*$`)
	// "need" as a noun: "the need to", "there is no need to";
	needNounRE = regexp.MustCompile(`(?i)\b(?:the|a|an|no|any|this|that|its|their|our|his|her|every)\s*$`)
	// a legend that ranks priorities ("Green: must have", "M – Must have").
	legendRE = regexp.MustCompile(`(?i)^\W*[\w ]{1,20}[:–-]\s*(?:must|should|could|won't|will not)\s+have\b`)
)

// notADuty reports whether the cue at loc is one of those uses.
func notADuty(s string, loc []int) bool {
	before, cue, after := s[:loc[0]], s[loc[0]:loc[1]], s[loc[1]:]
	switch {
	case legendRE.MatchString(s) && len(strings.Fields(s)) <= 8:
		return true
	case selfReferenceRE.MatchString(before), reportedRE.MatchString(before):
		return true
	case strings.HasPrefix(strings.ToLower(cue), "need") && needNounRE.MatchString(before):
		return true // "the need to keep …" is a noun, not a duty
	case cue == "may":
		return mayPossibilityRE.MatchString("may"+after) || possibilitySubjectRE.MatchString(before)
	}
	return false
}
