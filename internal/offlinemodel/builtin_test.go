package offlinemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/llm"
	"creator/internal/requirement"
	"creator/planner"
	"creator/tools"
	"creator/workspace"
)

func TestSentences(t *testing.T) {
	t.Parallel()
	text := "--- page 3 ---\n1. Scope\n\nRecords must be kept for ten years, z. B. in the archive. The archive\n--- page 4 ---\nshould be checked every quarter (see Section 5.2.8.). Keys SHALL be rotated:\n• Key A MUST be kept.\n• Key B MAY be dropped.\n41 Die Belege sind aufzubewahren.\nAm 1. Oktober 2019 gilt das.\n"
	var got []string
	for _, s := range sentences(text) {
		if q := requirement.Clean(stripLead(s).text); q != "" {
			got = append(got, q)
		}
	}
	want := []string{
		"Scope",
		"Records must be kept for ten years, z. B. in the archive.",
		"The archive should be checked every quarter (see Section 5.2.8.).",
		"Keys SHALL be rotated:",
		"Key A MUST be kept.",
		"Key B MAY be dropped.",
		"Die Belege sind aufzubewahren.",
		"Am 1. Oktober 2019 gilt das.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sentences:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		s         string
		upperOnly bool
		kind      string // "" for none
	}{
		{"A QUIC endpoint MUST NOT reuse a stream ID within a connection.", true, "prohibition"},
		{"Endpoints MUST be able to deliver stream data.", true, "obligation"},
		{"Implementations SHOULD NOT send it.", true, "recommendation"},
		{"Implementations MAY choose to offer it.", true, "permission"},
		{"Receivers need to limit the amount of data that they are required to buffer.", true, ""},
		{`The key words "MUST", "MUST NOT" and "SHOULD" in this document are to be interpreted as described in BCP 14.`, true, ""},
		{`The word "MUST" is used in this text.`, false, ""},
		{"The finance department must retain invoices for ten years.", false, "obligation"},
		{"Records must not be deleted before the end of their retention period.", false, "prohibition"},
		{"Records must be stored in a form that cannot be altered.", false, "obligation"},
		{"Employees may keep working copies for up to 30 days.", false, "permission"},
		{"Personal data may only be processed for bookkeeping.", false, "obligation"},
		{"The archive should be checked once per quarter.", false, "recommendation"},
		{"Buchungsbelege und Rechnungen sind zehn Jahre lang unveränderbar aufzubewahren.", false, "obligation"},
		{"Die Leitung der Buchhaltung hat sicherzustellen, dass jede Buchung dokumentiert ist.", false, "obligation"},
		{"Die Unterlagen sind geordnet zu archivieren.", false, "obligation"},
		{"Änderungen an Buchungen müssen protokolliert werden.", false, "obligation"},
		{"Personenbezogene Daten dürfen nicht länger gespeichert werden.", false, "prohibition"},
		{"Eine Verrechnung ist unzulässig.", false, "prohibition"},
		{"Die Verfahrensdokumentation soll aktualisiert werden.", false, "recommendation"},
		{"Er ist gekommen, um die Belege zu prüfen.", false, ""},
		{"Die Regelung ist ab dem 1. Januar anzuwenden.", false, "obligation"},
		{"Die Belege wurden gestern geprüft.", false, ""},
	}
	for _, c := range cases {
		f, ok := classify(c.s, c.upperOnly)
		if (c.kind == "") == ok || ok && f.kind != c.kind {
			t.Errorf("classify(%q, %v) = %v %q, want %q", c.s, c.upperOnly, ok, f.kind, c.kind)
		}
	}
}

