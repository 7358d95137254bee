package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/internal/badfiles"
	"creator/internal/fakellm"
	"creator/internal/llm"
)

// runLimited runs creator as a separate process and kills it after limit:
// a hang is a failure, not a stuck test.
func runLimited(t *testing.T, limit time.Duration, args ...string) (code int, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(cleanEnv(), mainEnv+"=1")
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("creator %s did not end within %s:\n%s", strings.Join(args, " "), limit, out)
	}
	if strings.Contains(string(out), "panic:") || strings.Contains(string(out), "goroutine ") {
		t.Fatalf("creator %s panicked:\n%s", strings.Join(args, " "), out)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// cleanEnv is the environment without model settings, so the built-in
// model runs.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "CREATOR_MODEL", "CREATOR_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "CREATOR_MAX_STEPS", "CREATOR_WORKSPACE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// listTree lists every path under dir, for checking that nothing appeared
// where it should not.
func listTree(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = true
		}
		return nil
	})
	return out
}

// Every document of the hostile corpus is refused with a clear error before
// a job exists, or runs to a normal end; none panics, hangs or writes
// outside its job.
func TestHostileDocuments(t *testing.T) {
	if testing.Short() {
		t.Skip("runs creator as a separate process")
	}
	base := t.TempDir()
	docs := filepath.Join(base, "docs")
	os.MkdirAll(docs, 0o755)
	files := badfiles.Files()
	for _, f := range files {
		os.WriteFile(filepath.Join(docs, f.Name), f.Data, 0o644)
	}
	// A huge sparse file: too large to read, refused at once.
	huge, _ := os.Create(filepath.Join(docs, "huge.txt"))
	huge.Truncate(300 << 20)
	huge.Close()
	files = append(files, badfiles.File{Name: "huge.txt", Refused: true, Error: "documents over"})

	root := filepath.Join(base, "ws")
	before := listTree(t, base)
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			id := strings.NewReplacer(".", "-").Replace(f.Name)
			code, out := runLimited(t, 60*time.Second, "run", "--workspace", root, "--job", id, "--quiet", filepath.Join(docs, f.Name))
			jobDir := filepath.Join(root, "job_"+id)
			if f.Refused {
				if code != exitFailure || !strings.Contains(out, f.Error) || !strings.Contains(out, "no job was created") {
					t.Fatalf("exit %d, want 1 with %q:\n%s", code, f.Error, out)
				}
				if _, err := os.Stat(jobDir); err == nil {
					t.Fatal("a job was created for a refused document")
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if _, err := os.Stat(filepath.Join(jobDir, "output", "requirements.json")); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Nothing appeared outside the jobs: not next to the documents, not in
	// the workspace root beside the job folders, not where the injected
	// text asked for it.
	after := listTree(t, base)
	for p := range after {
		if before[p] || p == "ws" || strings.HasPrefix(p, filepath.Join("ws", "job_")) {
			continue
		}
		t.Errorf("%s appeared outside the jobs", p)
	}
	for _, p := range []string{"/tmp/creator-escape.txt", filepath.Join(root, "escaped.txt"), filepath.Join(base, "escaped.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// A model that tries to leave the workspace or break the job's own files is
// refused call by call with a tool error, the job goes on to complete, and
// nothing outside the job — nor its input, plan or machine state — changes.
func TestHostileToolCalls(t *testing.T) {
	c := func(name string, a map[string]any) llm.ToolCall {
		data, _ := json.Marshal(a)
		return llm.ToolCall{Name: name, Arguments: string(data)}
	}
	longPath := "notes/" + strings.Repeat("deep/", 300) + "x.md"
	hostile := []struct {
		call llm.ToolCall
		want string // in the error
	}{
		{c("read_file", map[string]any{"path": "../outside/secret.txt"}), "leaves the workspace"},
		{c("read_file", map[string]any{"path": "/etc/passwd"}), "absolute"},
		{c("read_file", map[string]any{"path": "escape/secret.txt"}), "outside"},
		{c("read_file", map[string]any{"path": "notes/secret-link"}), "outside"},
		{c("list_files", map[string]any{"path": ".."}), "leaves the workspace"},
		{c("write_file", map[string]any{"path": "escape/planted.txt", "content": "x"}), "outside"},
		{c("write_file", map[string]any{"path": "notes/a\u0000b.md", "content": "x"}), "NUL"},
		{c("write_file", map[string]any{"path": `notes\..\..\..\outside\win.txt`, "content": "x"}), "separate folders with '/'"},
		{c("write_file", map[string]any{"path": "C:/Windows/x.txt", "content": "x"}), "is absolute"},
		{c("write_file", map[string]any{"path": longPath, "content": "x"}), "long"},
		{c("write_file", map[string]any{"path": ".agent/job.json", "content": "{}"}), ".agent"},
		{c("write_file", map[string]any{"path": "input/policy.txt", "content": "changed"}), "input"},
		{c("write_file", map[string]any{"path": "plan.json", "content": "{}"}), "plan"},
		{c("write_file", map[string]any{"path": "notes/huge.md", "content": strings.Repeat("x", 6<<20)}), "one write is limited to"},
		{c("write_file", map[string]any{"path": "notes/binary.md", "content": "ELF\u0000\u0001\u0002"}), "NUL"},
		{c("create_folder", map[string]any{"path": "../outside/new"}), "leaves the workspace"},
		{c("delete_file", map[string]any{"path": "input"}), "input"},
		{c("delete_file", map[string]any{"path": "input/policy.txt"}), "input"},
		{c("delete_file", map[string]any{"path": "../outside/secret.txt"}), "leaves the workspace"},
		{c("edit_file", map[string]any{"path": "../outside/secret.txt", "old_text": "secret", "new_text": "gone"}), "leaves the workspace"},
		{c("search_files", map[string]any{"query": "secret", "path": "../outside"}), "leaves the workspace"},
	}
	benign := map[string][]llm.ToolCall{
		"read_file":     {c("read_file", map[string]any{"path": "instructions.md", "limit": 1})},
		"list_files":    {c("list_files", map[string]any{})},
		"write_file":    {c("write_file", map[string]any{"path": "notes/ok.md", "content": "fine\n"})},
		"create_folder": {c("create_folder", map[string]any{"path": "notes/sub"})},
		"delete_file":   {c("write_file", map[string]any{"path": "notes/tmp.md", "content": "x"}), c("delete_file", map[string]any{"path": "notes/tmp.md"})},
		"edit_file":     {c("write_file", map[string]any{"path": "notes/ok.md", "content": "fine\n"}), c("edit_file", map[string]any{"path": "notes/ok.md", "old_text": "fine", "new_text": "good"})},
		"search_files":  {c("search_files", map[string]any{"query": "fine"})},
	}
	// Each hostile call is followed by a harmless one of the same tool, as a
	// model would go on after an error.
	var steps [][]llm.ToolCall
	for _, h := range hostile {
		steps = append(steps, append([]llm.ToolCall{h.call}, benign[h.call.Name]...))
	}
	steps = append(steps, fakellm.SmallJob(testDoc, testQuote)...)
	e := newJobEnv(t, fakellm.Script(steps...))

	// Outside the job: a folder with a secret, and links into it that the
	// job folder will hold.
	outside := filepath.Join(filepath.Dir(e.root), "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	e.srv.OnRequest(func(r fakellm.Request) {
		if r.N == 1 {
			os.Symlink(outside, filepath.Join(e.jobDir("h"), "escape"))
			os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(e.jobDir("h"), "notes", "secret-link"))
		}
	})
	outsideBefore := listTree(t, outside)
	code, _, stderr := e.run("--job", "h", "--max-steps", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}

	results := map[string]string{}
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results[m.ToolCallID] = m.Content
			}
		}
	}
	for i, h := range hostile {
		got := results[fmt.Sprintf("s%d_1", i+1)]
		if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, h.want) {
			t.Errorf("%s %.80s: %q, want an error with %q", h.call.Name, h.call.Arguments, got, h.want)
		}
		for k := range benign[h.call.Name] {
			if ok := results[fmt.Sprintf("s%d_%d", i+1, k+2)]; strings.HasPrefix(ok, "error:") {
				t.Errorf("a harmless call after %s failed: %s", h.call.Name, ok)
			}
		}
	}
	// Nothing outside changed; the input, plan and machine state are intact.
	if after := listTree(t, outside); len(after) != len(outsideBefore) {
		t.Errorf("the folder outside the job changed: %v", after)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "secret" {
		t.Error("the file outside the job changed")
	}
	if !strings.Contains(e.read("h", "input/policy.txt"), testQuote) || e.info("h").Status != "completed" ||
		!strings.Contains(e.read("h", "plan.json"), `"status": "completed"`) {
		t.Error("the job's input, job.json or plan.json was damaged")
	}
	if _, err := os.Stat("C:"); err == nil {
		t.Error("a Windows drive path became a folder")
	}
}
