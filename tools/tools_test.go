package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/planner"
	"creator/workspace"
)

type env struct {
	job     *workspace.Job
	reg     *Registry
	outside string // a folder outside the job holding secret.txt
}

func newEnv(t *testing.T) *env {
	t.Helper()
	base := t.TempDir()
	doc := filepath.Join(base, "policy.txt")
	os.WriteFile(doc, []byte("Records must be kept for ten years.\n"), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{
		ID: "t", Inputs: []string{doc}, Instructions: []byte("# How to work\nPlan first.\n"),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	out := filepath.Join(base, "outside")
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "secret.txt"), []byte("secret"), 0o644)
	os.Symlink(out, filepath.Join(job.Dir, "escape"))
	os.Symlink(filepath.Join(out, "secret.txt"), filepath.Join(job.Dir, "notes", "secret-link"))

	clock := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	stats := func() JobStats {
		return JobStats{Steps: 41, PromptTokens: 123456, CompletionTokens: 8901, Started: clock.Add(-12*time.Minute - 30*time.Second)}
	}
	all := append(WorkspaceTools(job.Files), PlanningTools(planner.New(job, now), stats, now)...)
	reg, err := NewRegistry(all...)
	if err != nil {
		t.Fatal(err)
	}
	return &env{job: job, reg: reg, outside: out}
}

func (e *env) call(name, args string) (string, error) {
	res, err := e.reg.Call(context.Background(), name, json.RawMessage(args))
	return res.Text, err
}

func (e *env) file(rel string) string {
	data, err := os.ReadFile(filepath.Join(e.job.Dir, rel))
	if err != nil {
		return "<missing>"
	}
	return string(data)
}