func TestProfile(t *testing.T) {
	t.Parallel()
	rfc := makeProfile("rfc.txt", "Internet Engineering Task Force (IETF)\nRequest for Comments: 9000\n...\nThe key words \"MUST\", \"MUST NOT\" ... are to be interpreted as described in BCP\n   14 [RFC2119].\nEndpoints MUST do this.", nil)
	if !rfc.UpperOnly || rfc.Identifier != "RFC 9000" || rfc.Language != "English" {
		t.Errorf("rfc profile = %+v", rfc)
	}
	nist := makeProfile("sp.pdf", "NIST Special Publication 800-63B\nThe verifier SHALL do X. The CSP SHALL do Y. It SHOULD do Z. They SHALL NOT. It MUST. Also SHALL.", nil)
	if !nist.UpperOnly || nist.Identifier != "NIST SP 800-63B" {
		t.Errorf("nist profile = %+v", nist)
	}
	gobd := makeProfile("GoBD.pdf", "Grundsätze zur ordnungsmäßigen Führung (GoBD). Die Belege sind aufzubewahren und der Steuerpflichtige muss das nicht tun.", nil)
	if gobd.UpperOnly || gobd.Language != "German" || gobd.Identifier != "GoBD" {
		t.Errorf("gobd profile = %+v", gobd)
	}
	// An identifier broken across lines on the title page stays one line.
	rev := makeProfile("sp171.pdf", "NIST Special Publication 800-171\nRevision 1\nProtecting Controlled Unclassified Information. The system shall limit access.", nil)
	if rev.Identifier != "NIST SP 800-171 Revision 1" {
		t.Errorf("identifier = %q", rev.Identifier)
	}
	// The profile survives its own notes file.
	back := parseProfiles("# Document profile\n\n" + rfc.render() + "\n" + gobd.render() + "\n" + rev.render())
	if len(back) != 3 || !back["rfc.txt"].UpperOnly || back["GoBD.pdf"].Identifier != "GoBD" || back["sp171.pdf"].Identifier != "NIST SP 800-171 Revision 1" {
		t.Errorf("parsed profiles = %+v", back)
	}
}

func TestBuildDraft(t *testing.T) {
	t.Parallel()
	p := profile{Document: "p.pdf", Language: "German", Identifier: "GoBD"}
	f, _ := classify("Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren.", false)
	d := buildDraft("Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren.", "p.pdf", "chunk_003", "5 Pflichten", f, p, nil)
	if d.Type != "obligation" || d.Category != "compliance" || d.Priority != "high" || len(d.Frameworks) != 1 || d.Frameworks[0] != "GoBD" ||
		!strings.Contains(d.Rationale, "sind … aufzubewahren") || !strings.Contains(d.Rationale, "Section: 5 Pflichten.") {
		t.Errorf("draft = %+v", d)
	}
	long := strings.Repeat("word ", 30) + "must happen."
	if tt := title(long); len([]rune(tt)) > 80 || !strings.HasSuffix(tt, "…") {
		t.Errorf("title = %q", tt)
	}
}

// ask runs one decision on a conversation, and checks that the
// conversation with the answer, its calls answered, is valid: every call
// has an id of its own.
func ask(t *testing.T, msgs []llm.Message) llm.Response {
	t.Helper()
	resp, err := New().Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.ToolDef{{Name: "read_file"}}})
	if err != nil {
		t.Fatal(err)
	}
	conv := append(slices.Clip(msgs), llm.Message{Role: llm.RoleAssistant, Content: resp.Content, ToolCalls: resp.ToolCalls})
	for _, c := range resp.ToolCalls {
		conv = append(conv, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: "ok"})
	}
	if err := llm.Validate(conv); err != nil {
		t.Fatal(err)
	}
	return resp
}

func names(calls []llm.ToolCall) string {
	var n []string
	for _, c := range calls {
		n = append(n, c.Name)
	}
	return strings.Join(n, ",")
}

// The conversations below are written as the agent, the tools and context
// management write them: text for the model, and data. Every scenario runs
// twice, the second time with all the text that others write reworded:
// the model reads their data, so its decisions must not change.

// wording writes the text of the messages the model did not write.
type wording func(string) string

func asWritten(s string) string { return s }

// reworded turns a text into another one, different for every text.
func reworded(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return "(reworded) " + string(r)
}

