package quality

import (
	"strings"
	"testing"
	"time"

	"creator/internal/evaluate"
	"creator/internal/requirement"
)

func TestMarginNumbers(t *testing.T) {
	t.Parallel()
	ref := "1112 The Server MUST send one CONNACK in a\n1113 Network Connection [MQTT-3.2.0-2].\n1114\n" +
		"2 Scope\n\nSome text about 40 bytes.\n\n3 Terms\n"
	marks := MarginNumbers(ref)
	if !marks["1113 network"] || !marks["1112 the"] || marks["2 scope"] || marks["3 terms"] {
		t.Fatalf("marks = %v", marks)
	}
	for quote, want := range map[string]string{
		"The Server MUST send one CONNACK in a 1113 Network Connection.": `margin line number "1113"`,
		"The Server MUST send one CONNACK in a Network Connection.":      "",
		"See 2 Scope for the 40 bytes.":                                  "",
		"**Description**: the system shall log.":                         `markup "**"`,
		"<!--Policy: MS.AAD.1.1v1; Criticality: SHALL -->":               `markup "<!--"`,
		"See [the guide](https://example.org) first.":                    `markup "](https:"`,
		"_Note:_ this applies.":                                          `markup "_Note:_"`,
		"#### MS.AAD.1.1v1 Legacy authentication SHALL be blocked.":      `markup "####"`,
		"snake_case_names and a_b stay.":                                 "",
		"URI [RFC3986](Section 4.1)), followed by #":                     "",
	} {
		if got := QuoteDefect(quote, marks); got != want {
			t.Errorf("QuoteDefect(%q) = %q, want %q", quote, got, want)
		}
	}
}

func TestScoreAndFloors(t *testing.T) {
	t.Parallel()
	gold := []evaluate.Gold{
		{ID: "R-1", Quote: "The archive must keep invoices for ten years.", Level: "MUST"},
		{ID: "R-2", Quote: "Records must not be deleted before the end of the period.", Level: "MUST"},
	}
	recs := []requirement.Record{
		{ID: "REQ-001", SourceID: "R-1", Citations: []requirement.Citation{{Quote: "The archive must keep invoices for ten years."}}},
		{ID: "REQ-002", Citations: []requirement.Citation{{Quote: "**Records** must not be deleted before the end of the period."}}},
	}
	row := Score("policy.md", recs, gold, "", Floors{Recall: 0.95, Precision: 0.9, SourceID: 0.95, Labelled: true}, 1500*time.Millisecond)
	if row.Result.Recall != 1 || row.Result.SourceIDs.Share != 0.5 || len(row.Defects) != 1 {
		t.Fatalf("row = %+v", row)
	}
	f := strings.Join(row.Failures(), "\n")
	if !strings.Contains(f, "source_id 0.500 (1 of 2) is below its floor 0.95") || !strings.Contains(f, `REQ-002: markup "**"`) || strings.Contains(f, "recall") {
		t.Errorf("failures:\n%s", f)
	}
	var b strings.Builder
	row.Note = "the gold list holds tagged statements only"
	row.Floors.Precision = 0
	if err := Write(&b, []Row{row}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, "| policy.md") || !strings.Contains(s, "1.000 *") || !strings.Contains(s, "0.500 (1/2)") ||
		!strings.Contains(s, "1.5 s") || !strings.Contains(s, "* policy.md: the gold list holds tagged statements only") {
		t.Errorf("board:\n%s", s)
	}
}
