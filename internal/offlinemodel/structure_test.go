package offlinemodel

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// A control catalogue states its controls without modal verbs; its
// guidance uses them without stating any.
func TestControlCatalogStructure(t *testing.T) {
	t.Parallel()
	body := `AC-2 ACCOUNT MANAGEMENT

Control: The organization manages information system accounts, including:
a. Identifying account types (i.e., individual, group, system, application, guest/anonymous, and
temporary);

b. Establishing conditions for group membership;
c. Reviewing accounts [Assignment: organization-defined frequency].

Supplemental Guidance: Users requiring administrative privileges may receive additional
scrutiny. Organizations should review accounts often.

Control Enhancements:
(1) The organization employs automated mechanisms to support the management of information
system accounts.

(2) The organization:
(a) Requires that users log out when idle;

(b) Determines normal time-of-day usage for information system accounts.
Enhancement Supplemental Guidance: Privileged roles may include key management and network
administration.

(3) The information system automatically disables inactive accounts after a period.
(4) [Withdrawn: Incorporated into AC-3].
References: None.

AC-3 ACCESS ENFORCEMENT

Control: The information system enforces approved authorizations for logical access to the system.
`
	got := analyzeChunk(chunkRead{n: 1, doc: "sp.pdf", body: body}, map[string]profile{"sp.pdf": {Language: "English"}})
	want := []string{
		"Identifying account types (i.e., individual, group, system, application, guest/anonymous, and temporary);",
		"Establishing conditions for group membership;",
		"Reviewing accounts [Assignment: organization-defined frequency].",
		"The organization employs automated mechanisms to support the management of information system accounts.",
		"The organization: (a) Requires that users log out when idle; (b) Determines normal time-of-day usage for information system accounts.",
		"The information system automatically disables inactive accounts after a period.",
		"The information system enforces approved authorizations for logical access to the system.",
	}
	var quotes []string
	for _, d := range got {
		quotes = append(quotes, d.Citations[0].Quote)
		if d.Type != "obligation" {
			t.Errorf("%q is a %s", d.Citations[0].Quote, d.Type)
		}
	}
	if strings.Join(quotes, "\n") != strings.Join(want, "\n") {
		t.Errorf("quotes:\n%s\nwant:\n%s", strings.Join(quotes, "\n"), strings.Join(want, "\n"))
	}
}

// Labels in a definition list scope their own paragraph only.
func TestDefinitionListLabels(t *testing.T) {
	t.Parallel()
	body := "   Change Controller:  The entity that is responsible for the definition\n      of the registration.\n   Notes:  Supplementary notes about the registration.\n\n   Provisional registrations MAY omit the Specification and Notes fields.\n"
	got := analyzeChunk(chunkRead{n: 1, doc: "rfc.txt", body: body}, map[string]profile{"rfc.txt": {Language: "English", UpperOnly: true}})
	if len(got) != 1 || got[0].Citations[0].Quote != "Provisional registrations MAY omit the Specification and Notes fields." {
		t.Fatalf("drafts = %+v", got)
	}
}

// Modal verbs that state no duty.
func TestModalVerbsThatStateNoDuty(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"The process may take up to half an hour.":                               false,
		"There may be references in this publication to other publications.":     false,
		"Hybrid controls may also serve as templates for further refinement.":    false,
		"This document should act as a foundation for the design of the system.": false,
		"Nothing in this publication should be taken to contradict the law.":     false,
		"These are the categories they felt should be included in the survey.":   false,
		"Green: must have":                                    false,
		"Users may export their data at any time.":            true,
		"The operator must keep records for ten years.":       true,
		"Organizations should review accounts every quarter.": true,
	} {
		if _, ok := classify(s, false); ok != want {
			t.Errorf("classify(%q) = %v, want %v", s, ok, want)
		}
	}
}

// A run too long to be one sentence (table rows without full stops) is
// read row by row, not dropped.
func TestLongRunsAreReadRowByRow(t *testing.T) {
	t.Parallel()
	var rows []string
	for i := range 40 {
		rows = append(rows, fmt.Sprintf("Row %d the operator must record the value of sensor %d every hour", i, i))
	}
	body := strings.Join(rows, "\n") + "\n"
	got := analyzeChunk(chunkRead{n: 1, doc: "t.txt", body: body}, map[string]profile{"t.txt": {Language: "English"}})
	if len(got) != 40 || got[39].Citations[0].Quote != rows[39] {
		t.Fatalf("%d drafts from 40 rows; last %+v", len(got), got[len(got)-1].Citations)
	}
	// A single line over the limit is cut at clause ends, each part kept.
	line := strings.Repeat("the archive must keep every record of the year in its original form; ", 30)
	parts := splitLong(sentence{text: line}, maxSentence)
	if len(parts) < 2 || strings.Join(func() []string {
		var t []string
		for _, p := range parts {
			t = append(t, p.text)
		}
		return t
	}(), " ") != strings.TrimSpace(line) {
		t.Fatalf("%d parts do not add up to the line", len(parts))
	}
	// Without a space to cut at, a cut falls between characters.
	word := "a" + strings.Repeat("ä", 1000) // characters start at odd bytes
	parts = splitLong(sentence{text: word}, maxSentence)
	if len(parts) != 2 || !utf8.ValidString(parts[0].text) || parts[0].text+parts[1].text != word {
		t.Fatalf("cut inside a character: %d parts", len(parts))
	}
}

