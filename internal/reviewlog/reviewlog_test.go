package reviewlog

import (
	"strings"
	"testing"
)

// A last line a kill tore is left out; a damaged line before it is an
// error that names it.
func TestParse(t *testing.T) {
	t.Parallel()
	a, _ := Line(Entry{Seq: 1, Requirement: "REQ-001", Action: Decision, To: "accepted", Version: 1})
	b, _ := Line(Entry{Seq: 2, Requirement: "REQ-001", Action: Undo, Undoes: 1, Version: 2})
	entries, err := Parse[Entry](DecisionsFile, append(append(a, b...), `{"seq": 3, "requi`...))
	if err != nil || len(entries) != 2 || entries[1].Undoes != 1 || entries[0].To != "accepted" {
		t.Fatalf("%v %+v", err, entries)
	}
	if entries, err := Parse[Entry](DecisionsFile, nil); err != nil || len(entries) != 0 {
		t.Errorf("empty log: %v %v", err, entries)
	}
	_, err = Parse[Entry](DecisionsFile, append(append(a, "{not json\n"...), b...))
	if err == nil || !strings.Contains(err.Error(), "review/decisions.jsonl line 2") {
		t.Errorf("a damaged line: %v", err)
	}
}
