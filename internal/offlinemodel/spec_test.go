package offlinemodel

import (
	"strings"
	"testing"
)

// TestSpecShapes checks the shapes of specifications and numbered lists
// from their layout, and what is read from them: items with identifiers in
// list items, table rows, headings and cells of their own; stories and
// scenarios; statements of requirements sections; no "will" of an
// overview, no question, no numbered title, no discussion.
func TestSpecShapes(t *testing.T) {
	spec := "## 1 Overview\n\nThe system will be used by clerks.\n\n## 2 Requirements\n\n" +
		"### REQ-7: Export the ledger as CSV files\n\n### SEC-04\n\nAll access is logged.\n\n" +
		"- **FR-1.2:** Filter by size, color, price range\n" +
		"| NFR-3 | Pages load in under 2 seconds. |\n" +
		"REQ-012\tUser can reset the password\n" +
		"Users can export reports as PDF.\n\nShould the archive be searchable?\n\n" +
		"As a clerk, I want to undo a booking, so that mistakes are cheap.\n\n" +
		"Given a booked order\nWhen the clerk cancels it\nThen the stock is restored\n"
	if got := documentShape(spec); got != shapeSpec {
		t.Fatalf("shape %q, want %q", got, shapeSpec)
	}
	want := map[string]string{
		"Export the ledger as CSV files":                                            "REQ-7",
		"All access is logged.":                                                     "SEC-04",
		"Filter by size, color, price range":                                        "FR-1.2",
		"Pages load in under 2 seconds.":                                            "NFR-3",
		"User can reset the password":                                               "REQ-012",
		"Users can export reports as PDF.":                                          "",
		"As a clerk, I want to undo a booking, so that mistakes are cheap.":         "",
		"Given a booked order When the clerk cancels it Then the stock is restored": "",
	}
	got := map[string]string{}
	for _, x := range specItems(spec, "", profile{Shape: shapeSpec}) {
		got[x.quote] = x.id
	}
	for q, id := range want {
		if gid, ok := got[q]; !ok || gid != id {
			t.Errorf("%q: found %v with id %q, want id %q", q, ok, gid, id)
		}
	}
	if len(got) != len(want) {
		t.Errorf("found %d, want %d: %q", len(got), len(want), got)
	}

	list := "3.1 Remote Access\n\n3.1.1 Restrict remote access to approved devices.\nDISCUSSION\nAccess must be logged.\n" +
		"3.1.2 Route all remote connections through\nthe VPN.\nDISCUSSION\nThe VPN should be monitored.\n3.1.3 Require two factors for remote logins.\n\n" +
		"Note: Teams must not skip this.\n"
	if got := documentShape(list); got != shapeNumbered {
		t.Fatalf("shape %q, want %q", got, shapeNumbered)
	}
	var quotes []string
	for _, x := range numberedItems(list, profile{Shape: shapeNumbered}) {
		quotes = append(quotes, x.id+" "+x.quote)
	}
	if w := "3.1.1 Restrict remote access to approved devices.|3.1.2 Route all remote connections through the VPN.|3.1.3 Require two factors for remote logins."; strings.Join(quotes, "|") != w {
		t.Errorf("items %q, want %q", quotes, w)
	}
	// The shapes round-trip through the profile's text.
	for _, s := range []string{shapeSpec, shapeNumbered} {
		p := profile{Document: "a.md", Language: "English", Shape: s}
		if back := parseProfiles(p.render())["a.md"]; back.Shape != s {
			t.Errorf("shape %q read back as %q", s, back.Shape)
		}
	}
}

// An id-headed field list in a specification is one requirement: its
// statement field, with the id of its heading; the heading's title is no
// second requirement.
func TestSpecFieldList(t *testing.T) {
	text := "## 4 Non-functional requirements\n\n### FR-001 Job list\n\nThe app shall show the jobs of the day.\n\n" +
		"### NFR-PF-001 Map view load time\n\nCategory: Performance\n" +
		"Description: The map view shall load within 2 seconds on a 4G connection.\nMeasurable Metric: 95th percentile under 2 s\n"
	got := map[string]string{}
	for _, x := range specificationShape.extract(chunkRead{body: text}, profile{Shape: shapeSpec}) {
		got[x.quote] = x.id
	}
	want := map[string]string{
		"The app shall show the jobs of the day.":                      "FR-001",
		"The map view shall load within 2 seconds on a 4G connection.": "NFR-PF-001",
	}
	if len(got) != len(want) {
		t.Errorf("found %q, want %q", got, want)
	}
	for q, id := range want {
		if got[q] != id {
			t.Errorf("%q: id %q, want %q (found %q)", q, got[q], id, got)
		}
	}
}
