package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The two versions of a policy: the new one adds a sentence, removes one,
// turns a "must" into "should" and "ten years" into "eight years", and
// puts its sections in another order under new numbers, which shifts the
// ids of everything after them.
const (
	policyV1 = `Records Policy

1 Scope

This policy applies to all business records of the company.

2 Retention

Invoices must be kept for ten years.
Contracts must be kept for six years after they end.
Access logs must be reviewed every month.

3 Security

Backups must be encrypted.
Staff must lock their screens when they leave the desk.
`
	policyV2 = `Records Policy

1 Scope

This policy applies to all business records of the company.

2 Security

Staff must lock their screens when they leave the desk.
Passwords must be changed every year.
Backups must be encrypted.

3 Retention

Invoices must be kept for eight years.
Contracts should be kept for six years after they end.
`
)

// diffSummary is a diff in one line per entry.
type diffSummary struct {
	Added, Removed []struct {
		ID, Text, Section string
	}
	Changed []struct {
		Old, New struct{ ID string }
		Fields   []string
		Changes  []struct{ Field, Old, New string }
	}
	Unchanged int
}

func (d diffSummary) lines() []string {
	var out []string
	for _, it := range d.Added {
		out = append(out, fmt.Sprintf("+ %s %s (%s)", it.ID, it.Text, it.Section))
	}
	for _, it := range d.Removed {
		out = append(out, fmt.Sprintf("- %s %s (%s)", it.ID, it.Text, it.Section))
	}
	for _, p := range d.Changed {
		s := fmt.Sprintf("~ %s→%s %v", p.Old.ID, p.New.ID, p.Fields)
		for _, c := range p.Changes {
			s += fmt.Sprintf(" %s:%s→%s", c.Field, c.Old, c.New)
		}
		out = append(out, s)
	}
	return append(out, fmt.Sprintf("= %d", d.Unchanged))
}

func TestDiff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "ws")
	for id, text := range map[string]string{"v1": policyV1, "v2": policyV2} {
		doc := filepath.Join(dir, "policy-"+id+".txt")
		os.WriteFile(doc, []byte(text), 0o644)
		if code, _, stderr := cli(t, "run", "--workspace", root, "--job", id, "--quiet", "--model", "builtin", doc); code != 0 {
			t.Fatalf("creator run %s: exit %d\n%s", id, code, stderr)
		}
	}
	code, stdout, stderr := cli(t, "diff", "--workspace", root, "v1", "v2", "--json")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var d diffSummary
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	want := []string{
		"+ REQ-002 Passwords must be changed every year. (2 Security)",
		"- REQ-003 Access logs must be reviewed every month. (2 Retention)",
		"~ REQ-001→REQ-004 [text quote] text:ten→eight quote:ten→eight",
		"~ REQ-002→REQ-005 [text type priority quote] text:must→should type:obligation→recommendation priority:high→medium quote:must→should",
		"= 2",
	}
	if got := d.lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	_, md, _ := cli(t, "diff", "--workspace", root, "v1", "v2")
	for _, line := range []string{
		"# Requirements of job v2 compared with job v1", "1 added, 1 removed, 2 changed, 2 unchanged.",
		"### REQ-001 → REQ-004 · 3 Retention", `- quote: "must" → "should"`, "> New: Invoices must be kept for eight years.",
	} {
		if !strings.Contains(md, line+"\n") {
			t.Errorf("the Markdown has no line %q:\n%s", line, md)
		}
	}
	if _, same, _ := cli(t, "diff", "--workspace", root, "v2", "v2", "--format", "json"); !strings.Contains(same, `"added": [],`) || !strings.Contains(same, `"unchanged": 5`) {
		t.Errorf("a job compared with itself:\n%s", same)
	}
}

func TestDiffErrors(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "ws")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"diff", "v1"}, 2, "accepts 2 arg(s)"},
		{[]string{"diff", "v1", "v2", "--format", "csv"}, 2, `unknown format "csv"`},
		{[]string{"diff", "v1", "v2"}, 1, "no job 'v1'"},
	} {
		code, _, stderr := cli(t, append(tc.args, "--workspace", root)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
