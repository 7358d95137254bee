package reqdiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"creator/internal/document"
	"creator/internal/export"
	"creator/internal/requirement"
)

func TestWordChanges(t *testing.T) {
	for _, tc := range []struct {
		old, new string
		want     []Change
	}{
		{"Invoices must be kept for ten years.", "Invoices must be kept for eight years.", []Change{{"quote", "ten", "eight"}}},
		{"Logs must be kept.", "Logs should be kept.", []Change{{"quote", "must", "should"}}},
		{"Logs must be kept.", "Logs must be kept encrypted.", []Change{{"quote", "", "encrypted"}}},
		{"Logs must always be kept.", "Logs must be kept.", []Change{{"quote", "always", ""}}},
		{"A must be done within ten days by B.", "A should be done within five working days by C.",
			[]Change{{"quote", "must", "should"}, {"quote", "ten", "five working"}, {"quote", "B", "C"}}},
		{"Keep logs.", "Keep logs;", []Change{{"quote", "Keep logs.", "Keep logs;"}}},
		{"same", "same", nil},
	} {
		if got := wordChanges("quote", tc.old, tc.new); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q → %q: %v, want %v", tc.old, tc.new, got, tc.want)
		}
	}
}

func TestJaccardAndSectionKey(t *testing.T) {
	dict := map[string]int32{}
	a, b := wordSet("Invoices must be kept for ten years.", dict), wordSet("invoices MUST be kept for eight years", dict)
	if got := jaccard(a, b); got != 6.0/8 {
		t.Errorf("jaccard %v, want 0.75", got)
	}
	if jaccard(nil, nil) != 0 {
		t.Error("two empty sets are not alike")
	}
	for _, p := range []string{"3 Retention", "2 Records › 4.1 Retention", "§ 12 Retention"} {
		if k := sectionKey(p); k != "retention" {
			t.Errorf("sectionKey(%q) = %q", p, k)
		}
	}
}

// rec is a record quoting its text in a chunk.
func rec(id, chunk, quote string) requirement.Record {
	typ := "obligation"
	if strings.Contains(quote, "should") {
		typ = "recommendation"
	}
	return requirement.Record{ID: id, Title: quote, Text: quote, Type: typ, Category: "compliance", Priority: "high",
		Citations: []requirement.Citation{{Document: "policy.txt", Chunk: chunk, Quote: quote}}, Confidence: 0.9}
}

// source makes a job of records in chunks that each hold one section.
func source(id string, sections map[string]string, recs ...requirement.Record) export.Source {
	src := export.Source{JobID: id, Records: recs, Chunks: map[string]string{}}
	var ids []string
	for c := range sections {
		ids = append(ids, c)
	}
	slices.Sort(ids)
	for _, c := range ids {
		src.Manifest.Chunks = append(src.Manifest.Chunks, document.ManifestChunk{ID: c, Document: "policy.txt", Heading: sections[c]})
	}
	for _, r := range recs {
		src.Chunks[r.Citations[0].Chunk] += r.Citations[0].Quote + "\n"
	}
	return src
}

// summary is a result in one line per entry, to compare whole results.
func summary(r Result) []string {
	var out []string
	for _, it := range r.Added {
		out = append(out, "+ "+it.ID+" "+it.Section)
	}
	for _, it := range r.Removed {
		out = append(out, "- "+it.ID+" "+it.Section)
	}
	for _, p := range r.Changed {
		s := fmt.Sprintf("~ %s→%s %v", p.Old.ID, p.New.ID, p.Fields)
		for _, c := range p.Changes {
			s += fmt.Sprintf(" %s:%q→%q", c.Field, c.Old, c.New)
		}
		out = append(out, s)
	}
	return append(out, fmt.Sprintf("= %d", r.Unchanged))
}

