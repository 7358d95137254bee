package offlinemodel

import (
	"regexp"
	"strings"

	"creator/internal/document"
	"creator/internal/requirement"
)

// A document whose id scheme is tags that close its statements ("… MUST
// close the Network Connection [MQTT-3.2.0-2].") marks each requirement
// with one: the statement is the text the tag closes, from its first
// sentence with a normative keyword after the tag before (or the
// paragraph's start), whatever number of sentences that is, and the tag
// is its id. A statement that starts with its keyword ("MUST close …")
// continues the lead-in above it that ends in a colon ("After sending a
// DISCONNECT Packet the Client:").

// taggedStatements are the statements of a chunk that tags of the
// profile's scheme close, and the spans they cover (tags included), in
// the neutral blocks of the chunk.
func taggedStatements(text string, bs []block, p profile) ([]found, []span) {
	tags := p.schemes(document.RoleTag)
	if len(tags) == 0 {
		return nil, nil
	}
	var out []found
	var spans []span
	for _, para := range paragraphs(text) {
		from := para.from
		for _, g := range tagGroups(text[para.from:para.to], tags) {
			groupStart, groupEnd := para.from+g.from, para.from+g.to
			start := firstCue(text, from, groupStart, p)
			from = groupEnd
			if start < 0 || kindAt(bs, start) != neutral {
				continue
			}
			raw := strings.TrimSpace(text[start:groupStart])
			q := requirement.Clean(raw)
			f, ok := classify(q, p.UpperOnly)
			if !ok || len(strings.Fields(q)) < 3 {
				continue
			}
			x := found{s: sentence{text: raw, start: start}, quote: q, f: f, id: g.ids[0]}
			if len(g.ids) > 1 {
				x.setAttr("tags", strings.Join(g.ids, ", "))
			}
			x.evidence = append(x.evidence, "its id "+x.id+" is the tag that closes it, by the document's scheme of tags")
			withLeadIn(text, &x)
			out = append(out, x)
			spans = append(spans, span{start, groupEnd})
		}
	}
	return out, spans
}

// tagGroup is a run of tags of the scheme that closes a statement: its
// place in the paragraph and its ids.
type tagGroup struct {
	from, to int
	ids      []string
}

// tagGroups finds the runs of tags that close statements in a paragraph;
// a tag in the middle of a sentence is a citation and closes none.
func tagGroups(para string, tags []*regexp.Regexp) []tagGroup {
	var out []tagGroup
	for _, m := range bracketIDRE.FindAllStringSubmatchIndex(para, -1) {
		id := bracketID(para[m[2]:m[3]])
		if !matchesAny(tags, id) {
			continue
		}
		if n := len(out); n > 0 && strings.Trim(strings.TrimSpace(para[out[n-1].to:m[0]]), ",;") == "" ||
			n > 0 && strings.TrimSpace(para[out[n-1].to:m[0]]) == "and" {
			out[n-1].to, out[n-1].ids = m[1], append(out[n-1].ids, id)
			continue
		}
		out = append(out, tagGroup{m[0], m[1], []string{id}})
	}
	var closing []tagGroup
	for _, g := range out {
		if document.ClosesStatement(para[g.to:]) {
			closing = append(closing, g)
		}
	}
	return closing
}

// firstCue is where the first sentence of text[from:to] with a normative
// cue starts, or -1; the sentence before it when its subject is a bare
// pronoun ("It MUST NOT be 3"), which that sentence names.
func firstCue(text string, from, to int, p profile) int {
	part := text[from:to]
	prev := -1
	for _, sp := range document.Sentences(part, document.SentenceOptions{ListsEnd: true, NumbersEnd: true}) {
		raw := part[sp.Start:sp.End]
		t := strings.TrimSpace(raw)
		if t == "" {
			continue
		}
		at := from + sp.Start + len(raw) - len(strings.TrimLeft(raw, " \t\n"))
		if _, ok := classify(requirement.Clean(t), p.UpperOnly); ok {
			if prev >= 0 && pronounSubjectRE.MatchString(t) {
				return prev
			}
			return at
		}
		prev = at
	}
	return -1
}

// pronounSubjectRE is a sentence whose subject is a bare pronoun before
// its verb.
var pronounSubjectRE = regexp.MustCompile(`^(?:It|They|This|These|Those)\s+(?:(?:MUST|SHALL|SHOULD|MAY|must|shall|should|may|is|are|will|can|cannot)\b)`)

// paragraphs are the runs of a text between blank lines.
func paragraphs(text string) []span {
	var out []span
	start := -1
	pos := 0
	for _, l := range strings.SplitAfter(text, "\n") {
		blank := strings.TrimSpace(l) == ""
		switch {
		case blank && start >= 0:
			out = append(out, span{start, pos})
			start = -1
		case !blank && start < 0:
			start = pos
		}
		pos += len(l)
	}
	if start >= 0 {
		out = append(out, span{start, len(text)})
	}
	return out
}

// keywordLeadRE is a statement that starts with its keyword: its subject
// is in the lead-in above it.
var keywordLeadRE = regexp.MustCompile(`^(?:MUST|SHALL|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)\b`)

// withLeadIn gives a statement that starts with its keyword the lead-in
// above it: the text, then the lead-in as a second quote. The lead-in is
// the nearest line above that ends in a colon, with only blank lines and
// other such statements between.
func withLeadIn(text string, x *found) {
	if !keywordLeadRE.MatchString(x.quote) {
		return
	}
	lines := strings.Split(text[:x.s.start], "\n")
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-16; i-- {
		l := strings.TrimSpace(lines[i])
		switch {
		case l == "" || i == len(lines)-1 || keywordLeadRE.MatchString(stripMarker(l)) || bracketIDRE.MatchString(l) && !strings.HasSuffix(l, ":"):
			continue
		case strings.HasSuffix(l, ":"):
			// The lead-in: its last sentence.
			lead := l
			spans := document.Sentences(l, document.SentenceOptions{})
			if n := len(spans); n > 0 {
				lead = strings.TrimSpace(l[spans[n-1].Start:spans[n-1].End])
			}
			q := requirement.Clean(lead)
			if len(strings.Fields(q)) < 2 {
				return
			}
			x.more = append(x.more, q)
			x.text = strings.TrimSuffix(q, ":") + " " + x.quote
			return
		default:
			return
		}
	}
}

func stripMarker(l string) string {
	return l[document.ListMarkerLen(l):]
}
