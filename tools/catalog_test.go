package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"creator/internal/agent"
	"creator/internal/index"
	"creator/internal/llm"
	"creator/internal/reqstore"
	"creator/internal/tokens"
	"creator/planner"
)

// everyTool is every tool a job registers, in the job's order.
func everyTool(t *testing.T) []Tool {
	t.Helper()
	e := newEnv(t)
	docs, err := DocumentFilesOf(e.job)
	if err != nil {
		t.Fatal(err)
	}
	all := append(WorkspaceTools(e.job.Files), PlanningTools(planner.New(e.job, nil), nil, nil)...)
	all = append(all, DocumentTools(docs, tokens.Default())...)
	all = append(all, RequirementTools(reqstore.Open(e.job), nil)...)
	all = append(all, CoverageTools(declarerFunc(nil))...)
	return append(all, SearchTools(e.job.Files, index.ScanOnly{FS: e.job.FS()})...)
}

func newCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := NewCatalog(everyTool(t), DeferredTools())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func names(defs []llm.ToolDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, d.Name)
	}
	return out
}

func defTokens(defs []llm.ToolDef) int {
	c := tokens.Default()
	n := 0
	for _, d := range defs {
		n += c.Count(d.Name) + c.Count(d.Description) + c.Count(string(d.Parameters))
	}
	return n
}

func TestCatalogFirstRequestIsSmaller(t *testing.T) {
	c := newCatalog(t)
	reg, err := NewRegistry(everyTool(t)...)
	if err != nil {
		t.Fatal(err)
	}
	first, all := defTokens(c.Definitions()), defTokens(reg.Definitions())
	t.Logf("tool definitions: %d tokens with discovery, %d with every tool", first, all)
	if float64(first) > 0.6*float64(all) {
		t.Errorf("the first request's tool definitions take %d tokens, more than 60%% of %d", first, all)
	}
	for _, n := range DeferredTools() {
		if slices.Contains(names(c.Definitions()), n) {
			t.Errorf("%s is sent before it was found", n)
		}
	}
	if !slices.Contains(names(c.Definitions()), SearchToolsName) {
		t.Error("search_tools is not sent")
	}
}

