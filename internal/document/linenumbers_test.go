package document

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// numberedPage is a page of a line-numbered document: every line, blank
// ones too, after its number, and a figure whose rows carry none.
func numberedPage(first int, body []string) []string {
	var out []string
	n := first
	for _, l := range body {
		if strings.HasPrefix(l, "FIG ") {
			out = append(out, strings.TrimPrefix(l, "FIG "))
			continue
		}
		out = append(out, strings.TrimRight(fmt.Sprintf("%d %s", n, l), " "))
		n++
	}
	return out
}

func TestRemoveLineNumbers(t *testing.T) {
	t.Parallel()
	body := []string{"3 MQTT Control Packets", "3.1 CONNECT – Client requests a connection", "After a Network Connection is established by a Client to a Server, the first",
		"Packet MUST be a CONNECT Packet [MQTT-3.1.0-1].", "", "A Client can only send the CONNECT Packet once over a", "Network Connection.", "",
		"Figure 3.1 – CONNECT Packet fixed header", "FIG Bit 7 6 5 4 3 2 1 0", "FIG 0 0 0 1 0 0 0 0", "The Server MUST validate the reserved flag.", "",
		"2 bytes follow the header.", "The Server MUST close the connection."}
	pages := [][]string{numberedPage(363, body), numberedPage(380, body)}
	if n := removeLineNumbers(pages); n != 26 {
		t.Errorf("%d lines lost a number, want 26", n)
	}
	want := []string{"3 MQTT Control Packets", "3.1 CONNECT – Client requests a connection", "After a Network Connection is established by a Client to a Server, the first",
		"Packet MUST be a CONNECT Packet [MQTT-3.1.0-1].", "", "A Client can only send the CONNECT Packet once over a", "Network Connection.", "",
		"Figure 3.1 – CONNECT Packet fixed header", "", "Bit 7 6 5 4 3 2 1 0", "0 0 0 1 0 0 0 0", "", "The Server MUST validate the reserved flag.", "",
		"2 bytes follow the header.", "The Server MUST close the connection."}
	for i, p := range pages {
		if !slices.Equal(p, want) {
			t.Errorf("page %d:\n%s\nwant:\n%s", i+1, strings.Join(p, "\n"), strings.Join(want, "\n"))
		}
	}

	// Numbers that do not count line by line stay: sections, a short
	// numbered table, a table of contents.
	for _, text := range []string{
		"1 Introduction\n\nThe text.\n\n2 Scope\n\nMore text.\n\n3 Terms\n",
		"1 Alice 30\n2 Bob 41\n3 Carol 25\n4 Dan 37\n5 Eve 29\n\nThe table lists the members and ages of the committee, who meet once a year.\n",
		"Contents\n1 Introduction 3\n2 Scope 4\n3 Terms 5\n4 Requirements 6\n5 Tests 9\n6 Annex 12\n7 Index 14\n8 History 15\n9 Notes 16\n10 Credits 17\nFirst page text.\n",
	} {
		pages := [][]string{strings.Split(text, "\n")}
		for range 3 {
			pages = append(pages, []string{"A page of running text without any numbers at all."})
		}
		before := strings.Join(pages[0], "\n")
		if n := removeLineNumbers(pages); n != 0 || strings.Join(pages[0], "\n") != before {
			t.Errorf("%d numbers removed from:\n%s\ngiving:\n%s", n, before, strings.Join(pages[0], "\n"))
		}
	}
}

// A plain-text bill numbers its lines too; the numbers go.
func TestExtractTextLineNumbers(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i, l := range []string{"SECTION 1. SHORT TITLE.", "This Act may be cited as the Records Act.", "", "SECTION 2. RETENTION.",
		"(a) An agency shall retain each record for", "seven years after its creation.", "(b) An agency shall not destroy a record", "before that period ends.",
		"", "SECTION 3. REPORTS.", "Each agency shall report once a year."} {
		fmt.Fprintf(&b, "%d %s\n", i+1, l)
	}
	doc, err := extractText([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if text := doc.Text(); !strings.Contains(text, "(a) An agency shall retain each record for\nseven years") || strings.Contains(text, "6 seven") {
		t.Errorf("text:\n%s", text)
	}
}
