package offlinemodel

import (
	"reflect"
	"testing"
)

// A rule's metadata lines before its title give its id (the STIG id) and
// its other columns; they never reach the next rule.
func TestRuleTitlesKeepTheirMetadata(t *testing.T) {
	t.Parallel()
	text := `Group ID (Vulid): V-1
Rule ID: SV-1r1_rule
Severity: CAT I
Rule Version (STIG-ID): ABC-01-000010
Rule Title: The server must log every administrative login.

Discussion: Logging lets an administrator see who logged in.

Severity: CAT III
STIG ID: ABC-01-000015
Rule Title: Obsolete.

Rule ID | SV-2r3_rule
STIG ID | ABC-01-000020
Rule Title: The server must not allow anonymous access.
`
	got := ruleTitles(text)
	if len(got) != 2 {
		t.Fatalf("%d titles", len(got))
	}
	if got[0].id != "ABC-01-000010" || !reflect.DeepEqual(got[0].attrs, map[string]string{"group_id": "V-1", "rule_id": "SV-1r1_rule", "severity": "CAT I"}) {
		t.Errorf("first rule: %q %v", got[0].id, got[0].attrs)
	}
	if got[1].id != "ABC-01-000020" || !reflect.DeepEqual(got[1].attrs, map[string]string{"rule_id": "SV-2r3_rule"}) {
		t.Errorf("second rule: %q %v", got[1].id, got[1].attrs)
	}
}
