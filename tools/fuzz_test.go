package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"creator/internal/index"
	"creator/internal/reqstore"
	"creator/internal/tokens"
	"creator/planner"
	"creator/workspace"
)

// FuzzToolArguments sends every tool arbitrary arguments: each call must
// end in a result or a tool error — never a panic — and nothing may appear
// outside the job folder.
func FuzzToolArguments(f *testing.F) {
	base := f.TempDir()
	doc := filepath.Join(base, "policy.txt")
	os.WriteFile(doc, []byte("1. Retention\n\nInvoices must be kept for ten years.\n"), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "f", Inputs: []string{doc}, Instructions: []byte("# Guide\n")})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { job.Close() })
	all := append(WorkspaceTools(job.Files), PlanningTools(planner.New(job, nil), nil, nil)...)
	docs, err := DocumentFilesOf(job)
	if err != nil {
		f.Fatal(err)
	}
	all = append(all, DocumentTools(docs, tokens.Default())...)
	all = append(all, RequirementTools(reqstore.Open(job), nil)...)
	all = append(all, SearchTools(job.Files, index.ScanOnly{FS: job.FS()})...)
	reg, err := NewRegistry(all...)
	if err != nil {
		f.Fatal(err)
	}
	names := reg.Names()
	for i, seed := range []string{
		`{"path":"notes/a.md","content":"x"}`, `{"path":"../x"}`, `{"tasks":["a","b"]}`, `{"task_number":1}`,
		`{"query":"\"ten years\"","regex":false}`, `{"query":"(a+)+$","regex":true}`, `{"path":"input/policy.txt"}`,
		`{"title":"t","text":"x","type":"obligation","category":"compliance","priority":"high","citations":[{"document":"policy.txt","chunk":"chunk_001","quote":"Invoices"}],"confidence":0.9,"rationale":"r"}`,
		`{"path":"notes/a.md","old_text":"x","new_text":"y"}`, `null`, `[]`, `{"path":{"nested":1}}`, `{"path":"\u0000"}`,
	} {
		f.Add(uint8(i), []byte(seed))
	}
	before := listNames(base)
	f.Fuzz(func(t *testing.T, which uint8, args []byte) {
		name := names[int(which)%len(names)]
		_, err := reg.Call(context.Background(), name, json.RawMessage(args))
		var pe *PanicError
		if errors.As(err, &pe) {
			t.Fatalf("%s(%q) panicked: %v", name, args, err)
		}
		if after := listNames(base); len(after) != len(before) {
			t.Fatalf("%s(%q) changed the folder around the job: %v", name, args, after)
		}
	})
}

func listNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