// bothWordings runs a scenario as written and reworded.
func bothWordings(t *testing.T, scenario func(*testing.T, wording)) {
	t.Run("as written", func(t *testing.T) { scenario(t, asWritten) })
	t.Run("reworded", func(t *testing.T) { scenario(t, reworded) })
}

// exchange adds the model's answer and the results of its calls.
func (w wording) exchange(msgs []llm.Message, r llm.Response, results ...llm.Message) []llm.Message {
	calls := r.ToolCalls
	for i := range calls {
		calls[i].ID = fmt.Sprintf("c%d_%d", len(msgs), i)
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: r.Content, ToolCalls: calls})
	for i, c := range calls {
		res := results[i]
		res.Role, res.ToolCallID, res.ToolName, res.Content = llm.RoleTool, c.ID, c.Name, w(res.Content)
		msgs = append(msgs, res)
	}
	return msgs
}

// first is the job's first message.
func (w wording) first(inputs ...string) llm.Message {
	var docs []string
	for _, in := range inputs {
		docs = append(docs, "input/"+in+" (2.0 KB)")
	}
	return llm.Message{Role: llm.RoleUser, Content: w("Job j. Source documents: " + strings.Join(docs, ", ") + "."),
		Data: llm.MessageData{Value: llm.ValueOf(workspace.Assignment{Job: "j", Inputs: inputs})}}
}

// summary is the message that replaces summarised turns: the model's own
// summary (as it wrote it) and the brief with the plan.
func (w wording) summary(own string, plan []planner.Task) llm.Message {
	text := w("Summary of the earlier conversation.") + "\n\n" + own + "\n\n" + w(planner.Checklist(planner.Plan{Tasks: plan}))
	return llm.Message{Role: llm.RoleUser, Content: text,
		Data: llm.MessageData{Kind: compaction.KindSummary, Value: llm.ValueOf(compaction.SummaryData{Plan: plan})}}
}

func (w wording) resumed() llm.Message {
	return llm.Message{Role: llm.RoleUser, Content: w(agent.ResumeNote), Data: llm.MessageData{Kind: agent.KindResume}}
}

// tasks makes a plan: marks has one mark per task, x completed, > in
// progress, a space pending.
func tasks(marks string, texts ...string) []planner.Task {
	status := map[rune]planner.Status{'x': planner.Completed, '>': planner.InProgress, ' ': planner.Pending}
	var plan []planner.Task
	for i, m := range []rune(marks) {
		plan = append(plan, planner.Task{Number: i + 1, Text: texts[i], Status: status[m]})
	}
	return plan
}

// jobPlan is the plan of a job on p.pdf whose group task covers chunk_001
// to last, each task marked as for tasks.
func jobPlan(marks, last string) []planner.Task {
	return tasks(marks, "Read instructions.md and look at input/", "Extract the text of p.pdf", "Split p.pdf into chunks", "Profile the documents in notes/document.md",
		"Find and save the requirements in chunk_001 to "+last, "Build the output with finalize_output and check it")
}

// Tool results, before the agent fills in which call they answer.
func result(text string, data any) llm.Message {
	return llm.Message{Content: text, Data: llm.MessageData{Value: llm.ValueOf(data)}}
}

func done(text string) llm.Message { return llm.Message{Content: text} }

// fileRead is read_file's result for a whole file.
func fileRead(path, content string) llm.Message {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, l)
	}
	fmt.Fprintf(&b, "[%d lines, whole file]", len(lines))
	return result(b.String(), tools.FileLines{Path: path, First: 1, Lines: lines, Total: len(lines)})
}

func interrupted() llm.Message {
	return llm.Message{Content: agent.InterruptedResult, Data: llm.MessageData{Kind: agent.KindInterrupted, Failed: true}}
}

func notRun() llm.Message {
	return llm.Message{Content: agent.NotRunPrefix + "the job was interrupted", Data: llm.MessageData{Kind: agent.KindNotRun, Failed: true}}
}

