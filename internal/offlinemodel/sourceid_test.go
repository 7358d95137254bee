package offlinemodel

import (
	"encoding/json"
	"strings"
	"testing"
)

// A requirement from a row or a numbered clause that carries the
// document's id gets that id as its source_id; lettered and bracketed
// items of a control get its id with their letter or number ("AC-2.a",
// "AC-2(1)"), and sentences read by their cues get none.
func TestSourceIDsOfRowsAndClauses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		want       []string // quote prefix = source id
	}{
		{"a requirements table", `3.2 Functional requirements

ID      Requirement
FR-A1   The system shall allow users to register with an e-mail address
FR-1.1  Users can reset their password with a link sent by e-mail
BK-01   The web interface will display the status of each order
V1.2.3  Verify that the application encodes output for its context
A.11.2  Access control for mobile devices
`, []string{"The system shall allow=FR-A1", "Users can reset=FR-1.1", "The web interface=BK-01", "Verify that the application=V1.2.3"}},
		{"a numbered requirement list", `3.1 ACCESS CONTROL

Basic Security Requirements
3.1.1 Limit information system access to authorized users, processes acting on behalf of
authorized users, or devices.
3.1.2. Limit information system access to the types of transactions that users may execute.

Discussion
The organization must define access privileges by role.
`, []string{"Limit information system access to authorized=3.1.1", "Limit information system access to the types=3.1.2"}},
		{"lettered items and cue sentences", `AC-2 ACCOUNT MANAGEMENT

Control: The organization manages information system accounts, including:
a. Identifying account types for the information system;
b. Establishing conditions for group membership;

4.2 Retention

Invoices must be kept for ten years.
`, []string{"Identifying account types=AC-2.a", "Establishing conditions=AC-2.b", "Invoices must be kept="}},
	}
	for _, c := range cases {
		got := analyzeChunk(chunkRead{n: 1, doc: "d.txt", body: c.body}, map[string]profile{"d.txt": {Language: "English"}})
		var have []string
		for _, d := range got {
			have = append(have, d.Citations[0].Quote+"="+d.SourceID)
		}
		if len(have) != len(c.want) {
			t.Errorf("%s: %d drafts, want %d:\n%s", c.name, len(have), len(c.want), strings.Join(have, "\n"))
			continue
		}
		for i, w := range c.want {
			prefix, id, _ := strings.Cut(w, "=")
			if !strings.HasPrefix(have[i], prefix) || !strings.HasSuffix(have[i], "="+id) {
				t.Errorf("%s: draft %d is %q, want %q… with source id %q", c.name, i+1, have[i], prefix, id)
			}
		}
	}
	// The id goes to save_requirement; a draft without one leaves it out.
	d := draft{Title: "t", SourceID: "FR-1.1"}
	with, _ := json.Marshal(d)
	d.SourceID = ""
	without, _ := json.Marshal(d)
	if !strings.Contains(string(with), `"source_id":"FR-1.1"`) || strings.Contains(string(without), "source_id") {
		t.Errorf("save arguments %s, %s", with, without)
	}
}