func (e *env) put(t *testing.T, rel, content string) {
	t.Helper()
	p := filepath.Join(e.job.Dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

type toolCase struct {
	name    string
	tool    string
	args    string
	setup   func(t *testing.T, e *env)
	want    []string // substrings of the result
	wantErr string   // substring of the error
	check   func(t *testing.T, e *env, out string)
}

func runCases(t *testing.T, cases []toolCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			if c.setup != nil {
				c.setup(t, e)
			}
			out, err := e.call(c.tool, c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("%s(%s) = %q, %v; want error containing %q", c.tool, c.args, out, err, c.wantErr)
				}
			} else if err != nil {
				t.Fatalf("%s(%s): unexpected error %v", c.tool, c.args, err)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("result lacks %q:\n%s", w, out)
				}
			}
			if c.check != nil {
				c.check(t, e, out)
			}
			// Nothing outside the job is ever changed.
			if data, _ := os.ReadFile(filepath.Join(e.outside, "secret.txt")); string(data) != "secret" {
				t.Fatalf("file outside the job changed: %q", data)
			}
			if entries, _ := os.ReadDir(e.outside); len(entries) != 1 {
				t.Fatalf("files created outside the job: %d entries", len(entries))
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "whole file", tool: "read_file", args: `{"path":"instructions.md"}`,
			want: []string{"     1\t# How to work\n", "     2\tPlan first.\n", "[2 lines, whole file]"}},
		{name: "first page with note", tool: "read_file", args: `{"path":"notes/long.md"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/long.md", numbered(1000)) },
			want:  []string{"   400\tline 400\n", "[lines 1-400 of 1,000 in notes/long.md; 600 more lines: read_file(path=\"notes/long.md\", offset=401)]"},
			check: func(t *testing.T, e *env, out string) {
				if strings.Contains(out, "line 401\n") {
					t.Error("read past the default limit")
				}
			}},
		{name: "offset and limit", tool: "read_file", args: `{"path":"notes/long.md","offset":998,"limit":10}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/long.md", numbered(1000)) },
			want:  []string{"   998\tline 998\n", "  1000\tline 1000\n", "[lines 998-1000 of 1,000 in notes/long.md; end of file]"}},
		{name: "limit capped", tool: "read_file", args: `{"path":"notes/long.md","limit":100000}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/long.md", numbered(3000)) },
			want:  []string{"[lines 1-2000 of 3,000"}},
		{name: "output size capped", tool: "read_file", args: `{"path":"notes/wide.md","limit":2000}`,
			setup: func(t *testing.T, e *env) {
				e.put(t, "notes/wide.md", strings.Repeat(strings.Repeat("w", 1000)+"\n", 500))
			},
			check: func(t *testing.T, e *env, out string) {
				if len(out) > MaxReadBytes+500 || !strings.Contains(out, "more lines: read_file(path=\"notes/wide.md\", offset=") {
					t.Errorf("result of %d bytes is not capped with a note", len(out))
				}
			}},
		{name: "long line cut", tool: "read_file", args: `{"path":"notes/one.md"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/one.md", strings.Repeat("x", 5000)) },
			want:  []string{"[line cut: 5,000 characters]"}},
		{name: "empty file", tool: "read_file", args: `{"path":"notes/empty.md"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/empty.md", "") },
			want:  []string{"'notes/empty.md' is empty"}},
		{name: "job state is readable", tool: "read_file", args: `{"path":".agent/job.json"}`, want: []string{`"id": "t"`}},
		{name: "input is readable", tool: "read_file", args: `{"path":"input/policy.txt"}`, want: []string{"Records must be kept"}},
		{name: "offset past end", tool: "read_file", args: `{"path":"instructions.md","offset":5}`, wantErr: "has 2 lines; offset 5 is past the end"},
		{name: "negative offset", tool: "read_file", args: `{"path":"instructions.md","offset":-1}`, wantErr: "cannot be negative"},
		{name: "missing file", tool: "read_file", args: `{"path":"notes/none.md"}`, wantErr: "path 'notes/none.md' does not exist"},
		{name: "folder", tool: "read_file", args: `{"path":"chunks"}`, wantErr: "is a folder; use list_files"},
		{name: "binary", tool: "read_file", args: `{"path":"notes/b.bin"}`,
			setup:   func(t *testing.T, e *env) { e.put(t, "notes/b.bin", "PK\x03\x04\x00\x00") },
			wantErr: "is a binary file"},
		{name: "traversal", tool: "read_file", args: `{"path":"../../outside/secret.txt"}`, wantErr: "leaves the workspace"},
		{name: "absolute", tool: "read_file", args: `{"path":"/etc/passwd"}`, wantErr: "is absolute"},
		{name: "symlink out", tool: "read_file", args: `{"path":"escape/secret.txt"}`, wantErr: "leads outside the workspace through the symbolic link 'escape'"},
		{name: "file symlink out", tool: "read_file", args: `{"path":"notes/secret-link"}`, wantErr: "leads outside the workspace"},
		{name: "NUL in path", tool: "read_file", args: `{"path":"notes/a\u0000b"}`, wantErr: "NUL byte"},
		{name: "missing path", tool: "read_file", args: `{}`, wantErr: `missing required field "path". Send {"path": string, "offset"?: integer, "limit"?: integer}`},
		{name: "wrong type", tool: "read_file", args: `{"path":"instructions.md","offset":"third"}`, wantErr: `field "offset" must be an integer, not a string (got "third")`},
		{name: "integer as a string", tool: "read_file", args: `{"path":"instructions.md","offset":"2"}`, want: []string{"     2\tPlan first.", `(note: read offset "2" as 2)`}},
		{name: "fraction for an integer", tool: "read_file", args: `{"path":"instructions.md","offset":1.5}`, wantErr: `field "offset" must be a whole number (got 1.5)`},
		{name: "unknown field", tool: "read_file", args: `{"path":"instructions.md","lines":3}`, want: []string{"whole file", `(note: ignored unknown field "lines")`}},
		{name: "unknown field and a missing one", tool: "read_file", args: `{"file":"instructions.md"}`, wantErr: `missing required field "path" (ignored unknown field "file")`},
		{name: "malformed JSON", tool: "read_file", args: `{"path": "instructions.md"`, wantErr: "not valid JSON"},
		{name: "not an object", tool: "read_file", args: `["instructions.md"]`, wantErr: "must be a JSON object, not an array"},
		{name: "float offset accepted", tool: "read_file", args: `{"path":"instructions.md","offset":2.0}`, want: []string{"     2\tPlan first."}},
		{name: "null optional field", tool: "read_file", args: `{"path":"instructions.md","offset":null}`, want: []string{"whole file"}},
	})
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "create", tool: "write_file", args: `{"path":"candidates/candidates.md","content":"# Candidates\n- one\n"}`,
			want: []string{"created candidates/candidates.md: 19 bytes, 2 lines"},
			check: func(t *testing.T, e *env, _ string) {
				if e.file("candidates/candidates.md") != "# Candidates\n- one\n" {
					t.Error("content not on disk")
				}
			}},
		{name: "new folders", tool: "write_file", args: `{"path":"requirements/req_001/draft.md","content":"x"}`, want: []string{"created requirements/req_001/draft.md: 1 byte, 1 line"}},
		{name: "replace", tool: "write_file", args: `{"path":"notes/a.md","content":"new"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/a.md", "old") },
			want:  []string{"replaced notes/a.md"},
			check: func(t *testing.T, e *env, _ string) {
				if e.file("notes/a.md") != "new" {
					t.Error("not replaced")
				}
			}},
		{name: "through an inside link", tool: "write_file", args: `{"path":"n/b.md","content":"via link"}`,
			setup: func(t *testing.T, e *env) { os.Symlink("notes", filepath.Join(e.job.Dir, "n")) },
			want:  []string{"created notes/b.md"}},
		{name: ".agent refused", tool: "write_file", args: `{"path":".agent/job.json","content":"{}"}`, wantErr: "is inside .agent/",
			check: func(t *testing.T, e *env, _ string) {
				if _, err := e.job.Info(); err != nil {
					t.Error("job.json damaged")
				}
			}},
		{name: "input refused", tool: "write_file", args: `{"path":"input/policy.txt","content":"x"}`, wantErr: "is inside input/"},
		{name: "plan.json refused", tool: "write_file", args: `{"path":"plan.json","content":"{}"}`, wantErr: "use write_plan"},
		{name: "progress.md refused", tool: "write_file", args: `{"path":"progress.md","content":""}`, wantErr: "the job's log"},
		{name: "traversal", tool: "write_file", args: `{"path":"notes/../../x.md","content":"x"}`, wantErr: "leaves the workspace"},
		{name: "symlink out", tool: "write_file", args: `{"path":"escape/new.txt","content":"x"}`, wantErr: "leads outside the workspace"},
		{name: "file symlink out", tool: "write_file", args: `{"path":"notes/secret-link","content":"x"}`, wantErr: "leads outside the workspace"},
		{name: "windows path", tool: "write_file", args: `{"path":"notes\\x.md","content":"x"}`, wantErr: "separate folders with '/'"},
		{name: "too large", tool: "write_file", args: `{"path":"notes/big.md","content":"` + strings.Repeat("a", workspace.DefaultMaxWriteBytes+1) + `"}`,
			wantErr: "one write is limited to 5.2 MB"},
		{name: "NUL content", tool: "write_file", args: `{"path":"notes/x.md","content":"a\u0000b"}`, wantErr: "NUL bytes"},
		{name: "folder target", tool: "write_file", args: `{"path":"chunks","content":"x"}`, wantErr: "is a folder"},
		{name: "missing content", tool: "write_file", args: `{"path":"notes/x.md"}`, wantErr: `missing required field "content"`},
		{name: "content not a string", tool: "write_file", args: `{"path":"notes/x.md","content":{"a":1}}`, wantErr: `field "content" must be a string, not an object`},
	})
}

func TestEditFile(t *testing.T) {
	t.Parallel()
	doc := "alpha\nbeta gamma\nalpha\n"
	setup := func(t *testing.T, e *env) { e.put(t, "notes/doc.md", doc) }
	runCases(t, []toolCase{
		{name: "unique", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"beta","new_text":"BETA"}`, setup: setup,
			want: []string{"replaced 1 occurrence in notes/doc.md (line 2); the file now has 3 lines"},
			check: func(t *testing.T, e *env, _ string) {
				if e.file("notes/doc.md") != "alpha\nBETA gamma\nalpha\n" {
					t.Errorf("content = %q", e.file("notes/doc.md"))
				}
			}},
		{name: "ambiguous", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"alpha","new_text":"x"}`, setup: setup,
			wantErr: "old_text occurs 2 times in notes/doc.md (lines 1, 3)",
			check: func(t *testing.T, e *env, _ string) {
				if e.file("notes/doc.md") != doc {
					t.Error("ambiguous edit changed the file")
				}
			}},
		{name: "replace all", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"alpha","new_text":"x","replace_all":true}`, setup: setup,
			want: []string{"replaced 2 occurrences", "first at line 1"},
			check: func(t *testing.T, e *env, _ string) {
				if e.file("notes/doc.md") != "x\nbeta gamma\nx\n" {
					t.Error("not all replaced")
				}
			}},
		{name: "delete text", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":" gamma","new_text":""}`, setup: setup, want: []string{"replaced 1 occurrence"}},
		{name: "not found, whitespace differs", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"beta  gamma","new_text":"x"}`, setup: setup,
			wantErr: "starts at line 2"},
		{name: "not found", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"delta","new_text":"x"}`, setup: setup, wantErr: "old_text was not found in notes/doc.md"},
		{name: "empty old_text", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"","new_text":"x"}`, setup: setup, wantErr: "old_text is empty"},
		{name: "same text", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"beta","new_text":"beta"}`, setup: setup, wantErr: "nothing to change"},
		{name: "input refused", tool: "edit_file", args: `{"path":"input/policy.txt","old_text":"ten","new_text":"two"}`, wantErr: "is inside input/"},
		{name: "missing file", tool: "edit_file", args: `{"path":"notes/none.md","old_text":"a","new_text":"b"}`, wantErr: "does not exist"},
		{name: "missing new_text", tool: "edit_file", args: `{"path":"notes/doc.md","old_text":"a"}`, setup: setup, wantErr: `missing required field "new_text"`},
		{name: "symlink out", tool: "edit_file", args: `{"path":"notes/secret-link","old_text":"secret","new_text":"pwned"}`, wantErr: "leads outside the workspace"},
	})
}

