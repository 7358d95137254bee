package document

import (
	"strings"
	"testing"
)

// A numbered sentence that states a duty is a requirement inside its
// section, not a section; numbered titles beside it stay headings.
func TestNumberedRequirementsAreNotHeadings(t *testing.T) {
	t.Parallel()
	text := `3 Retention of accounting records

3.1 Retention periods

3.1.1 The finance department must retain invoices, booking vouchers and annual
financial statements for ten years.

3.1.2 Business letters shall be kept for six years.

3.2 Storage

3.2.1 Records must be stored in the archive in a form that cannot be altered.

4 Personal data

4.1 Deletion

4.1.1 Die Buchhaltung muss personenbezogene Daten nach Ablauf der Frist löschen.

4.2 Reports due in May
`
	var got []string
	for _, h := range findHeadings(strings.Split(text, "\n")) {
		got = append(got, h.title)
	}
	want := []string{"3 Retention of accounting records", "3.1 Retention periods", "3.2 Storage", "4 Personal data", "4.1 Deletion", "4.2 Reports due in May"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("headings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
