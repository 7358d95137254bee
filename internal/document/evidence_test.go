package document

import (
	"fmt"
	"strings"
	"testing"
)

// TestSurvey checks the evidence of a made-up specification: a keyword
// declaration far into it, tagged statements, a heading's ids, list
// prefixes and a table's first column, and the parts that state nothing:
// sections marked non-normative by their heading or their first line, a
// change log, and an appendix that restates the body.
func TestSurvey(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Contents\n\n1. Scope\n2. Protocol\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "Status paragraph %d of the copyright and status notice; readers may copy it.\n\n", i)
	}
	b.WriteString("1. Scope\n\nThe key words \"MUST\", \"MUST NOT\", \"SHOULD\" and \"MAY\" in this document are to be interpreted as described in BCP 14 [RFC2119] [RFC8174].\n\n")
	b.WriteString("2. Protocol\n\n")
	var stmts []string
	for i := 1; i <= 12; i++ {
		s := fmt.Sprintf("The Server MUST close connection number %d after the %d-th packet", i, i+1)
		stmts = append(stmts, s)
		fmt.Fprintf(&b, "%s [ABC-2.%d-1]. See [RFC5246] for the details.\n\n", s, i)
	}
	b.WriteString("2.1 Requirements list\n\n")
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, "- R%d.1: Users must be able to sign in with method %d.\n", i, i)
	}
	b.WriteString("\n| ID | Requirement |\n|---|---|\n")
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "| FR-%d | The system shall keep log number %d for a year. |\n", i, i)
	}
	b.WriteString("\n| Code | Meaning |\n|---|---|\n| 0x01 | an error of the kind one |\n| 0x02 | an error of the kind two |\n| 0x03 | an error of the kind three |\n")
	b.WriteString("\n2.2 Non-normative example\n\nA client may send a packet here; it should wait.\n\n")
	b.WriteString("2.3 Session handling\n\nThis section is informative.\n\nServers should remember sessions.\n\n")
	b.WriteString("3. Summary of statements\n\n")
	for i, s := range stmts {
		fmt.Fprintf(&b, "[ABC-2.%d-1] %s.\n\n", i+1, s)
	}
	b.WriteString("4. Revision history\n\nVersion 2 should have been shorter.\n")
	ev := Survey(b.String())

	if k := ev.Keywords; !k.UpperOnly || k.Line != 68 || !strings.HasPrefix(k.Declaration, "The key words") || k.Upper != 24 {
		t.Errorf("keywords: %+v", k)
	}
	roles := map[string]IDScheme{}
	for _, s := range ev.IDSchemes {
		roles[s.Role] = s
	}
	if s := roles[RoleTag]; s.Pattern != `ABC-\d+\.\d+-\d+` || s.Distinct != 12 || s.Count != 24 || !s.Match("ABC-9.10-2") || s.Match("RFC5246") {
		t.Errorf("tags: %+v", s)
	}
	if s := roles[RolePrefix]; s.Pattern != `R\d+\.\d+` || s.Count != 4 {
		t.Errorf("prefixes: %+v", s)
	}
	if s := roles[RoleColumn]; s.Pattern != `FR-\d+` || s.Count != 3 {
		t.Errorf("column: %+v", s)
	}
	if len(ev.IDSchemes) != 3 {
		t.Errorf("schemes: %+v", ev.IDSchemes)
	}
	var parts []string
	for _, p := range ev.Informative {
		parts = append(parts, p.Title+": "+p.Why)
	}
	want := []string{
		"2.2 Non-normative example: its heading marks it informative",
		"2.3 Session handling: it says it is informative: “This section is informative.”",
		"3. Summary of statements: it restates the body: 12 of its 12 statements stand before it word for word",
		"4. Revision history: it records the document (history, changes, contributors or examples), stating no requirement",
	}
	if strings.Join(parts, "\n") != strings.Join(want, "\n") {
		t.Errorf("informative parts:\n%s\nwant:\n%s", strings.Join(parts, "\n"), strings.Join(want, "\n"))
	}
}

// TestSurveyPlain checks a document with none of that evidence: ordinary
// modal verbs, no scheme (an id that occurs twice, SHA-1 in prose), nothing
// informative.
func TestSurveyPlain(t *testing.T) {
	t.Parallel()
	ev := Survey("1 Records\n\nInvoices must be kept for ten years. Hashes use SHA-1 or SHA-256.\n\n- FR-1: The archive shall be locked.\n- FR-2: The archive should be checked.\n\n2 Examples of MUST\n\nThe archive MUST be dry.\n")
	if ev.Keywords.UpperOnly || len(ev.IDSchemes) != 0 {
		t.Errorf("evidence: %+v", ev)
	}
	if len(ev.Informative) != 0 {
		t.Errorf("informative: %+v", ev.Informative)
	}
}

func TestIDSchemePrefix(t *testing.T) {
	t.Parallel()
	for pattern, want := range map[string]string{`MQTT-\d+\.\d+\.\d+-\d+`: "MQTT-", `MS\.AAD\.\d+\.\d+v\d+`: "MS.AAD.", `[A-Z]+-\d+`: "", `\d+\.\d+`: ""} {
		if got := (IDScheme{Pattern: pattern}).Prefix(); got != want {
			t.Errorf("Prefix(%s) = %q, want %q", pattern, got, want)
		}
	}
}
