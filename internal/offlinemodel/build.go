package offlinemodel

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"creator/internal/requirement"
)

// draft is a requirement the rules found, ready for save_requirement.
type draft struct {
	Title      string                 `json:"title"`
	Text       string                 `json:"text"`
	Type       string                 `json:"type"`
	Category   string                 `json:"category"`
	Priority   string                 `json:"priority"`
	Frameworks []string               `json:"frameworks,omitempty"`
	Citations  []requirement.Citation `json:"citations"`
	Confidence float64                `json:"confidence"`
	Rationale  string                 `json:"rationale"`
	// SourceID is the document's id of the row or item the requirement
	// comes from.
	SourceID string `json:"source_id,omitempty"`
	// Attributes are the row's other columns the document gives (its
	// level columns).
	Attributes map[string]string `json:"attributes,omitempty"`
}

var (
	complianceRE = regexp.MustCompile(`(?i)aufbewahr|aufzeichn|buchführ|buchung|beleg|steuer|gesetz|verordnung|finanzbehörd|prüfung|protokoll|verfahrensdokumentation|nachvollzieh|nachprüf|unveränder|datenschutz|personenbezog|einwillig|lösch|retention|retain|records?\b|audit|\blaw\b|legal|regulat|complian|\btax|privacy|personal data|personally identifiable|\bPII\b|consent|erasure|\breport|notif|statut`)
	securityRE   = regexp.MustCompile(`(?i)secur|encrypt|cryptograph|authenticat|password|passphrase|secret|confidential|integrity|availab|performance|latency|throughput|reliab|usab|resist|protect|attack|malicious|throttl|rate.?limit|phishing|biometric|tamper|verif|sicher|verschlüssel|zugriffs?schutz|zugangs`)
	constraintRE = regexp.MustCompile(`(?i)at least|at most|no more than|no less than|no later than|maximum|minimum|\bwithin\b|\blimit|exceed|\blength\b|\bsize\b|format|\bbytes?\b|\bbits?\b|characters|seconds|minutes|hours|\bdays\b|mindestens|höchstens|innerhalb|spätestens|frist`)
	// A framework is tagged when the document is it (its profile's
	// identifier) or the text names it: words of its subject (personal
	// data, retention) are in many documents that are not the framework.
	citesGoBDRE = regexp.MustCompile(`\bGoBD\b`)
	citesGDPRRE = regexp.MustCompile(`(?i)\bDSGVO\b|\bGDPR\b|\b2016/679\b|Datenschutz-Grundverordnung|General Data Protection Regulation`)
)

// buildDraft turns a classified sentence into a requirement; evidence
// says what of the document's evidence made it one or gave its id.
func buildDraft(text, doc, chunk, heading string, f finding, p profile, evidence []string) draft {
	d := draft{
		Title:      title(text),
		Text:       text,
		Type:       f.kind,
		Category:   category(text),
		Confidence: f.confidence,
		Citations:  []requirement.Citation{{Document: doc, Chunk: chunk, Quote: text}},
	}
	switch {
	case f.kind == "prohibition", f.kind == "obligation" && (f.strong || d.Category == "compliance"):
		d.Priority = "high"
	case f.kind == "permission":
		d.Priority = "low"
	default:
		d.Priority = "medium"
	}
	add := func(fw string) {
		for _, x := range d.Frameworks {
			if x == fw {
				return
			}
		}
		d.Frameworks = append(d.Frameworks, fw)
	}
	if p.Identifier != "" {
		add(p.Identifier)
	}
	if citesGoBDRE.MatchString(text) {
		add("GoBD")
	}
	if citesGDPRRE.MatchString(text) {
		add("GDPR")
	}
	where := ""
	if len(evidence) > 0 {
		where = " Evidence: " + strings.Join(evidence, "; ") + "."
	}
	if heading != "" {
		where += " Section: " + heading + "."
	}
	d.Rationale = fmt.Sprintf("%q is %s.%s", f.cue, f.note, where)
	return d
}

func category(s string) string {
	switch {
	case complianceRE.MatchString(s):
		return "compliance"
	case securityRE.MatchString(s):
		return "non_functional"
	case constraintRE.MatchString(s):
		return "constraint"
	}
	return "functional"
}

// keywordCue reports whether a cue is an upper-case keyword of BCP 14.
func keywordCue(cue string) bool {
	if cue == "" || cue != strings.ToUpper(cue) {
		return false
	}
	// Every form the keyword rules know (NOT RECOMMENDED as well as SHOULD
	// NOT), the whole cue.
	for _, r := range keywordRules {
		if loc := r.re.FindStringIndex(cue); loc != nil && loc[0] == 0 && loc[1] == len(cue) {
			return true
		}
	}
	return false
}

// title is the beginning of the sentence, at most 80 characters, cut at a
// word.
func title(s string) string {
	s = strings.TrimRight(s, ".:;")
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	words := strings.Fields(s)
	var b strings.Builder
	for _, w := range words {
		if utf8.RuneCountInString(b.String())+1+utf8.RuneCountInString(w) > 78 {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return strings.TrimRight(b.String(), ",;:") + " …"
}