func TestListFiles(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "job folder", tool: "list_files", args: `{}`,
			want: []string{"job folder (", "chunks/", "0 entries", "input/", "1 entry", "instructions.md", "26 bytes", "escape", "link that leads outside the job or nowhere"},
			check: func(t *testing.T, e *env, out string) {
				if strings.Contains(out, ".agent") {
					t.Error(".agent/ is listed")
				}
			}},
		{name: "subfolder", tool: "list_files", args: `{"path":"notes"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/a.md", "12345") },
			want:  []string{"notes/ (2 entries):", "a.md", "5 bytes"}},
		{name: "empty folder", tool: "list_files", args: `{"path":"chunks"}`, want: []string{"chunks/ is empty"}},
		{name: "temporary files hidden", tool: "list_files", args: `{"path":"notes"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/.a.md.creator-tmp-00", "x") },
			check: func(t *testing.T, e *env, out string) {
				if strings.Contains(out, "creator-tmp") {
					t.Error("temporary file listed")
				}
			}},
		{name: "agent folder readable by path", tool: "list_files", args: `{"path":".agent"}`, want: []string{"job.json"}},
		{name: "a file", tool: "list_files", args: `{"path":"instructions.md"}`, wantErr: "is a file; use read_file"},
		{name: "missing", tool: "list_files", args: `{"path":"nope"}`, wantErr: "does not exist"},
		{name: "traversal", tool: "list_files", args: `{"path":".."}`, wantErr: "leaves the workspace"},
		{name: "symlink out", tool: "list_files", args: `{"path":"escape"}`, wantErr: "leads outside the workspace"},
	})
}

