package export

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"creator/internal/reviewlog"
)

// AuditFormats are the formats of a job's review log (review/decisions.jsonl):
// --format audit-json and audit-csv.
var AuditFormats = []string{"audit-json", "audit-csv"}

// AllFormats are the formats of an export: the requirements' (Formats),
// then the review log's (AuditFormats).
var AllFormats = slices.Concat(Formats, AuditFormats)

// AuditJSON is the review log as one JSON array of its entries, oldest
// first.
func AuditJSON(entries []reviewlog.Entry) ([]byte, error) {
	if entries == nil {
		entries = []reviewlog.Entry{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(entries)
	return b.Bytes(), err
}

// AuditHeader are the columns of AuditCSV.
var AuditHeader = []string{"seq", "time", "reviewer", "requirement", "action", "from", "to", "changes", "note", "version", "undoes"}

// AuditCSV is the review log as CSV, one row per entry with a header. The
// changed fields are one cell, "field: old → new" a line each. A cell that
// a spreadsheet would take for a formula gets a leading apostrophe.
func AuditCSV(entries []reviewlog.Entry) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(AuditHeader)
	for _, e := range entries {
		var changes []string
		for _, name := range slices.Sorted(maps.Keys(e.Changes)) {
			c := e.Changes[name]
			changes = append(changes, name+": "+c.Old+" → "+c.New)
		}
		undoes := ""
		if e.Undoes > 0 {
			undoes = strconv.Itoa(e.Undoes)
		}
		row := []string{strconv.Itoa(e.Seq), e.Time, e.Reviewer, e.Requirement, e.Action, e.From, e.To,
			strings.Join(changes, "\n"), e.Note, strconv.Itoa(e.Version), undoes}
		for i := range row {
			row[i] = NeutralCell(row[i])
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// NeutralCell keeps a spreadsheet from reading a cell as a formula: a
// cell that starts with =, +, -, @, a tab or a carriage return gets a
// leading apostrophe, which spreadsheets show as text.
func NeutralCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