func TestCompare(t *testing.T) {
	sections := map[string]string{"chunk_001": "1 Retention", "chunk_002": "2 Security"}
	old := source("v1", sections,
		rec("REQ-001", "chunk_001", "Invoices must be kept for ten years."),
		rec("REQ-002", "chunk_001", "Contracts must be kept for six years after they end."),
		rec("REQ-003", "chunk_001", "Access logs must be reviewed every month."),
		rec("REQ-004", "chunk_002", "Backups must be encrypted."),
		rec("REQ-005", "chunk_002", "Staff must report a lost laptop at once."),
	)
	new := source("v2", sections,
		rec("REQ-001", "chunk_001", "Invoices must be kept for eight years."),
		rec("REQ-002", "chunk_001", "Contracts should be kept for six years after they end."),
		rec("REQ-003", "chunk_002", "Passwords must be changed every year."),
		rec("REQ-004", "chunk_002", "Backups must be encrypted."),
		rec("REQ-005", "chunk_002", "Staff must report a lost laptop at once."),
	)
	got := summary(Compare(old, new))
	want := []string{
		"+ REQ-003 2 Security",
		"- REQ-003 1 Retention",
		`~ REQ-001→REQ-001 [text quote] text:"ten"→"eight" quote:"ten"→"eight"`,
		`~ REQ-002→REQ-002 [text type quote] text:"must"→"should" type:"obligation"→"recommendation" quote:"must"→"should"`,
		"= 2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCompareIgnoresIDs: the same requirements renumbered and moved to
// other chunks, in another order, are all unchanged.
func TestCompareIgnoresIDs(t *testing.T) {
	old := source("v1", map[string]string{"chunk_001": "1 Retention", "chunk_002": "2 Security"},
		rec("REQ-001", "chunk_001", "Invoices must be kept for ten years."),
		rec("REQ-002", "chunk_002", "Backups must be encrypted."),
	)
	new := source("v2", map[string]string{"chunk_001": "1 Scope", "chunk_002": "2 Security", "chunk_003": "3 Retention"},
		rec("REQ-001", "chunk_001", "This policy must be read by all staff."),
		rec("REQ-002", "chunk_002", "Backups   must be\nencrypted."),
		rec("REQ-003", "chunk_003", "Invoices must be kept for ten years."),
	)
	want := []string{"+ REQ-001 1 Scope", "= 2"}
	if got := summary(Compare(old, new)); !reflect.DeepEqual(got, want) {
		t.Errorf("diff %v, want %v", got, want)
	}
}

// TestCompareSectionDecides: a sentence standing in two sections pairs
// with its namesake in the same section, even after renumbering.
func TestCompareSectionDecides(t *testing.T) {
	q := "Records must be kept for ten years."
	old := source("v1", map[string]string{"chunk_001": "1 Invoices", "chunk_002": "2 Contracts"},
		rec("REQ-001", "chunk_001", q), rec("REQ-002", "chunk_002", q))
	new := source("v2", map[string]string{"chunk_001": "1 Contracts", "chunk_002": "2 Invoices"},
		rec("REQ-001", "chunk_001", q), rec("REQ-002", "chunk_002", "Records must be kept for eight years."))
	want := []string{`~ REQ-001→REQ-002 [text quote] text:"ten"→"eight" quote:"ten"→"eight"`, "= 1"}
	if got := summary(Compare(old, new)); !reflect.DeepEqual(got, want) {
		t.Errorf("diff %v, want %v", got, want)
	}
}

// TestCompareOneQuoteTwoRequirements: two requirements drawn from one
// sentence pair by their texts.
func TestCompareOneQuoteTwoRequirements(t *testing.T) {
	q := "Logs must be kept and must not be altered."
	mk := func(id, text, typ string) requirement.Record {
		r := rec(id, "chunk_001", q)
		r.Text, r.Type = text, typ
		return r
	}
	secs := map[string]string{"chunk_001": "1 Logs"}
	old := source("v1", secs, mk("REQ-001", "Keep the logs.", "obligation"), mk("REQ-002", "Do not alter the logs.", "prohibition"))
	new := source("v2", secs, mk("REQ-001", "Do not alter the logs.", "prohibition"), mk("REQ-002", "Keep the logs.", "obligation"))
	if got := summary(Compare(old, new)); !reflect.DeepEqual(got, []string{"= 2"}) {
		t.Errorf("diff %v, want 2 unchanged", got)
	}
}

func TestCompareBelowThreshold(t *testing.T) {
	secs := map[string]string{"chunk_001": "1 Logs"}
	old := source("v1", secs, rec("REQ-001", "chunk_001", "Logs must be kept."))
	new := source("v2", secs, rec("REQ-001", "chunk_001", "Backups must be encrypted."))
	want := []string{"+ REQ-001 1 Logs", "- REQ-001 1 Logs", "= 0"}
	if got := summary(Compare(old, new)); !reflect.DeepEqual(got, want) {
		t.Errorf("diff %v, want %v", got, want)
	}
}

// TestCompareOrder: added requirements come in the order of the source
// (chunk, then place in the chunk), not of their ids.
func TestCompareOrder(t *testing.T) {
	secs := map[string]string{"chunk_001": "1 A", "chunk_002": "2 B"}
	new := source("v2", secs,
		rec("REQ-001", "chunk_002", "Zebras must be fed."),
		rec("REQ-002", "chunk_001", "Apples must be washed."),
		rec("REQ-003", "chunk_001", "Bananas must be peeled."),
	)
	new.Chunks["chunk_001"] = "Apples must be washed.\nBananas must be peeled.\n"
	new.Records[1], new.Records[2] = new.Records[2], new.Records[1]
	var ids []string
	for _, it := range Compare(source("v1", secs), new).Added {
		ids = append(ids, it.ID)
	}
	if want := []string{"REQ-002", "REQ-003", "REQ-001"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("added in order %v, want %v", ids, want)
	}
}

func TestJSONShape(t *testing.T) {
	secs := map[string]string{"chunk_001": "1 Logs"}
	empty, _ := json.Marshal(Compare(source("v1", secs), source("v2", secs)))
	if want := `{"added":[],"removed":[],"changed":[],"unchanged":0}`; string(empty) != want {
		t.Errorf("empty diff %s, want %s", empty, want)
	}
	old := source("v1", secs, rec("REQ-001", "chunk_001", "Logs must be kept."))
	new := source("v2", secs, rec("REQ-007", "chunk_001", "Logs should be kept."))
	data, _ := json.Marshal(Compare(old, new))
	var v struct {
		Changed []struct {
			Old     map[string]any `json:"old"`
			New     map[string]any `json:"new"`
			Fields  []string       `json:"fields"`
			Changes []Change       `json:"changes"`
		} `json:"changed"`
	}
	if err := json.Unmarshal(data, &v); err != nil || len(v.Changed) != 1 {
		t.Fatalf("%s: %v", data, err)
	}
	c := v.Changed[0]
	if c.Old["id"] != "REQ-001" || c.New["id"] != "REQ-007" || c.New["section"] != "1 Logs" || c.New["citations"] == nil {
		t.Errorf("the pair is not two records with their section: %s", data)
	}
}

// TestCompareSourceFields: a requirement whose document id or columns
// changed, text and quote alike, is changed; one attribute per change,
// added and removed ones with an empty side; the same fields are no change.
func TestCompareSourceFields(t *testing.T) {
	sections := map[string]string{"chunk_001": "1 Retention"}
	with := func(r requirement.Record, id string, attrs map[string]string) requirement.Record {
		r.SourceID, r.Attributes = id, attrs
		return r
	}
	old := source("v1", sections,
		with(rec("REQ-001", "chunk_001", "Invoices must be kept for ten years."), "R-1", map[string]string{"level": "2", "owner": "tax"}),
		with(rec("REQ-002", "chunk_001", "Backups must be encrypted."), "R-2", map[string]string{"level": "1"}),
		rec("REQ-003", "chunk_001", "Staff must report a lost laptop at once."),
	)
	new := source("v2", sections,
		with(rec("REQ-001", "chunk_001", "Invoices must be kept for ten years."), "R-1.1", map[string]string{"level": "3", "scope": "EU"}),
		with(rec("REQ-002", "chunk_001", "Backups must be encrypted."), "R-2", map[string]string{"level": "1"}),
		with(rec("REQ-003", "chunk_001", "Staff must report a lost laptop at once."), "R-3", nil),
	)
	got := summary(Compare(old, new))
	want := []string{
		`~ REQ-001→REQ-001 [source_id attributes] source_id:"R-1"→"R-1.1" attributes:"level: 2"→"level: 3" attributes:"owner: tax"→"" attributes:""→"scope: EU"`,
		`~ REQ-003→REQ-003 [source_id] source_id:""→"R-3"`,
		"= 1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