func TestDeleteAndCreateFolder(t *testing.T) {
	t.Parallel()
	runCases(t, []toolCase{
		{name: "delete file", tool: "delete_file", args: `{"path":"notes/a.md"}`,
			setup: func(t *testing.T, e *env) { e.put(t, "notes/a.md", "x") },
			want:  []string{"deleted notes/a.md"},
			check: func(t *testing.T, e *env, _ string) {
				if e.file("notes/a.md") != "<missing>" {
					t.Error("still there")
				}
			}},
		{name: "delete empty folder", tool: "delete_file", args: `{"path":"candidates"}`, want: []string{"deleted empty folder candidates/"}},
		{name: "non-empty folder", tool: "delete_file", args: `{"path":"notes"}`, wantErr: "is a folder with 1 entries; delete them first"},
		{name: "link, not its target", tool: "delete_file", args: `{"path":"notes/secret-link"}`, want: []string{"deleted notes/secret-link"}},
		{name: "link to folder outside", tool: "delete_file", args: `{"path":"escape"}`, want: []string{"deleted escape"}},
		{name: "input refused", tool: "delete_file", args: `{"path":"input/policy.txt"}`, wantErr: "is inside input/"},
		{name: "input folder refused", tool: "delete_file", args: `{"path":"input"}`, wantErr: "is inside input/"},
		{name: ".agent refused", tool: "delete_file", args: `{"path":".agent/job.json"}`, wantErr: "is inside .agent/"},
		{name: "plan refused", tool: "delete_file", args: `{"path":"plan.json"}`, wantErr: "planning tools"},
		{name: "job folder refused", tool: "delete_file", args: `{"path":"."}`, wantErr: "the job folder itself"},
		{name: "missing", tool: "delete_file", args: `{"path":"notes/none"}`, wantErr: "does not exist"},
		{name: "traversal", tool: "delete_file", args: `{"path":"../outside/secret.txt"}`, wantErr: "leaves the workspace"},
		{name: "create folder", tool: "create_folder", args: `{"path":"notes/drafts/deep"}`, want: []string{"created folder notes/drafts/deep/"}},
		{name: "folder exists", tool: "create_folder", args: `{"path":"chunks"}`, want: []string{"folder chunks/ already exists"}},
		{name: "file in the way", tool: "create_folder", args: `{"path":"instructions.md"}`, wantErr: "is a file"},
		{name: "create in .agent refused", tool: "create_folder", args: `{"path":".agent/x"}`, wantErr: "is inside .agent/"},
		{name: "create through link out", tool: "create_folder", args: `{"path":"escape/x"}`, wantErr: "leads outside the workspace"},
		{name: "create outside", tool: "create_folder", args: `{"path":"../x"}`, wantErr: "leaves the workspace"},
	})
}

func TestPlanningTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	steps := []struct {
		tool, args string
		want       string // substring of the result, or of the error when err is true
		err        bool
	}{
		{"read_plan", `{}`, "there is no plan yet; write one with write_plan", true},
		{"get_progress", `{}`, "No plan yet", false},
		{"write_plan", `{"tasks":[]}`, "at least one task", true},
		{"write_plan", `{"tasks":{"a":1}}`, `field "tasks" must be an array, not an object`, true},
		{"write_plan", `{"tasks":["Read instructions.md","Extract the text","Write the output"]}`, "plan written with 3 tasks; begin with start_task(1)", false},
		{"start_task", `{"task_number":1}`, "task 1 in progress: Read instructions.md", false},
		{"start_task", `{"task_number":2}`, "task 1 (Read instructions.md) is in progress; complete it with complete_task before starting task 2", true},
		{"start_task", `{"task_number":9}`, "there is no task 9; the plan has tasks 1 to 3", true},
		{"start_task", `{}`, `missing required field "task_number"`, true},
		{"complete_task", `{"task_number":1,"notes":"read it"}`, "task 1 completed (1 of 3 done); next pending: task 2, Extract the text", false},
		{"complete_task", `{"task_number":1}`, "task 1 was already completed; nothing changed", false},
		{"add_task", `{"task":"Chunk the text","after_task":2}`, "added task 3; tasks after it moved down by one (now 4 to 4)", false},
		{"add_task", `{"task":"Check the output"}`, "added task 5", false},
		{"add_task", `{"task":""}`, "task 1 is empty", true},
		{"start_task", `{"task_number":2}`, "task 2 in progress", false},
		{"read_plan", `{}`, "[x] 1. Read instructions.md\n      notes: read it\n[>] 2. Extract the text   ← in progress\n[ ] 3. Chunk the text\n[ ] 4. Write the output\n[ ] 5. Check the output\nTask 2 is in progress", false},
		{"get_progress", `{}`, "1 of 5 tasks completed.\nIn progress: task 2, Extract the text (for 0s).\nNext pending: task 3, Chunk the text.\nElapsed: 12m30s. Steps: 41. Tokens: 123,456 prompt, 8,901 completion.", false},
		{"write_plan", `{"tasks":["Read instructions.md","Extract the text","Finish"]}`, "plan replaced: 3 tasks, 1 of them completed (2 tasks kept their status because their text is unchanged); task 2 is in progress", false},
		{"complete_task", `{"task_number":2}`, "task 2 completed (2 of 3 done)", false},
		{"complete_task", `{"task_number":3}`, "every task of the plan is completed", false},
		{"write_plan", `{"tasks":"Finish, then check"}`, `plan replaced: 1 task, 0 of them completed; no task in progress; next is task 1 — start it with start_task(1); read tasks "Finish, then check" as ["Finish, then check"]`, false},
	}
	for i, s := range steps {
		out, err := e.call(s.tool, s.args)
		got := out
		if err != nil {
			got = err.Error()
		}
		if (err != nil) != s.err || !strings.Contains(got, s.want) {
			t.Fatalf("step %d %s(%s) = %q (error: %v); want %q", i+1, s.tool, s.args, got, err != nil, s.want)
		}
	}
	progress := e.file("progress.md")
	for _, w := range []string{"plan written: 3 tasks", "task 1 completed: Read instructions.md — read it", "plan replaced: 3 tasks", "task 3 completed: Finish"} {
		if !strings.Contains(progress, w) {
			t.Errorf("progress.md lacks %q:\n%s", w, progress)
		}
	}
	// The agent cannot write plan.json behind the planner's back.
	if _, err := e.call("write_file", `{"path":"plan.json","content":"{}"}`); err == nil {
		t.Fatal("plan.json written through write_file")
	}
}

