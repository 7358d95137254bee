package requirement

import (
	"fmt"
	"strings"
	"testing"
)

func valid() Record {
	return Record{ID: "REQ-001", Title: "Keep records", Text: "The operator must keep records for ten years.", Type: "obligation",
		Category: "compliance", Priority: "high", Frameworks: []string{"GoBD"}, Confidence: 0.9, Rationale: "'must' sets a duty",
		Citations: []Citation{{Document: "policy.pdf", Chunk: "chunk_001", Page: 2, Quote: "Records must be kept for ten years."}}}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	good, _ := Marshal(valid())
	if err := Validate(good); err != nil {
		t.Fatalf("valid record refused: %v", err)
	}
	cases := []struct {
		change func(*Record)
		want   string
	}{
		{func(r *Record) { r.Type = "must" }, "field type"},
		{func(r *Record) { r.Category = "" }, "field category"},
		{func(r *Record) { r.Priority = "urgent" }, "field priority"},
		{func(r *Record) { r.Title = strings.Repeat("t", 81) }, "field title"},
		{func(r *Record) { r.Confidence = 1.5 }, "field confidence"},
		{func(r *Record) { r.Citations = nil }, "field citations"},
		{func(r *Record) { r.Citations[0].Quote = "" }, "field citations[].quote"},
		{func(r *Record) { r.Citations[0].Chunk = "7" }, "field citations[].chunk"},
		{func(r *Record) { r.ID = "R1" }, "field id"},
		{func(r *Record) { r.Text = "" }, "field text"},
		{func(r *Record) { r.SourceID = " V1.2.3" }, "field source_id"},
		{func(r *Record) { r.SourceID = "V1\n2" }, "field source_id"},
		{func(r *Record) { r.SourceID = strings.Repeat("1", 101) }, "field source_id"},
		{func(r *Record) { r.Attributes = map[string]string{"level": ""} }, "field attributes"},
		{func(r *Record) { r.Attributes = map[string]string{"level": "2\n3"} }, "field attributes"},
		{func(r *Record) { r.Attributes = map[string]string{"level ": "2"} }, "field attributes"},
		{func(r *Record) { r.Attributes = map[string]string{"": "2"} }, "field attributes"},
		{func(r *Record) { r.Attributes = map[string]string{"note": strings.Repeat("x", 501)} }, "field attributes"},
		{func(r *Record) {
			r.Attributes = map[string]string{}
			for i := range 21 {
				r.Attributes[fmt.Sprint("c", i)] = "x"
			}
		}, "field attributes"},
	}
	for _, c := range cases {
		r := valid()
		c.change(&r)
		data, _ := Marshal(r)
		if err := Validate(data); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
	if err := Validate([]byte(`{"id":"REQ-001"}`)); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing fields: %v", err)
	}
	// Both fields are optional; when given, they are kept.
	withFields := valid()
	withFields.SourceID = "RHEL-09-211010"
	withFields.Attributes = map[string]string{"level": "2", "priority": "High", "Severity (CAT)": "CAT II"}
	data, _ := Marshal(withFields)
	if err := Validate(data); err != nil {
		t.Fatalf("record with source_id and attributes refused: %v", err)
	}
	if !strings.Contains(string(data), `"source_id": "RHEL-09-211010"`) || !strings.Contains(string(data), `"level": "2"`) {
		t.Errorf("fields not in the JSON:\n%s", data)
	}
	if strings.Contains(string(good), "source_id") || strings.Contains(string(good), "attributes") {
		t.Errorf("a record without the fields names them:\n%s", good)
	}
	if err := Validate([]byte(strings.Replace(string(good), `"id"`, `"attributes": {"level": 2}, "id"`, 1))); err == nil || !strings.Contains(err.Error(), "field attributes") {
		t.Errorf("a number as an attribute value: %v", err)
	}
	list := "[" + string(good) + "," + string(good) + "]"
	if err := ValidateList([]byte(list)); err == nil || !strings.Contains(err.Error(), "REQ-001 appears twice") {
		t.Errorf("duplicate ids: %v", err)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	chunk := "--- page 3 ---\nDie Buchungsbelege sind zehn Jahre lang unver-\nänderbar aufzubewahren. Ein \ufb01xer Satz\n--- page 4 ---\nmit “Zitat” – und Strich.\nThe multi-factor authenticator SHALL be used.\n"
	cases := []struct {
		quote string
		ok    bool
		page  int
	}{
		{"Die Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren.", true, 3},
		{"Die Buchungsbelege   sind zehn\nJahre lang unver- änderbar aufzubewahren.", true, 3},
		{"Ein fixer Satz mit \"Zitat\" - und Strich.", true, 3}, // across a page break
		{"mit “Zitat” – und Strich.", true, 4},
		{"The multifactor authenticator SHALL be used.", true, 4},
		{"The multi-factor authenticator MUST be used.", false, 0},
		{"sind zehn Jahre lang aufzubewahren", false, 0},
		{"", false, 0},
	}
	for _, c := range cases {
		start, end, ok := Find(chunk, c.quote)
		if ok != c.ok {
			t.Errorf("Find(%q) ok = %v", c.quote, ok)
			continue
		}
		if ok {
			if page := PageAt(chunk, start, 1); page != c.page {
				t.Errorf("Find(%q): page %d, want %d", c.quote, page, c.page)
			}
			if end <= start || end > len(chunk) {
				t.Errorf("Find(%q): range %d-%d", c.quote, start, end)
			}
		}
	}
	start, end, _ := Find(chunk, "Ein fixer Satz mit \"Zitat\"")
	if got := Clean(chunk[start:end]); got != "Ein \ufb01xer Satz mit “Zitat”" {
		t.Errorf("Clean = %q: the page marker must not be part of a stored quote", got)
	}
	if got, ok := Closest(chunk, "sind zehn Jahre lang aufzubewahren"); !ok || got != "sind zehn Jahre lang unver- änderbar aufzubewahren." {
		t.Errorf("Closest = %q, %v", got, ok)
	}
}

func TestTypographicVariantsMatch(t *testing.T) {
	t.Parallel()
	chunk := "Incoming e-mails must be archived in their original form. The so-called ‘audit trail’ must not be altered.\u00a0Invoices\u2011copies are kept."
	for _, quote := range []string{
		"Incoming e–mails must be archived in their original form.",      // en dash
		"Incoming e—mails must be archived in their original form.",      // em dash
		"Incoming e\u2011mails must be archived in their original form.", // non-breaking hyphen
		"Incoming e\u2212mails must be archived in their\u00a0original form.",
		`The so-called "audit trail" must not be altered.`,
		"The so‐called 'audit trail' must not be altered. Invoices-copies are kept.",
		"Incoming e-\u200bmails must be archived",
	} {
		if _, _, ok := Find(chunk, quote); !ok {
			t.Errorf("Find(%q) failed", quote)
		}
	}
	if _, _, ok := Find(chunk, "Incoming e–mails must be stored in their original form."); ok {
		t.Error("a changed word must still be refused")
	}
}

func TestClosestOffersOnlyAResemblingPassage(t *testing.T) {
	t.Parallel()
	german := "Die Buchungen sind zeitnah zu erfassen. Aufzeichnungen dürfen nicht in einer Weise verändert werden, dass der ursprüngliche Inhalt nicht mehr feststellbar ist. Das gilt auch für elektronische Unterlagen."
	english := "Records must not be altered in a way that the original content can no longer be determined."
	if got, ok := Closest(german, english); ok {
		t.Errorf("an English rendering of a German sentence was offered %q", got)
	}
	// A quote with a few words changed gets the sentence it was copied from.
	quote := "Aufzeichnungen dürfen nicht so verändert werden, dass der ursprüngliche Inhalt nicht feststellbar ist."
	got, ok := Closest(german, quote)
	if !ok || !strings.HasPrefix(got, "Aufzeichnungen dürfen nicht in einer Weise verändert werden") || !strings.Contains(got, "nicht mehr feststellbar ist") {
		t.Errorf("Closest(%q) = %q, %v", quote, got, ok)
	}
	// The passage offered covers the whole quote, not just its tail.
	text := "Records must be stored in the archive. The archive keeps every record without the change being logged by the operator."
	if got, ok := Closest(text, "Records must be stored in the archive system so that nothing can be changed without the change being logged."); !ok ||
		got != "Records must be stored in the archive. The archive keeps every record without the change being logged" {
		t.Errorf("Closest = %q, %v; want the passage from its first to its last word", got, ok)
	}
	// The tail alone does not resemble the quote.
	if got, ok := Closest("The archive keeps every record without the change being logged by the operator.", "Records must be stored in the archive system so that nothing can be changed without the change being logged."); ok {
		t.Errorf("a fragment was offered: %q", got)
	}
	for _, q := range []string{"Records must be stored in the … without the change being logged.", "kept ... for ten years", "kept […] for ten years", "kept [...] for ten years"} {
		if !Ellipsis(q) {
			t.Errorf("Ellipsis(%q) = false", q)
		}
	}
	if Ellipsis("Records must be kept for ten years.") {
		t.Error("Ellipsis of a plain quote")
	}
}
