package reqdiff

import (
	"strings"
	"testing"
)

func TestMarkdown(t *testing.T) {
	secs := map[string]string{"chunk_001": "1 Retention", "chunk_002": "2 Security"}
	old := source("v1", secs,
		rec("REQ-001", "chunk_001", "Invoices must be kept for ten years."),
		rec("REQ-002", "chunk_002", "Backups must be encrypted."),
		rec("REQ-003", "chunk_002", "Access logs must be reviewed every month."),
	)
	new := source("v2", secs,
		rec("REQ-001", "chunk_001", "Invoices must be kept for eight years."),
		rec("REQ-002", "chunk_002", "Backups must be encrypted."),
		rec("REQ-003", "chunk_002", "Passwords must be changed every year."),
	)
	want := `# Requirements of job v2 compared with job v1

1 added, 1 removed, 1 changed, 1 unchanged.

## Added

### REQ-003 · 2 Security

**obligation** · high priority · compliance

Passwords must be changed every year.

> Passwords must be changed every year.

## Removed

### REQ-003 · 2 Security

**obligation** · high priority · compliance

Access logs must be reviewed every month.

> Access logs must be reviewed every month.

## Changed

### REQ-001 → REQ-001 · 1 Retention

- text: "ten" → "eight"
- quote: "ten" → "eight"

> Old: Invoices must be kept for ten years.
>
> New: Invoices must be kept for eight years.
`
	if got := string(Markdown(Compare(old, new))); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestDescribe(t *testing.T) {
	for c, want := range map[Change]string{
		{"quote", "ten", "eight"}: `"ten" → "eight"`,
		{"quote", "", "annually"}: `+ "annually"`,
		{"quote", "annually", ""}: `− "annually"`,
	} {
		if got := describe(c); got != want {
			t.Errorf("describe(%v) = %s, want %s", c, got, want)
		}
	}
	if !strings.Contains(string(Markdown(Result{OldJob: "a", NewJob: "b"})), "0 added, 0 removed, 0 changed, 0 unchanged.") {
		t.Error("an empty comparison has no count line")
	}
}
