package offlinemodel

import (
	"strings"
	"testing"
)

// The shape is told from the text and travels with the profile.
func TestShapeProfileRoundTrip(t *testing.T) {
	table := "Intro text.\n\n1.1.1 Verify that a is b for c. 1\n1.1.2 Ensure that d is e. 2\nC.4 Verify that f is g and h. 3\n"
	rules := "Group ID (Vulid): V-1\nRule ID: SV-1r1_rule\nSeverity: CAT II\nRule Title: The server must log.\n\nCheck Content:\nIf not, this is a finding.\n\nGroup ID (Vulid): V-2\nRule ID: SV-2r1_rule\nSeverity: CAT I\nRule Title: The server must not listen.\n\nCheck Content:\nIf it does, this is a finding.\n"
	for text, want := range map[string]string{table: shapeTable, rules: shapeRules, "The system must do X. It should do Y.": ""} {
		p := makeProfile("d.pdf", text, nil)
		back := parseProfiles(p.render())["d.pdf"]
		if p.Shape != want && !(want == "" && p.Shape == shapeProse) || back.Shape != want {
			t.Errorf("shape %q, read back %q, want %q", p.Shape, back.Shape, want)
		}
	}
}

// Rows with ticks, letter ids and deleted rows; titles in a table cell and
// in a heading.
func TestShapeRowsAndTitles(t *testing.T) {
	rows := verificationRows("C.4 Ensure that the archive is encrypted at rest ✓ ✓\nwith a key held elsewhere.\nC.5 [DELETED, merged with C.4]\n2.1 Verify that logs are kept.\n1\n")
	if len(rows) != 2 || rows[0].text != "Ensure that the archive is encrypted at rest with a key held elsewhere." || rows[0].levels != "✓ ✓" || rows[0].id != "C.4" ||
		rows[1].text != "Verify that logs are kept." || rows[1].levels != "1" {
		t.Errorf("rows: %+v", rows)
	}
	titles := ruleTitles("## SV-1r1_rule — The server must rotate its keys.\n\nRule Title | The server must not allow guest logins. | x\nDiscussion: Guests must not log in.\n")
	var got []string
	for _, x := range titles {
		got = append(got, x.quote)
	}
	if strings.Join(got, "|") != "The server must rotate its keys.|The server must not allow guest logins." {
		t.Errorf("titles: %q", got)
	}
}
