package offlinemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"creator/internal/llm"
	"creator/planner"
	"creator/tools"
)

// askCovering runs one decision on a conversation whose tools include
// declare_chunk_empty.
func askCovering(t *testing.T, msgs []llm.Message) llm.Response {
	t.Helper()
	resp, err := New().Complete(context.Background(), llm.Request{Messages: msgs,
		Tools: []llm.ToolDef{{Name: "read_file"}, {Name: declareTool}}})
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// argsOfCall decodes a call's arguments.
func argsOfCall(t *testing.T, c llm.ToolCall) map[string]any {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
		t.Fatalf("%s arguments %s: %v", c.Name, c.Arguments, err)
	}
	return args
}

// declared is what the declarations of an answer say, chunk: reason.
func declared(t *testing.T, calls []llm.ToolCall) []string {
	t.Helper()
	var out []string
	for _, c := range calls {
		if c.Name == declareTool {
			a := argsOfCall(t, c)
			out = append(out, fmt.Sprintf("%v: %v", a["chunk"], a["reason"]))
		}
	}
	return out
}

// chunkText is a chunk file of p.pdf; heading "" is a chunk before the
// first heading.
func chunkText(n, page int, heading, body string) string {
	h := ""
	if heading != "" {
		h = " | " + heading
	}
	return fmt.Sprintf("[chunk_%03d | p.pdf | p. %d%s]\n\n%s", n, page, h, body)
}

// partRead is read_file's result for the lines first to last of content.
func partRead(path, content string, first, last int) llm.Message {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	for i := first; i <= last; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i, lines[i-1])
	}
	fmt.Fprintf(&b, "[lines %d-%d of %d in %s]", first, last, len(lines), path)
	return result(b.String(), tools.FileLines{Path: path, First: first, Lines: lines[first-1 : last], Total: len(lines)})
}

var (
	tocChunk = chunkText(1, 1, "", "Records Policy\n\nContents\n\n1 Introduction .......... 2\n2 Rules .......... 3\n3 References .......... 4\n"+
		"4 Archive .......... 5\n5 Review .......... 6\n")
	introChunk = chunkText(2, 2, "1 Introduction", "1 Introduction\n\nThis policy describes how the company keeps its records.\n"+
		"It was first written in 2019 and covers paper and electronic records alike.\nThe archive is in the basement of the main building.\n")
	rulesChunk = chunkText(3, 3, "2 Rules", "2 Rules\n\nThe operator must keep records for ten years.\n")
)

// groupPlan is a plan whose group task covers chunk_001 to chunk_003, in
// progress.
func groupPlan() []planner.Task {
	return jobPlan("xxxx> ", "chunk_003")
}

// A chunk that holds no requirement is declared empty, in the answer that
// reads the next, with what it is: a table of contents, informative text.
func TestEmptyChunksDeclared(t *testing.T) { bothWordings(t, emptyChunksDeclared) }

func emptyChunksDeclared(t *testing.T, w wording) {
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", groupPlan())}
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "notes/document.md"})}}, fileRead("notes/document.md", profileNote))
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "chunks/chunk_001.md", "limit": 2000})}},
		fileRead("chunks/chunk_001.md", tocChunk))
	r := askCovering(t, msgs)
	if names(r.ToolCalls) != "declare_chunk_empty,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_002") ||
		strings.Join(declared(t, r.ToolCalls), "") != "chunk_001: front matter: title page and table of contents" {
		t.Fatalf("after the table of contents: %s %v", names(r.ToolCalls), declared(t, r.ToolCalls))
	}
	// Killed while it ran: the declaration is repeated.
	killed := w.exchange(msgs, r, interrupted(), interrupted())
	killed = append(killed, w.resumed())
	if r := askCovering(t, killed); names(r.ToolCalls) != "declare_chunk_empty,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("after a kill: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	msgs = w.exchange(msgs, r, done("declared chunk_001 empty"), fileRead("chunks/chunk_002.md", introChunk))
	r = askCovering(t, msgs)
	if names(r.ToolCalls) != "declare_chunk_empty,read_file" ||
		strings.Join(declared(t, r.ToolCalls), "") != "chunk_002: informative text: no sentence states a duty" {
		t.Fatalf("after the introduction: %s %v", names(r.ToolCalls), declared(t, r.ToolCalls))
	}
	msgs = w.exchange(msgs, r, done("declared chunk_002 empty"), fileRead("chunks/chunk_003.md", rulesChunk))
	if r = askCovering(t, msgs); names(r.ToolCalls) != "save_requirement,complete_task" {
		t.Fatalf("after the rules: %s", names(r.ToolCalls))
	}
	// Without declare_chunk_empty among the tools, nothing is declared.
	if r := ask(t, msgs[:len(msgs)-3]); names(r.ToolCalls) != "read_file" {
		t.Fatalf("without the tool: %s", names(r.ToolCalls))
	}
}

