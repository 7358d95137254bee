package offlinemodel

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestTableFindings checks the column roles and the rows kept across the
// family of tables: with and without a header row, ids of every form,
// empty cells, duties by cue, imperative or verification verb, rows that
// state none, and tables that are no requirements tables.
func TestTableFindings(t *testing.T) {
	t.Parallel()
	type row struct {
		id    string
		quote string
		attrs map[string]string
	}
	cases := []struct {
		name, text string
		want       []row
	}{
		{"header and rule", "| ID | Requirement | Priority | Owner |\n|---|---|---|---|\n" +
			"| BK-01 | The system shall keep a copy of every backup. | High | Operations |\n" +
			"| BK-02 | Encrypt all backups with a managed key. | High | |\n" +
			"| BK-03 | Rotate the keys every 90 days. | Medium | Security |\n" +
			"| BK-04 | See the operations manual for the restore procedure. | Low | Operations |\n" +
			"| BK-05 | Backups are described in the operations manual. | Low | Operations |\n" +
			"| BK-06 | [Deleted, merged with BK-02] | | |\n",
			[]row{
				{"BK-01", "The system shall keep a copy of every backup.", map[string]string{"priority": "High", "owner": "Operations"}},
				{"BK-02", "Encrypt all backups with a managed key.", map[string]string{"priority": "High"}},
				{"BK-03", "Rotate the keys every 90 days.", map[string]string{"priority": "Medium", "owner": "Security"}},
			}},
		{"header without rule, id after a label column", "| Area | Req. ID | Description | Risk Level |\n" +
			"| Access | 3.1.10 | Users must lock their screens after 15 minutes. | 2 |\n" +
			"| Access | 3.1.11 | Verify that sessions end after 30 minutes without activity. | 3 |\n",
			[]row{
				{"3.1.10", "Users must lock their screens after 15 minutes.", map[string]string{"area": "Access", "risk_level": "2"}},
				{"3.1.11", "Verify that sessions end after 30 minutes without activity.", map[string]string{"area": "Access", "risk_level": "3"}},
			}},
		{"no header: ids and statements", "| 1.3.9 | Verify that the application sanitizes content before it is sent to memcache. | 2 |\n" +
			"| 1.3.10 | Verify that format strings are sanitized before being processed. | 2 |\n" +
			"| 1.3.11 | Verify that user input is sanitized before it is passed to mail systems. | 3 |\n",
			[]row{
				{"1.3.9", "Verify that the application sanitizes content before it is sent to memcache.", map[string]string{"column_3": "2"}},
				{"1.3.10", "Verify that format strings are sanitized before being processed.", map[string]string{"column_3": "2"}},
				{"1.3.11", "Verify that user input is sanitized before it is passed to mail systems.", map[string]string{"column_3": "3"}},
			}},
		{"requirements without ids", "| Requirement | Priority |\n|---|---|\n| The portal must log every failed login. | High |\n| The portal is hosted in Frankfurt. | Low |\n",
			[]row{{"", "The portal must log every failed login.", map[string]string{"priority": "High"}}}},
		{"a table of topics: cues only", "| Topic | Guidance |\n|---|---|\n| Passwords | Passwords must have at least 12 characters. |\n| Screens | Lock the screen when you leave the desk. |\n| Printing | Printers are on every floor of the building. |\n",
			[]row{{"", "Passwords must have at least 12 characters.", map[string]string{"topic": "Passwords"}}}},
		{"glossary", "| Term | Definition |\n|---|---|\n| Backup | A copy of the data that must be kept apart from the original. |\n| Region | A location of the provider with its own data centres. |\n", nil},
		{"revision history", "| Version | Date | Changes |\n|---|---|---|\n| 1.0 | 2025-01-10 | Encrypt all backups: added as BK-02. |\n| 1.1 | 08-12-2009 | The system shall log logins: added. |\n", nil},
		{"history without a header", "| 08-12-2009 | Editorial | Change AC-19 f. to AC-19 e. in the whole section. | Page F-17 |\n| 09-14-2009 | Editorial | Change SC-32 Priority Code from P0 to P1 in the table. | Page D-7 |\n", nil},
		{"names and values", "| Vuln ID | V-270174 |\n| Rule ID | SV-270174r1044831_rule |\n| Severity | CAT II |\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			found, _, _ := tableFindings(c.text, nil)
			var got []row
			for _, x := range found {
				if !strings.Contains(c.text, x.s.text) || c.text[x.s.start:x.s.start+len(x.s.text)] != x.s.text {
					t.Errorf("quote %q does not stand at its offset", x.s.text)
				}
				attrs := x.attrs
				if len(attrs) == 0 {
					attrs = nil
				}
				got = append(got, row{x.id, x.quote, attrs})
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestTableRowAcrossPages checks that a row whose text goes on after a
// page break (the rest in a row without an id under the repeated header)
// is one requirement quoted in two parts.
func TestTableRowAcrossPages(t *testing.T) {
	t.Parallel()
	text := "| # | Description | Level |\n|---|---|---|\n" +
		"| 2.1.6 | Verify that regular expressions are free of catastrophic backtracking. | 3 |\n" +
		"| 2.1.7 | Ensure that numbers taken from input are checked against the limits of the type the | 2 |\n" +
		"--- page 2 ---\n| # | Description | Level |\n|---|---|---|\n" +
		"| | service stores them in before any arithmetic is done with them. | |\n" +
		"| 3.1.1 | Verify that security events are logged. | 1 |\n"
	found, _, _ := tableFindings(text, nil)
	if len(found) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(found), found)
	}
	x := found[1]
	if x.id != "2.1.7" || x.quote != "Ensure that numbers taken from input are checked against the limits of the type the" ||
		!reflect.DeepEqual(x.more, []string{"service stores them in before any arithmetic is done with them."}) ||
		x.text != "Ensure that numbers taken from input are checked against the limits of the type the service stores them in before any arithmetic is done with them." {
		t.Errorf("row across the page break: %+v", x)
	}
	if found[2].id != "3.1.1" {
		t.Errorf("the row after it: %+v", found[2])
	}
}

// A story whose row goes on after a page break keeps the rest of its
// text, as a row without criteria does; its acceptance criteria are
// requirements of its own id.
func TestStoryRowAcrossPages(t *testing.T) {
	t.Parallel()
	text := "| ID | User story | Acceptance criteria |\n|---|---|---|\n" +
		"| US-1 | As a clerk, I want to undo a booking, so that I can put right a booking made in error on the | The booking is restored within a minute. |\n" +
		"--- page 2 ---\n| ID | User story | Acceptance criteria |\n|---|---|---|\n" +
		"| | same day without help. | |\n" +
		"| US-2 | As an auditor, I want to export the ledger, so that I can check it. | The export holds every booking. |\n"
	rows, _, _ := tableFindings(text, nil)
	var story *found
	for i := range rows {
		if rows[i].id == "US-1" && strings.HasPrefix(rows[i].quote, "As a clerk") {
			story = &rows[i]
		}
	}
	if story == nil {
		t.Fatalf("no story US-1: %+v", rows)
	}
	if !reflect.DeepEqual(story.more, []string{"same day without help."}) {
		t.Errorf("the story's text on the next page: %q (%q)", story.more, story.text)
	}
	criteria := 0
	for _, x := range rows {
		if strings.HasPrefix(x.quote, "The booking is restored") && x.id == "US-1" || strings.HasPrefix(x.quote, "The export holds") && x.id == "US-2" {
			criteria++
		}
	}
	if criteria != 2 {
		t.Errorf("%d acceptance criteria with their story's id, want 2: %+v", criteria, rows)
	}
}

// TestImperativeLead checks the imperatives told by their form, beyond
// the verbs listed.
func TestImperativeLead(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]bool{
		"Rotate the encryption keys every 90 days.":    true,
		"Process all payments within one day.":         true,
		"Quarantine any file that fails the scan.":     true,
		"Shred printed customer data after use.":       true,
		"Backups of the database are kept offsite.":    false,
		"Stores all logs for a year.":                  false,
		"Encrypted the backups last year.":             false,
		"During the night the backups run.":            false,
		"All backups are encrypted.":                   false,
		"Product pages load in under two seconds.":     false,
		"Regularly the team reviews all the accounts.": false,
	} {
		if got := imperativeLead(q); got != want {
			t.Errorf("imperativeLead(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestProseWithTable checks a document of prose with a small numbered
// table: each row is one requirement (not the whole table read as one
// sentence), the prose around it is read by its cues, and a glossary
// beside it states nothing though a definition says "must".
func TestProseWithTable(t *testing.T) {
	t.Parallel()
	body := "# Office policy\n\nStaff should lock their screens when they leave the desk.\n\n" +
		"| No. | Rule | Applies to |\n|---|---|---|\n" +
		"| 1 | Visitors must sign in at the front desk. | Reception |\n" +
		"| 2 | Shred printed customer data after use. | All staff |\n\n" +
		"| Term | Meaning |\n|---|---|\n| Visitor | A person who must be accompanied by a member of staff. |\n| Desk | The place where the member of staff works. |\n\n" +
		"The policy was approved by the board in March.\n"
	p := makeProfile("policy.md", body, nil)
	if p.Shape != shapeProse {
		t.Fatalf("shape %q, want prose", p.Shape)
	}
	drafts := analyzeChunk(chunkRead{n: 1, doc: "policy.md", body: body}, map[string]profile{"policy.md": p})
	type rec struct{ id, quote, attrs string }
	var got []rec
	for _, d := range drafts {
		got = append(got, rec{d.SourceID, d.Citations[0].Quote, fmt.Sprint(d.Attributes)})
	}
	want := []rec{
		{"", "Staff should lock their screens when they leave the desk.", "map[]"},
		{"1", "Visitors must sign in at the front desk.", "map[applies_to:Reception]"},
		{"2", "Shred printed customer data after use.", "map[applies_to:All staff]"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