func TestRegistry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if _, err := e.call("rm_rf", `{}`); err == nil || !strings.Contains(err.Error(), `there is no tool named "rm_rf"; the tools are: add_task, complete_task, create_folder`) {
		t.Fatalf("unknown tool: %v", err)
	}
	boom := Func("boom", "panics", func(ctx context.Context, a noArgs) (string, error) { panic("kaboom") })
	if err := e.reg.Add(boom); err != nil {
		t.Fatal(err)
	}
	_, err := e.call("boom", `{}`)
	var pe *PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "internal error in boom (kaboom)") || len(pe.Stack) == 0 {
		t.Fatalf("panicking tool: %v", err)
	}
	if err := e.reg.Add(boom); err == nil {
		t.Fatal("duplicate tool name accepted")
	}
	// Tools without arguments accept an empty or null argument string.
	for _, args := range []string{"", "null", " {} "} {
		if _, err := e.call("get_progress", args); err != nil {
			t.Errorf("get_progress(%q): %v", args, err)
		}
	}
}

func TestSchemas(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tool := range e.reg.Tools() {
		var s struct {
			Type                 string                     `json:"type"`
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		}
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatalf("%s: schema is not JSON: %v", tool.Name(), err)
		}
		if s.Type != "object" || s.Properties == nil || s.AdditionalProperties == nil || *s.AdditionalProperties {
			t.Errorf("%s: schema %s is not a closed object with properties", tool.Name(), tool.Schema())
		}
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
	}
	read, _ := e.reg.Get("read_file")
	if got := string(read.Schema()); !strings.Contains(got, `"required":["path"]`) || !strings.Contains(got, `"offset":{"type":"integer","description":"first line to return`) {
		t.Errorf("read_file schema = %s", got)
	}
	plan, _ := e.reg.Get("write_plan")
	if got := string(plan.Schema()); !strings.Contains(got, `"tasks":{"type":"array"`) {
		t.Errorf("write_plan schema = %s", got)
	}
}

func TestProgressReportsBudgetsAndCost(t *testing.T) {
	t.Parallel()
	cost := 0.4123
	stats := func() JobStats {
		return JobStats{Steps: 41, PromptTokens: 1000, CompletionTokens: 10, CostUSD: &cost, MaxSteps: 500, MaxTokens: 2_000_000, MaxCost: 5}
	}
	reg, err := NewRegistry(PlanningTools(planner.New(newEnv(t).job, nil), stats, nil)...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := reg.Call(context.Background(), "get_progress", json.RawMessage(`{}`))
	out := res.Text
	want := "Steps: 41 of at most 500. Tokens: 1,000 prompt, 10 completion (budget 2,000,000 in all). Cost: $0.41 of a $5.00 budget."
	if err != nil || !strings.HasSuffix(out, want) {
		t.Errorf("get_progress = %q, %v; want it to end with %q", out, err, want)
	}
}