// A chunk read_file cut is read on from where it stopped; its parts are
// analysed as one text, and only then is it declared empty or its
// requirements saved.
func TestCutChunkReadToTheEnd(t *testing.T) { bothWordings(t, cutChunkReadToTheEnd) }

func cutChunkReadToTheEnd(t *testing.T, w wording) {
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", groupPlan())}
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "notes/document.md"})}}, fileRead("notes/document.md", profileNote))
	read := func(path string) llm.Response {
		return llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": path, "limit": 2000})}}
	}
	// chunk_002, informative, comes in two parts.
	msgs = w.exchange(msgs, read("chunks/chunk_002.md"), partRead("chunks/chunk_002.md", introChunk, 1, 3))
	r := askCovering(t, msgs)
	if a := argsOfCall(t, r.ToolCalls[0]); names(r.ToolCalls) != "read_file" || a["path"] != "chunks/chunk_002.md" || a["offset"] != 4.0 {
		t.Fatalf("after a cut read: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	whole := w.exchange(msgs, r, partRead("chunks/chunk_002.md", introChunk, 4, 7))
	r2 := askCovering(t, whole)
	if names(r2.ToolCalls) != "declare_chunk_empty,read_file" || !strings.Contains(r2.ToolCalls[1].Arguments, "chunk_003") {
		t.Fatalf("after the rest: %s %v", names(r2.ToolCalls), r2.ToolCalls)
	}
	// Cut again: read on from there.
	cut := w.exchange(msgs, r, partRead("chunks/chunk_002.md", introChunk, 4, 5))
	if r := askCovering(t, cut); names(r.ToolCalls) != "read_file" || argsOfCall(t, r.ToolCalls[0])["offset"] != 6.0 {
		t.Fatalf("after a second cut: %s %v", names(r.ToolCalls), r.ToolCalls)
	}

	// A requirement that stands across the cut is saved whole.
	split := chunkText(3, 3, "2 Rules", "2 Rules\n\nThe operator must keep\nrecords for ten years.\n")
	msgs = w.exchange(whole, r2, done("declared chunk_002 empty"), partRead("chunks/chunk_003.md", split, 1, 3))
	r = askCovering(t, msgs)
	msgs = w.exchange(msgs, r, partRead("chunks/chunk_003.md", split, 4, 6))
	r = askCovering(t, msgs)
	if names(r.ToolCalls) != "save_requirement,complete_task" {
		t.Fatalf("after the parts of chunk_003: %s", names(r.ToolCalls))
	}
	var d draft
	json.Unmarshal([]byte(r.ToolCalls[0].Arguments), &d)
	if d.Citations[0].Quote != "The operator must keep records for ten years." {
		t.Fatalf("quote %q", d.Citations[0].Quote)
	}
}

// A chunk whose every requirement was refused is declared empty, saying
// so; one with a requirement saved is not.
func TestRefusedChunkDeclared(t *testing.T) { bothWordings(t, refusedChunkDeclared) }

func refusedChunkDeclared(t *testing.T, w wording) {
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", groupPlan())}
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "notes/document.md"})}}, fileRead("notes/document.md", profileNote))
	two := chunkText(1, 1, "1 Rules", "1 Rules\n\nThe operator must keep records for ten years.\nThe archive should be checked once a year.\n")
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "chunks/chunk_001.md", "limit": 2000})}},
		fileRead("chunks/chunk_001.md", two))
	r := askCovering(t, msgs)
	if names(r.ToolCalls) != "save_requirement,save_requirement,read_file" {
		t.Fatalf("save step: %s", names(r.ToolCalls))
	}
	refusal := func() llm.Message {
		return llm.Message{Content: "error: the quote is not in chunk_001", Data: llm.MessageData{Failed: true}}
	}
	refused := w.exchange(msgs, r, refusal(), refusal(), fileRead("chunks/chunk_002.md", introChunk))
	r2 := askCovering(t, refused)
	want := []string{"chunk_001: no requirement saved: save_requirement refused the 2 statements found in it",
		"chunk_002: informative text: no sentence states a duty"}
	if got := declared(t, r2.ToolCalls); names(r2.ToolCalls) != "declare_chunk_empty,declare_chunk_empty,read_file" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("after the refusals: %s %q", names(r2.ToolCalls), got)
	}
	oneSaved := w.exchange(msgs, r, done("saved REQ-001"), refusal(), fileRead("chunks/chunk_002.md", introChunk))
	if got := declared(t, askCovering(t, oneSaved).ToolCalls); len(got) != 1 || !strings.HasPrefix(got[0], "chunk_002") {
		t.Fatalf("with one saved: %q", got)
	}
}

