package jobrun_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"creator/internal/index"
	"creator/internal/job"
	"creator/internal/tokens"
	"creator/templates"
	"creator/tools"
	"creator/workspace"
)

// The guide given to the agent names every tool it has.
func TestInstructionsNameEveryTool(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	doc := filepath.Join(root, "d.txt")
	os.WriteFile(doc, []byte("x"), 0o644)
	owner, err := job.Create(filepath.Join(root, "ws"), workspace.CreateOptions{ID: "x", Inputs: []string{doc}, Instructions: templates.Instructions})
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close()
	j := owner.Workspace()
	all := append(tools.WorkspaceTools(j.Files), tools.PlanningTools(owner.Plan(), nil, nil)...)
	docs, err := tools.DocumentFilesOf(j)
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, tools.DocumentTools(docs, tokens.Default())...)
	all = append(all, tools.RequirementTools(owner.Requirements(), nil)...)
	all = append(all, tools.SearchTools(j.Files, index.ScanOnly{FS: j.FS()})...)
	all = append(all, tools.CoverageTools(owner)...)
	catalog, err := tools.NewCatalog(all, tools.DeferredTools())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range catalog.Known() {
		if !bytes.Contains(templates.Instructions, []byte("`"+name+"(")) {
			t.Errorf("instructions.md does not mention %s", name)
		}
	}
	got, _ := os.ReadFile(filepath.Join(j.Dir, "instructions.md"))
	if !bytes.Equal(got, templates.Instructions) {
		t.Error("the job's instructions.md is not the template")
	}
}
