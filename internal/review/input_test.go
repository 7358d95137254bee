package review

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// decisionBody is the JSON of a decision with the given note and changes.
func decisionBody(t *testing.T, decision, note string, changes map[string]string) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"decision": decision, "note": note, "changes": changes})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Text a person cannot mean — control characters, bidi overrides — and
// oversized edits are refused with a 400 that names the field and the
// place, and change nothing.
func TestDecisionTextIsChecked(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	cases := []struct {
		name, body, want string
	}{
		{"bidi override in the note", decisionBody(t, "rejected", "bad \u202Etxt.exe", nil),
			`"note" holds the bidirectional formatting character U+202E at character 5`},
		{"bidi isolate in the text", decisionBody(t, "edited", "", map[string]string{"text": "Keep \u2066it\u2069"}),
			"changes.text holds the bidirectional formatting character U+2066 at character 6"},
		{"NUL in the text", decisionBody(t, "edited", "", map[string]string{"text": "ab\x00c"}),
			"changes.text holds the control character U+0000 at character 3"},
		{"escape sequence in the title", decisionBody(t, "edited", "", map[string]string{"title": "Keep \x1b[31mred"}),
			"changes.title holds the control character U+001B at character 6"},
		{"C1 control in the note", decisionBody(t, "accepted", "ok\u009b", nil),
			`"note" holds the control character U+009B at character 3`},
		{"lone carriage return", decisionBody(t, "accepted", "one\rtwo", nil),
			`"note" holds the control character U+000D at character 4`},
		{"control character in an enumerated field", decisionBody(t, "edited", "", map[string]string{"priority": "low\x00"}),
			"changes.priority holds the control character U+0000 at character 4"},
		{"text over 8 kB", decisionBody(t, "edited", "", map[string]string{"text": strings.Repeat("ü", 4097)}),
			"changes.text is 8194 bytes long; keep it to 8192 (8 kB)"},
		{"note over 4000 characters", decisionBody(t, "rejected", strings.Repeat("x", 4001), nil),
			"the note is 4001 characters long; keep it to 4000"},
	}
	before := folderHash(t, job.Dir)
	for _, c := range cases {
		res, err := http.Post(srv.URL+"/api/requirements/REQ-001/review", "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		status, v := decode(t, res)
		if status != http.StatusBadRequest || fmt.Sprint(v["error"]) == "" || !strings.Contains(fmt.Sprint(v["error"]), c.want) {
			t.Errorf("%s: %d %v; want 400 %q", c.name, status, v["error"], c.want)
		}
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a refused request changed the job folder")
	}
}

// New lines and tabs are taken, a line break written \r\n as \n, and a
// text of exactly 8 kB.
func TestDecisionTextTakesLinesAndTabs(t *testing.T) {
	t.Parallel()
	d, err := ParseDecision(strings.NewReader(decisionBody(t, "edited", "first line\r\nsecond\tcolumn",
		map[string]string{"text": "Keep invoices\nfor ten years.", "title": "Keep\tinvoices"})))
	if err != nil {
		t.Fatal(err)
	}
	if d.Note != "first line\nsecond\tcolumn" || d.Changes["text"] != "Keep invoices\nfor ten years." || d.Changes["title"] != "Keep\tinvoices" {
		t.Errorf("decision = %+v", d)
	}
	if _, err := ParseDecision(strings.NewReader(decisionBody(t, "edited", "", map[string]string{"text": strings.Repeat("x", 8192)}))); err != nil {
		t.Errorf("a text of 8 kB: %v", err)
	}
}