func cleared(text string) llm.Message {
	return llm.Message{Content: text, Data: llm.MessageData{Cleared: true}}
}

func repeated(text string) llm.Message {
	return llm.Message{Content: text, Data: llm.MessageData{Kind: agent.KindRepeat}}
}

const profileNote = "# Document profile\n\n## p.pdf\n\n- Language: English\n- Identifier: -\n- Convention: ordinary-language\n- Why: x\n"

func chunkFile(n int, body string) llm.Message {
	return fileRead(fmt.Sprintf("chunks/chunk_%03d.md", n), fmt.Sprintf("[chunk_%03d | p.pdf | p. 1 | 1 Scope]\n\n%s", n, body))
}

func TestDecisions(t *testing.T) { bothWordings(t, decisions) }

func decisions(t *testing.T, w wording) {
	msgs := []llm.Message{w.first("p.pdf")}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "read_file" || !strings.Contains(r.ToolCalls[0].Arguments, "instructions.md") {
		t.Fatalf("first step: %s", names(r.ToolCalls))
	}
	msgs = w.exchange(msgs, r, fileRead("instructions.md", "# Instructions\n"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "write_plan" || !strings.Contains(r.ToolCalls[0].Arguments, "Extract the text of p.pdf") {
		t.Fatalf("second step: %s %s", names(r.ToolCalls), r.ToolCalls[0].Arguments)
	}
	msgs = w.exchange(msgs, r, done("plan written with 5 tasks; begin with start_task(1)"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "start_task,complete_task" {
		t.Fatalf("third step: %s", names(r.ToolCalls))
	}
	msgs = w.exchange(msgs, r, done("task 1 in progress"), done("task 1 completed (1 of 5 done)"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "start_task,extract_document_text" {
		t.Fatalf("extract step: %s", names(r.ToolCalls))
	}
	// The extraction was interrupted by a crash: it is done again.
	msgs = w.exchange(msgs, r, done("task 2 in progress"), interrupted())
	r = ask(t, msgs)
	if names(r.ToolCalls) != "extract_document_text" {
		t.Fatalf("after an interrupted call: %s", names(r.ToolCalls))
	}
	msgs = w.exchange(msgs, r, result("extracted input/p.pdf (PDF) to input/p.txt: 2 pages.", tools.Extracted{Source: "input/p.pdf", Output: "input/p.txt", Pages: 2}))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "complete_task" || !strings.Contains(r.ToolCalls[0].Arguments, "text in input/p.txt") {
		t.Fatalf("after the extraction: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	msgs = w.exchange(msgs, r, done("task 2 completed (2 of 5 done)"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "start_task,chunk_document" || !strings.Contains(r.ToolCalls[1].Arguments, "input/p.txt") {
		t.Fatalf("chunk step: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	msgs = w.exchange(msgs, r, done("task 3 in progress"),
		result("chunked input/p.txt into 12 chunks: files chunks/chunk_001.md … chunks/chunk_012.md", tools.Chunked{Source: "input/p.txt", Document: "p.pdf", First: 1, Last: 12}))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "write_plan,complete_task" || !strings.Contains(r.ToolCalls[0].Arguments, "in chunk_011 to chunk_012") || !strings.Contains(r.ToolCalls[1].Arguments, "12 chunks") {
		t.Fatalf("after chunking: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// Without the documents in the first message, the model lists input/
// and leaves out the texts extracted there.
func TestInputsFromTheListing(t *testing.T) { bothWordings(t, inputsFromTheListing) }

func inputsFromTheListing(t *testing.T, w wording) {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: w("Job j.")}}
	r := ask(t, msgs)
	msgs = w.exchange(msgs, r, fileRead("instructions.md", "# Instructions\n"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "list_files" {
		t.Fatalf("without inputs: %s", names(r.ToolCalls))
	}
	listing := tools.Listing{Path: "input", Entries: []tools.ListEntry{{Name: "a.pdf"}, {Name: "a.txt"}, {Name: "b.txt"}, {Name: "b.extracted.txt"}, {Name: "old", Dir: true}}}
	msgs = w.exchange(msgs, r, result("input/ (5 entries):\n  a.pdf  1 KB\n  a.txt  1 KB\n  b.txt  1 KB\n  b.extracted.txt  1 KB\n  old/  0 entries", listing))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "write_plan" || !strings.Contains(r.ToolCalls[0].Arguments, "Extract the text of a.pdf") || !strings.Contains(r.ToolCalls[0].Arguments, "Extract the text of b.txt") ||
		strings.Contains(r.ToolCalls[0].Arguments, "a.txt") || strings.Contains(r.ToolCalls[0].Arguments, "extracted") || strings.Contains(r.ToolCalls[0].Arguments, "old") {
		t.Fatalf("the plan: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// After a summary or a resume the plan is read again; read_plan saying
// there is none sends the model back to the instructions.
func TestPlanReadAgain(t *testing.T) { bothWordings(t, planReadAgain) }

func planReadAgain(t *testing.T, w wording) {
	msgs := []llm.Message{w.first("p.pdf"), w.resumed()}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "read_plan" {
		t.Fatalf("after a resume: %s", names(r.ToolCalls))
	}
	plan := tasks("x> ", "Read instructions.md and look at input/", "Extract the text of p.pdf", "Split p.pdf into chunks")
	withPlan := w.exchange(msgs, r, result(planner.Checklist(planner.Plan{Tasks: plan}), tools.PlanData{Tasks: plan}))
	if r := ask(t, withPlan); names(r.ToolCalls) != "extract_document_text" {
		t.Fatalf("with the plan read: %s", names(r.ToolCalls))
	}
	noPlan := w.exchange(msgs, r, llm.Message{Content: "error: there is no plan yet; write one with write_plan", Data: llm.MessageData{Failed: true, Value: llm.ValueOf(tools.PlanData{NoPlan: true})}})
	if r := ask(t, noPlan); names(r.ToolCalls) != "read_file" || !strings.Contains(r.ToolCalls[0].Arguments, "instructions.md") {
		t.Fatalf("without a plan: %s", names(r.ToolCalls))
	}
}

// finalize_output refusing broken requirements: they are deleted, then
// the output is built again.
func TestFinalizeRefused(t *testing.T) { bothWordings(t, finalizeRefused) }

func finalizeRefused(t *testing.T, w wording) {
	plan := tasks("xxxx ", "Read instructions.md and look at input/", "Extract the text of p.pdf", "Split p.pdf into chunks", "Profile the documents in notes/document.md",
		"Build the output with finalize_output and check it")
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", plan)}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "start_task,finalize_output" {
		t.Fatalf("finalize step: %s", names(r.ToolCalls))
	}
	broken := []string{"requirements/req_002/final.json", "requirements/req_007/final.json"}
	msgs = w.exchange(msgs, r, done("task 5 in progress"), llm.Message{
		Content: "error: the output was not written; fix these requirements:\n- requirements/req_002/final.json: bad\n- REQ-003 citation 1: bad\n- requirements/req_007/final.json has id REQ-001",
		Data:    llm.MessageData{Failed: true, Value: llm.ValueOf(tools.FinalizeRefused{Broken: broken})}})
	r = ask(t, msgs)
	if names(r.ToolCalls) != "delete_file,delete_file,finalize_output" || !strings.Contains(r.ToolCalls[0].Arguments, broken[0]) || !strings.Contains(r.ToolCalls[1].Arguments, broken[1]) {
		t.Fatalf("after the refusal: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	msgs = w.exchange(msgs, r, done("deleted "+broken[0]), done("deleted "+broken[1]), done("wrote output/requirements.json with 5 requirements"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "complete_task" {
		t.Fatalf("after the output: %s", names(r.ToolCalls))
	}
}

func TestGroupWorkAndRecovery(t *testing.T) { bothWordings(t, groupWorkAndRecovery) }

func groupWorkAndRecovery(t *testing.T, w wording) {
	plan := jobPlan("xxxx  ", "chunk_002")
	// After a summary the plan is in the brief, the profile is not.
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", plan)}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "start_task,read_file,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "notes/document.md") || !strings.Contains(r.ToolCalls[2].Arguments, "chunk_001") {
		t.Fatalf("after a summary: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	msgs = w.exchange(msgs, r, done("task 5 in progress"), fileRead("notes/document.md", profileNote),
		chunkFile(1, "The operator must keep records for ten years.\nThis line says nothing."))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "save_requirement,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("group step: %s", names(r.ToolCalls))
	}
	var d draft
	json.Unmarshal([]byte(r.ToolCalls[0].Arguments), &d)
	if d.Citations[0].Quote != "The operator must keep records for ten years." || d.Citations[0].Chunk != "chunk_001" || d.Citations[0].Document != "p.pdf" {
		t.Fatalf("draft = %+v", d)
	}
	// The read result was cleared before the model saw it: read again.
	msgs = w.exchange(msgs, r, done("saved REQ-001"), cleared("[cleared: read_file chunks/chunk_002.md]"))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "read_file" || !strings.Contains(r.ToolCalls[0].Arguments, "chunk_002") {
		t.Fatalf("after a cleared result: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// A read answered as a repeat points to the last identical read that
// succeeded, not to one cut off by an interruption in between.
func TestRepeatAfterAnInterruptedCall(t *testing.T) { bothWordings(t, repeatAfterAnInterruptedCall) }

func repeatAfterAnInterruptedCall(t *testing.T, w wording) {
	plan := jobPlan("xxxx> ", "chunk_002")
	read := func() llm.Response {
		return llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "chunks/chunk_001.md", "limit": 2000})}}
	}
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", plan)}
	msgs = w.exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "notes/document.md"})}}, fileRead("notes/document.md", profileNote))
	msgs = w.exchange(msgs, read(), chunkFile(1, "The operator must keep records for ten years."))
	msgs = w.exchange(msgs, read(), interrupted())
	msgs = w.exchange(msgs, read(), repeated("This call repeats your call in step 2 exactly, and nothing has changed since."))
	r := ask(t, msgs)
	if names(r.ToolCalls) != "save_requirement,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("after a repeat: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// A step that succeeded but would only be repeated — here a profile the
// model cannot read — stops the model at once with the reason.
func TestNoProgressStopsAtOnce(t *testing.T) { bothWordings(t, noProgressStopsAtOnce) }

func noProgressStopsAtOnce(t *testing.T, w wording) {
	plan := jobPlan("xxxx> ", "chunk_002")
	msgs := []llm.Message{w.first("p.pdf"), w.summary("", plan)}
	unreadable := "# Document profile\n\n## p.pdf\n- Identifier: NIST SP 800-171\nRevision 1\n"
	r := ask(t, msgs)
	msgs = w.exchange(msgs, r, fileRead("notes/document.md", unreadable), chunkFile(1, "The operator must keep records for ten years."))
	_, err := New().Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.ToolDef{{Name: "read_file"}}})
	// The error names the step it would repeat ("notes/document.md" alone
	// is in its fixed text too).
	repeated := `(read_file {"path":"notes/document.md"}; read_file {"limit":2000,"path":"chunks/chunk_001.md"})`
	if !errors.Is(err, ErrNoProgress) || !strings.Contains(err.Error(), repeated) {
		t.Fatalf("err = %v", err)
	}
}

func TestSummary(t *testing.T) { bothWordings(t, summary) }

func summary(t *testing.T, w wording) {
	// The turns to summarise, as compaction renders them and gives them
	// as data: chunk_041's requirements were saved, chunk_042 was read but
	// its step was cut off.
	turns := []llm.Message{
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "a", Name: "read_file", Arguments: `{"limit":2000,"path":"chunks/chunk_041.md"}`}}},
		{Role: llm.RoleTool, ToolCallID: "a", Content: "the chunk"},
		{Role: llm.RoleAssistant, Content: "chunk_041: 2 requirement(s). Reading chunk_042.", ToolCalls: []llm.ToolCall{
			{ID: "b", Name: "save_requirement", Arguments: "{}"}, {ID: "c", Name: "save_requirement", Arguments: "{}"},
			{ID: "d", Name: "read_file", Arguments: `{"limit":2000,"path":"chunks/chunk_042.md"}`}}},
	}
	rendered := w("The conversation so far:\n\ncall read_file {\"limit\":2000,\"path\":\"chunks/chunk_041.md\"}\nresult of read_file: the chunk\nassistant: chunk_041: 2 requirement(s). Reading chunk_042.\ncall save_requirement {}\ncall save_requirement {}\ncall read_file {\"limit\":2000,\"path\":\"chunks/chunk_042.md\"}\n")
	request := llm.Message{Role: llm.RoleUser, Content: rendered, Data: llm.MessageData{Kind: compaction.KindTurns, Value: llm.ValueOf(turns)}}
	resp, err := New().Complete(context.Background(), llm.Request{System: "summarise", Messages: []llm.Message{request}})
	if err != nil || len(resp.ToolCalls) != 0 || !strings.Contains(resp.Content, "2 requirements were submitted") || !strings.Contains(resp.Content, "Chunks processed up to chunk_041.") {
		t.Fatalf("summary = %q, %v", resp.Content, err)
	}
	// A later summary of turns that hold this one carries its count on.
	again := []llm.Message{{Role: llm.RoleUser, Content: w("Summary of the earlier conversation.") + "\n\n" + resp.Content}}
	request = llm.Message{Role: llm.RoleUser, Content: w("The conversation so far: …"), Data: llm.MessageData{Kind: compaction.KindTurns, Value: llm.ValueOf(again)}}
	resp2, err := New().Complete(context.Background(), llm.Request{System: "summarise", Messages: []llm.Message{request}})
	if err != nil || !strings.Contains(resp2.Content, "0 requirements were submitted") || !strings.Contains(resp2.Content, "Chunks processed up to chunk_041.") {
		t.Fatalf("second summary = %q, %v", resp2.Content, err)
	}
	// After the summary, the group goes on with chunk_042.
	plan := tasks("x>", "Read instructions.md and look at input/", "Find and save the requirements in chunk_041 to chunk_050")
	msgs := []llm.Message{w.first("p.pdf"), w.summary(resp.Content, plan)}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "read_file,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_042") {
		t.Fatalf("after the summary: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// After a kill: saves that never ran are repeated; when their arguments
// were shortened, the chunk is read and analysed again; a chunk that was
// read but whose requirements no step announced is not skipped.
func TestRecoveryAfterAKill(t *testing.T) { bothWordings(t, recoveryAfterAKill) }

func recoveryAfterAKill(t *testing.T, w wording) {
	plan := jobPlan("xxxx  ", "chunk_003")
	chunk := func(n int) llm.Message {
		return chunkFile(n, fmt.Sprintf("The operator must keep record %d for ten years.", n))
	}
	start := []llm.Message{w.first("p.pdf"), w.summary("", plan)}
	// Profile and chunk_001 read; the next step saves chunk_001 and reads chunk_002.
	r := ask(t, start)
	msgs := w.exchange(start, r, done("task 5 in progress"), fileRead("notes/document.md", profileNote), chunk(1))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "save_requirement,read_file" || !strings.HasPrefix(r.Content, "chunk_001: 1 requirement") {
		t.Fatalf("save step: %s %q", names(r.ToolCalls), r.Content)
	}
	save := r.ToolCalls[0]

	// Killed while that step ran: the save is repeated, chunk_002 read.
	killed := w.exchange(msgs, r, interrupted(), interrupted())
	killed = append(killed, w.resumed())
	r2 := ask(t, killed)
	var want, got map[string]any
	json.Unmarshal([]byte(save.Arguments), &want)
	json.Unmarshal([]byte(r2.ToolCalls[0].Arguments), &got)
	if names(r2.ToolCalls) != "save_requirement,read_file" || !reflect.DeepEqual(got, want) || !strings.Contains(r2.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("after the kill: %s %v", names(r2.ToolCalls), r2.ToolCalls)
	}
	// Stopped by Ctrl-C after the save was cut off, the rest skipped: the same.
	stopped := w.exchange(msgs, r, interrupted(), notRun())
	stopped = append(stopped, w.resumed())
	if r := ask(t, stopped); names(r.ToolCalls) != "save_requirement,read_file" {
		t.Fatalf("after Ctrl-C: %s", names(r.ToolCalls))
	}
	skipped := w.exchange(msgs, r, notRun(), notRun())
	skipped = append(skipped, w.resumed())
	if r := ask(t, skipped); names(r.ToolCalls) != "save_requirement,read_file" {
		t.Fatalf("after a save skipped by the stop: %s", names(r.ToolCalls))
	}
	// A save whose tool name was garbled on the way is repeated too.
	garbled := w.exchange(msgs, r, llm.Message{Content: "error: there is no tool named \"save_requirment\"", Data: llm.MessageData{Kind: agent.KindUnknownTool, Failed: true}},
		chunk(2))
	if r := ask(t, garbled); names(r.ToolCalls) != "save_requirement,save_requirement,read_file" {
		t.Fatalf("after a garbled save: %s", names(r.ToolCalls))
	}

	// The same, but the save's quote was shortened by a clearing: chunk_001
	// is read again instead of saving a shortened quote.
	short := r
	short.ToolCalls = append([]llm.ToolCall(nil), r.ToolCalls...)
	short.ToolCalls[0].Arguments = strings.Replace(save.Arguments, `"quote":"The operator must keep record 1 for ten years."`, `"quote":"`+compaction.Shortened+`12 tokens]"`, 1)
	if short.ToolCalls[0].Arguments == save.Arguments {
		t.Fatalf("the test did not shorten the quote: %s", save.Arguments)
	}
	killed = w.exchange(msgs, short, interrupted(), interrupted())
	killed = append(killed, w.resumed())
	r3 := ask(t, killed)
	if names(r3.ToolCalls) != "read_file" || !strings.Contains(r3.ToolCalls[0].Arguments, "chunk_001") {
		t.Fatalf("after the kill with a shortened save: %s %v", names(r3.ToolCalls), r3.ToolCalls)
	}

	// chunk_002 read, then the step after it (re-reading the profile and
	// chunk_002) cut off: chunk_002 is read again, not skipped.
	msgs = w.exchange(msgs, r, done("saved REQ-001"), chunk(2))
	noProfile := append([]llm.Message{start[0], w.summary("", plan)}, msgs[len(msgs)-3:]...)
	r4 := ask(t, noProfile) // the profile is not in the conversation: read it again
	if n := len(r4.ToolCalls); n < 2 || !strings.Contains(r4.ToolCalls[n-2].Arguments, "notes/document.md") || !strings.Contains(r4.ToolCalls[n-1].Arguments, "chunk_002") {
		t.Fatalf("profile step: %s %v", names(r4.ToolCalls), r4.ToolCalls)
	}
	results := make([]llm.Message, len(r4.ToolCalls))
	for i := range results {
		results[i] = interrupted()
	}
	cut := w.exchange(noProfile, r4, results...)
	cut = append(cut, w.resumed())
	r5 := ask(t, cut)
	if !strings.Contains(r5.ToolCalls[len(r5.ToolCalls)-1].Arguments, "chunk_002") {
		t.Fatalf("after the cut-off profile step: %s %v", names(r5.ToolCalls), r5.ToolCalls)
	}
}