func TestSearchToolsFindsAndLoads(t *testing.T) {
	c := newCatalog(t)
	res, err := c.Call(context.Background(), SearchToolsName, json.RawMessage(`{"query":"split a document into chunks"}`))
	if err != nil {
		t.Fatal(err)
	}
	found, ok := res.Data.(FoundTools)
	if !ok || len(found.Tools) == 0 || found.Tools[0].Name != "chunk_document" {
		t.Fatalf("found %+v, want chunk_document first\n%s", res.Data, res.Text)
	}
	if found.Tools[0].Description == "" {
		t.Errorf("found tool lacks its description: %+v", found.Tools[0])
	}
	// The arguments in the order the tool declares them, every time.
	if want := `{"path": string, "max_tokens"?: integer}`; found.Tools[0].Arguments != want {
		t.Errorf("chunk_document's arguments are %s, want %s", found.Tools[0].Arguments, want)
	}
	for range 5 {
		again, err := c.Call(context.Background(), SearchToolsName, json.RawMessage(`{"query":"split a document into chunks"}`))
		if err != nil || again.Text != res.Text {
			t.Fatalf("the same search gave\n%s\nthen\n%s (%v)", res.Text, again.Text, err)
		}
	}
	if !slices.Contains(names(c.Definitions()), "chunk_document") {
		t.Error("chunk_document is not sent after it was found")
	}
	if slices.Contains(names(c.Definitions()), "finalize_output") && !slices.ContainsFunc(found.Tools, func(f FoundTool) bool { return f.Name == "finalize_output" }) {
		t.Error("finalize_output is sent though not found")
	}
	for query, want := range map[string]string{"save requirements": "save_requirement", "declare chunk empty": "declare_chunk_empty",
		"finalize the output": "finalize_output", "extract text from pdf": "extract_document_text"} {
		r, err := c.Call(context.Background(), SearchToolsName, json.RawMessage(`{"query":"`+query+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Data.(FoundTools).Tools; len(got) == 0 || got[0].Name != want {
			t.Errorf("search_tools(%q) found %+v first, want %s", query, got, want)
		}
	}
	none, _ := c.Call(context.Background(), SearchToolsName, json.RawMessage(`{"query":"zzzz"}`))
	if len(none.Data.(FoundTools).Tools) != 0 || none.Text == "" {
		t.Errorf("a query matching nothing gave %+v", none)
	}
}

func TestCallByExactNameLoads(t *testing.T) {
	c := newCatalog(t)
	// It fails (nothing to finalize yet) but is run, and is loaded.
	_, err := c.Call(context.Background(), "finalize_output", json.RawMessage(`{}`))
	if err != nil && strings.Contains(err.Error(), "there is no tool") {
		t.Fatal(err)
	}
	if got := c.Loaded(); !slices.Equal(got, []string{"finalize_output"}) {
		t.Errorf("loaded %v, want finalize_output", got)
	}
	if !slices.Contains(c.Known(), "declare_chunk_empty") {
		t.Error("a deferred tool is not among the known ones")
	}
}

func TestCatalogKeepsRegistryOrder(t *testing.T) {
	c := newCatalog(t)
	before := names(c.Definitions())
	for _, n := range []string{"finalize_output", "extract_document_text", "save_requirement"} {
		c.Call(context.Background(), n, json.RawMessage(`{}`))
		now := names(c.Definitions())
		// What was sent before is still sent, and everything in the
		// registry's order.
		if !isSubsequence(before, now) || !isSubsequence(now, c.Known()) {
			t.Fatalf("after loading %s the tools are %v (were %v; registry %v)", n, now, before, c.Known())
		}
		before = now
	}
	if !slices.Equal(c.Loaded(), []string{"extract_document_text", "save_requirement", "finalize_output"}) {
		t.Errorf("loaded %v, not in registry order", c.Loaded())
	}
}

func isSubsequence(sub, of []string) bool {
	i := 0
	for _, s := range of {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

func TestCatalogRestoresFromConversation(t *testing.T) {
	live := newCatalog(t)
	var msgs []llm.Message
	for _, call := range []struct{ name, args string }{
		{SearchToolsName, `{"query":"chunk document"}`},
		{"save_requirement", `{}`},
		{"read_file", `{"path":"instructions.md"}`},
	} {
		res, err := live.Call(context.Background(), call.name, json.RawMessage(call.args))
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolName: call.name, Content: res.Text,
			Data: llm.MessageData{Failed: err != nil, Value: llm.ValueOf(res.Data)}})
	}
	// Calls the loop answered itself, without calling the tool, load
	// nothing.
	msgs = append(msgs,
		llm.Message{Role: llm.RoleTool, ToolName: "finalize_output", Content: "error: not run", Data: llm.MessageData{Kind: agent.KindNotRun, Failed: true}},
		llm.Message{Role: llm.RoleTool, ToolName: "delete_file", Content: agent.InterruptedResult, Data: llm.MessageData{Kind: agent.KindInterrupted, Failed: true}})
	resumed := newCatalog(t)
	resumed.Restore(msgs)
	if !slices.Equal(names(resumed.Definitions()), names(live.Definitions())) {
		t.Errorf("resumed with %v, the run had %v", names(resumed.Definitions()), names(live.Definitions()))
	}
	if want := []string{"extract_document_text", "chunk_document", "save_requirement", "declare_chunk_empty"}; !slices.Equal(resumed.Loaded(), want) || !slices.Equal(live.Loaded(), want) {
		t.Errorf("resumed with %v loaded, the run had %v, want %v", resumed.Loaded(), live.Loaded(), want)
	}
}