// A requirements table: one requirement per row with an identifier,
// whatever its verb; a row that names something is none.
func TestRequirementTableRows(t *testing.T) {
	t.Parallel()
	body := `3.2 Functional requirements

ID      Requirement                                                     Priority
FR-A1   The system shall allow users to register with an e-mail address  High
FR-A2   Users can reset their password with a link sent by e-mail        Medium
W06     The web interface will display the status of each order          Low
H01     The hardware is to provide two USB ports                         High
REQ-12  Store the audit log for 90 days                                  High
A.11.2  Access control for mobile devices
`
	got := analyzeChunk(chunkRead{n: 1, doc: "srs.txt", body: body}, map[string]profile{"srs.txt": {Language: "English"}})
	var quotes []string
	for _, d := range got {
		quotes = append(quotes, d.Citations[0].Quote)
		if d.Type != "obligation" {
			t.Errorf("%q is a %s", d.Citations[0].Quote, d.Type)
		}
	}
	want := []string{
		"The system shall allow users to register with an e-mail address High",
		"Users can reset their password with a link sent by e-mail Medium",
		"The web interface will display the status of each order Low",
		"The hardware is to provide two USB ports High",
		"Store the audit log for 90 days High",
	}
	if strings.Join(quotes, "\n") != strings.Join(want, "\n") {
		t.Errorf("quotes:\n%s\nwant:\n%s", strings.Join(quotes, "\n"), strings.Join(want, "\n"))
	}
}

// A numbered requirement list in the manner of NIST SP 800-171: labels on
// lines of their own, imperative statements numbered 3.1.1, 3.1.2, ….
func TestNumberedRequirementList(t *testing.T) {
	t.Parallel()
	body := `3.1 ACCESS CONTROL

Basic Security Requirements
3.1.1 Limit information system access to authorized users, processes acting on behalf of
authorized users, or devices (including other information systems).
3.1.2 Limit information system access to the types of transactions and functions that
authorized users are permitted to execute.

Derived Security Requirements
3.1.3 Control the flow of CUI in accordance with approved authorizations.
3.1.4 Separate the duties of individuals to reduce the risk of malevolent activity without
collusion.

Discussion
Organizations may choose to define access privileges by role.
`
	got := analyzeChunk(chunkRead{n: 1, doc: "sp171.pdf", body: body}, map[string]profile{"sp171.pdf": {Language: "English"}})
	if len(got) != 4 || !strings.HasPrefix(got[0].Citations[0].Quote, "Limit information system access to authorized users") ||
		got[3].Citations[0].Quote != "Separate the duties of individuals to reduce the risk of malevolent activity without collusion." {
		for _, d := range got {
			t.Log(d.Citations[0].Quote)
		}
		t.Fatalf("%d drafts, want the 4 numbered statements", len(got))
	}
}

// Catalogs of other editions and publishers: an enhancement's title in
// capitals over its statement, discussion and related controls between
// enhancements, a withdrawn one; a control's label on a line of its own
// over its one statement, guidance over several paragraphs up to the next
// control's title. Each statement carries its control's id.
func TestControlCatalogEditions(t *testing.T) {
	t.Parallel()
	body := `AC-2 ACCOUNT MANAGEMENT

Control:
a. Record the kinds of accounts that the system allows;
b. Set out for each account:
1. The users who may sign in with it; and
2. The access rights it holds.

Discussion: Shared accounts should be rare.

Related Controls: AC-3, IA-2.

Control Enhancements:

(1) ACCOUNT MANAGEMENT | AUTOMATED ACCOUNT HANDLING
Manage system accounts with automated tools.
Discussion: Automated tools can send reminders.
Related Controls: None.

(2) ACCOUNT MANAGEMENT | INACTIVE ACCOUNTS
[Withdrawn: Incorporated into AC-2(1).]

References: None.

5.3 Segregation of duties

Control
Conflicting duties and areas of responsibility are kept apart.

Purpose
To reduce the risk of fraud and error.

Guidance
Duties that should be kept apart include request and approval.

Small organizations should use monitoring instead.

Other information
Roles should be defined in a role-based scheme.

5.4 Contact with authorities

Control
The organization keeps up contact with the relevant authorities.
`
	got := analyzeChunk(chunkRead{n: 1, doc: "c.txt", body: body}, map[string]profile{"c.txt": {Language: "English"}})
	want := []string{
		"AC-2.a Record the kinds of accounts that the system allows;",
		"AC-2.b Set out for each account: 1. The users who may sign in with it; and 2. The access rights it holds.",
		"AC-2(1) Manage system accounts with automated tools.",
		"5.3 Conflicting duties and areas of responsibility are kept apart.",
		"5.4 The organization keeps up contact with the relevant authorities.",
	}
	var quotes []string
	for _, d := range got {
		quotes = append(quotes, d.SourceID+" "+d.Citations[0].Quote)
	}
	if strings.Join(quotes, "\n") != strings.Join(want, "\n") {
		t.Errorf("quotes:\n%s\nwant:\n%s", strings.Join(quotes, "\n"), strings.Join(want, "\n"))
	}
}

// A Markdown heading ends a labelled block, and an item led by a label
// that is no guidance ("- Capacity Enhancement Guide: …") opens none: the
// statement under the next heading is read by its keyword.
func TestHeadingEndsLabelledBlock(t *testing.T) {
	t.Parallel()
	body := "- Rationale: Warnings help users.\n- Capacity Enhancement Guide: Counter-Phishing Recommendations\n\n### Implementation\n\n- Click Finish.\n\n## 13. Mailbox Auditing\n\n### Policies\n\n#### MS.EXO.13.1v1\n\nMailbox auditing SHALL be enabled.\n"
	p := map[string]profile{"b.md": {Language: "English", UpperOnly: true}}
	if got := quotesOf(analyzeChunk(chunkRead{n: 1, doc: "b.md", body: body}, p)); got != "Mailbox auditing SHALL be enabled." {
		t.Errorf("quotes %q", got)
	}
}
