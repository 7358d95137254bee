package export

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"creator/internal/requirement"
	"creator/internal/reviewlog"
)

func TestAuditCSVNeutralisesFormulas(t *testing.T) {
	t.Parallel()
	entries := []reviewlog.Entry{
		{Seq: 1, Time: "2026-11-23T10:00:00Z", Reviewer: "=cmd|'/c calc'!A1", Requirement: "REQ-001", Action: "decision", From: "pending", To: "edited",
			Changes: map[string]reviewlog.Change{"title": {Old: "Keep invoices", New: "+Keep"}, "priority": {Old: "high", New: "low"}}, Note: "@SUM(A1)", Version: 1,
			After: &requirement.Review{Status: "edited", At: "2026-11-23T10:00:00Z"}},
		{Seq: 2, Time: "2026-11-23T10:01:00Z", Reviewer: "bob", Requirement: "REQ-001", Action: "undo", From: "edited", To: "pending", Note: "-1\tx", Version: 2, Undoes: 1},
		{Seq: 3, Time: "2026-11-23T10:02:00Z", Reviewer: "\rcarol", Requirement: "REQ-002", Action: "bulk", From: "pending", To: "rejected", Note: "a = b", Version: 1},
	}
	data, err := AuditCSV(entries)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || strings.Join(rows[0], ",") != "seq,time,reviewer,requirement,action,from,to,changes,note,version,undoes" {
		t.Fatalf("rows %q", rows)
	}
	if rows[1][2] != "'=cmd|'/c calc'!A1" || rows[1][8] != "'@SUM(A1)" || rows[1][7] != "priority: high → low\ntitle: Keep invoices → +Keep" {
		t.Errorf("row 1 %q", rows[1])
	}
	if rows[2][8] != "'-1\tx" || rows[2][10] != "1" || rows[2][4] != "undo" {
		t.Errorf("row 2 %q", rows[2])
	}
	if rows[3][2] != "'\rcarol" || rows[3][8] != "a = b" || rows[3][10] != "" {
		t.Errorf("row 3 %q", rows[3])
	}
	for _, s := range []string{"=1", "+1", "-1", "@a", "\ta", "\ra"} {
		if NeutralCell(s) != "'"+s {
			t.Errorf("%q not neutralised", s)
		}
	}
	for _, s := range []string{"", "a=1", "1-2", "'=x"} {
		if NeutralCell(s) != s {
			t.Errorf("%q changed", s)
		}
	}
	js, err := AuditJSON(entries)
	var back []reviewlog.Entry
	if err != nil || json.Unmarshal(js, &back) != nil || len(back) != 3 || back[0].Changes["title"].New != "+Keep" || back[1].Undoes != 1 {
		t.Errorf("audit-json %v %s", err, js)
	}
	if js, _ := AuditJSON(nil); strings.TrimSpace(string(js)) != "[]" {
		t.Errorf("empty log: %s", js)
	}
}
