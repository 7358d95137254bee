package requirement

import (
	"strings"
	"testing"
)

func valid() Record {
	return Record{ID: "REQ-001", Title: "Keep records", Text: "The operator must keep records for ten years.", Type: "obligation",
		Category: "compliance", Priority: "high", Frameworks: []string{"GoBD"}, Confidence: 0.9, Rationale: "'must' sets a duty",
		Citations: []Citation{{Document: "policy.pdf", Chunk: "chunk_001", Page: 2, Quote: "Records must be kept for ten years."}}}
}

func TestValidate(t *testing.T) {
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
	list := "[" + string(good) + "," + string(good) + "]"
	if err := ValidateList([]byte(list)); err == nil || !strings.Contains(err.Error(), "REQ-001 appears twice") {
		t.Errorf("duplicate ids: %v", err)
	}
}

func TestFind(t *testing.T) {
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
	if got := Closest(chunk, "sind zehn Jahre lang aufzubewahren"); !strings.Contains(got, "zehn Jahre lang") {
		t.Errorf("Closest = %q", got)
	}
}