// finalizePlan is a plan with every task done but building the output.
func finalizePlan() []planner.Task {
	return jobPlan("xxxxx>", "chunk_003")
}

func finalized(uncovered ...tools.UncoveredChunk) llm.Message {
	return result(fmt.Sprintf("wrote output/requirements.json with 1 requirement; coverage: %d of 3 chunks covered", 3-len(uncovered)),
		tools.Finalized{Requirements: 1, Chunks: 3, Uncovered: uncovered})
}

// The chunks an output leaves uncovered are read (again, unless read in
// full and still shown), saved or declared empty, and the output is built
// again; a chunk still uncovered after that stops the model.
func TestUncoveredChunksAfterTheOutput(t *testing.T) { bothWordings(t, uncoveredChunksAfterTheOutput) }

func uncoveredChunksAfterTheOutput(t *testing.T, w wording) {
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", finalizePlan())}
	r := askCovering(t, msgs)
	if names(r.ToolCalls) != "finalize_output" {
		t.Fatalf("finalize step: %s", names(r.ToolCalls))
	}
	// chunk_001 was read in full and still shows; chunk_002 was not read in full.
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "chunks/chunk_001.md", "limit": 2000})}},
		fileRead("chunks/chunk_001.md", tocChunk))
	msgs = w.exchange(msgs, r, finalized(tools.UncoveredChunk{Chunk: "chunk_001", Read: true}, tools.UncoveredChunk{Chunk: "chunk_002"}))
	r = askCovering(t, msgs)
	if names(r.ToolCalls) != "read_file,read_file" || !strings.Contains(r.ToolCalls[0].Arguments, "notes/document.md") || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("after the output: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	msgs = w.exchange(msgs, r, fileRead("notes/document.md", profileNote), fileRead("chunks/chunk_002.md", introChunk))
	r = askCovering(t, msgs)
	want := []string{"chunk_001: front matter: title page and table of contents", "chunk_002: informative text: no sentence states a duty"}
	if got := declared(t, r.ToolCalls); names(r.ToolCalls) != "declare_chunk_empty,declare_chunk_empty,finalize_output" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("with the chunks read: %s %q", names(r.ToolCalls), got)
	}
	// With what the output said cleared, the chunks read since are
	// covered, and the output is built again to say what is left.
	withCleared := append([]llm.Message(nil), msgs...)
	for i, m := range withCleared {
		if m.ToolName == "finalize_output" {
			withCleared[i] = llm.Message{Role: m.Role, ToolCallID: m.ToolCallID, ToolName: m.ToolName, Content: "[cleared]", Data: llm.MessageData{Cleared: true}}
		}
	}
	if r := askCovering(t, withCleared); names(r.ToolCalls) != "declare_chunk_empty,finalize_output" || !strings.HasPrefix(declared(t, r.ToolCalls)[0], "chunk_002") {
		t.Fatalf("with the output's result cleared: %s %q", names(r.ToolCalls), declared(t, r.ToolCalls))
	}
	covered := w.exchange(msgs, r, done("declared chunk_001 empty"), done("declared chunk_002 empty"), finalized())
	if r := askCovering(t, covered); names(r.ToolCalls) != "complete_task" {
		t.Fatalf("once covered: %s", names(r.ToolCalls))
	}
	// A declaration refused, the chunk still uncovered: no third round.
	still := w.exchange(msgs, r, llm.Message{Content: "error: no", Data: llm.MessageData{Failed: true}}, done("declared chunk_002 empty"),
		finalized(tools.UncoveredChunk{Chunk: "chunk_001", Read: true}))
	_, err := New().Complete(context.Background(), llm.Request{Messages: still, Tools: []llm.ToolDef{{Name: declareTool}}})
	if !errors.Is(err, ErrNoProgress) || !strings.Contains(err.Error(), "chunk_001") {
		t.Fatalf("err = %v", err)
	}
}

// The reasons say what a chunk is, from its structure.
func TestEmptyReasons(t *testing.T) {
	t.Parallel()
	p := profile{Document: "p.pdf", Language: "English"}
	rfc := profile{Document: "rfc.txt", Language: "English", UpperOnly: true}
	cases := []struct {
		chunk string
		p     profile
		opens bool
		want  string
	}{
		{tocChunk, p, true, "front matter: title page and table of contents"},
		{chunkText(2, 2, "", "3 References .......... 4\n4 Archive .......... 5\n5 Review .......... 6\n6 Annex .......... 7\n7 Index .......... 8\n"), p, false,
			"front matter: table of contents"},
		{chunkText(1, 1, "", "Internet Engineering Task Force\n\nAbstract\n\n   This document defines a protocol.\n\nStatus of This Memo\n\n   This is an Internet Standards Track document.\n"), rfc, true,
			"front matter: title page, abstract and notices"},
		{introChunk, p, false, "informative text: no sentence states a duty"},
		// A document that opens without front matter is no title page.
		{chunkText(1, 1, "", "About this text\n\nThis text describes the history of the archive. It was founded in 1950.\n"), p, true,
			"informative text: no sentence states a duty"},
		{chunkText(5, 5, "1. Overview", "The protocol is secure.\n"), rfc, false, "informative text: no sentence uses a requirement keyword"},
		{chunkText(9, 9, "9. Security Considerations", "9. Security Considerations\n\nThis section is informative.\n\nAttackers may try many things.\n"), p, false,
			"informative section, as the document marks it"},
		{chunkText(7, 7, "23. References > 23.1. Normative References", "[TLS13]  Rescorla, E., \"TLS 1.3\", RFC 8446, August 2018.\n"), rfc, false, "list of references"},
		{chunkText(8, 8, "APPENDIX A", "12. Guide to Archives, Special Publication 800-12, March 2006.\n13. Guide to Records, Special Publication 800-13, May 2007.\n14. Guide to Keys, 2008.\n"), p, false,
			"list of references"},
		{chunkText(8, 8, "APPENDIX B", "GLOSSARY\n\nArchive  A place where records are kept.\nRecord  Information kept as evidence.\n"), p, false, "glossary of terms"},
		{chunkText(4, 4, "", "05-01-2010 Editorial Change one word. Page B-3\n05-01-2010 Editorial Change two words. Page B-4\n05-01-2010 Editorial Fix a typo. Page F-1\n"), p, false,
			"revision history: no duty stated"},
		{chunkText(30, 30, "APPENDIX D", "CP-1\nCP-1\nCP-2 (1)\nNot Selected\nCP-3\nCP-4 (1) (2)\n"), p, false, "a table without sentences: no duty stated"},
		{chunkText(31, 31, "AC-4 INFORMATION FLOW", "Enhancement Supplemental Guidance: Transfers between systems may violate policies. Owners may decide.\n"), p, false,
			"Enhancement Supplemental Guidance only: informative text"},
		{chunkText(32, 32, "Appendix A. Pseudocode", "The pseudocode in this section describes sample algorithms.\n"), rfc, false, "sample code: no duty stated"},
		{chunkText(33, 33, "", "--- page 4 ---\n"), p, false, "blank: the chunk holds no text"},
	}
	for _, c := range cases {
		ch, ok := parseChunk(1, c.chunk)
		if !ok {
			t.Fatalf("cannot parse %q", c.chunk)
		}
		got := emptyReason(ch, c.p, c.opens)
		if got != c.want {
			t.Errorf("%.60q: reason %q, want %q", c.chunk, got, c.want)
		}
		if len(strings.Fields(got)) < tools.MinReasonWords {
			t.Errorf("reason %q has fewer than %d words", got, tools.MinReasonWords)
		}
	}
}
