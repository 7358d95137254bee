package builtin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"creator/internal/agent"
	"creator/internal/llm"
)

func TestSentences(t *testing.T) {
	text := "--- page 3 ---\n1. Scope\n\nRecords must be kept for ten years, z. B. in the archive. The archive\n--- page 4 ---\nshould be checked every quarter (see Section 5.2.8.). Keys SHALL be rotated:\n• Key A MUST be kept.\n• Key B MAY be dropped.\n41 Die Belege sind aufzubewahren.\nAm 1. Oktober 2019 gilt das.\n"
	var got []string
	for _, s := range sentences(text) {
		if q := cleanQuote(stripLead(s).text); q != "" {
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
	rfc := makeProfile("rfc.txt", "Internet Engineering Task Force (IETF)\nRequest for Comments: 9000\n...\nThe key words \"MUST\", \"MUST NOT\" ... are to be interpreted as described in BCP\n   14 [RFC2119].\nEndpoints MUST do this.")
	if !rfc.UpperOnly || rfc.Identifier != "RFC 9000" || rfc.Language != "English" {
		t.Errorf("rfc profile = %+v", rfc)
	}
	nist := makeProfile("sp.pdf", "NIST Special Publication 800-63B\nThe verifier SHALL do X. The CSP SHALL do Y. It SHOULD do Z. They SHALL NOT. It MUST. Also SHALL.")
	if !nist.UpperOnly || nist.Identifier != "NIST SP 800-63B" {
		t.Errorf("nist profile = %+v", nist)
	}
	gobd := makeProfile("GoBD.pdf", "Grundsätze zur ordnungsmäßigen Führung (GoBD). Die Belege sind aufzubewahren und der Steuerpflichtige muss das nicht tun.")
	if gobd.UpperOnly || gobd.Language != "German" || gobd.Identifier != "GoBD" {
		t.Errorf("gobd profile = %+v", gobd)
	}
	// An identifier broken across lines on the title page stays one line.
	rev := makeProfile("sp171.pdf", "NIST Special Publication 800-171\nRevision 1\nProtecting Controlled Unclassified Information. The system shall limit access.")
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
	p := profile{Document: "p.pdf", Language: "German", Identifier: "GoBD"}
	f, _ := classify("Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren.", false)
	d := buildDraft("Buchungsbelege sind zehn Jahre lang unveränderbar aufzubewahren.", "p.pdf", "chunk_003", "5 Pflichten", f, p)
	if d.Type != "obligation" || d.Category != "compliance" || d.Priority != "high" || len(d.Frameworks) != 1 || d.Frameworks[0] != "GoBD" ||
		!strings.Contains(d.Rationale, "sind … aufzubewahren") || !strings.Contains(d.Rationale, "Section: 5 Pflichten.") {
		t.Errorf("draft = %+v", d)
	}
	long := strings.Repeat("word ", 30) + "must happen."
	if tt := title(long); len([]rune(tt)) > 80 || !strings.HasSuffix(tt, "…") {
		t.Errorf("title = %q", tt)
	}
}

// ask runs one decision on a conversation.
func ask(t *testing.T, msgs []llm.Message) llm.Response {
	t.Helper()
	resp, err := New().Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.ToolDef{{Name: "read_file"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := llm.Validate(append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: resp.ToolCalls})); err != nil && len(resp.ToolCalls) == 0 {
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

// exchange appends an answer with its tool results to a conversation.
// exchange adds the model's answer and the results of its calls.
func exchange(msgs []llm.Message, r llm.Response, results ...string) []llm.Message {
	calls := r.ToolCalls
	for i := range calls {
		calls[i].ID = fmt.Sprintf("c%d_%d", len(msgs), i)
	}
	msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: r.Content, ToolCalls: calls})
	for i, c := range calls {
		msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: results[i]})
	}
	return msgs
}

func TestDecisions(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "Job j. Source documents: input/p.pdf (2.0 KB). Start by reading instructions.md."}}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "read_file" || !strings.Contains(r.ToolCalls[0].Arguments, "instructions.md") {
		t.Fatalf("first step: %s", names(r.ToolCalls))
	}
	msgs = exchange(msgs, r, "     1\t# Instructions\n[1 line, whole file]")
	r = ask(t, msgs)
	if names(r.ToolCalls) != "write_plan" || !strings.Contains(r.ToolCalls[0].Arguments, "Extract the text of p.pdf") {
		t.Fatalf("second step: %s %s", names(r.ToolCalls), r.ToolCalls[0].Arguments)
	}
	msgs = exchange(msgs, r, "plan written with 5 tasks; begin with start_task(1)")
	r = ask(t, msgs)
	if names(r.ToolCalls) != "start_task,complete_task" {
		t.Fatalf("third step: %s", names(r.ToolCalls))
	}
	msgs = exchange(msgs, r, "task 1 in progress", "task 1 completed (1 of 5 done)")
	r = ask(t, msgs)
	if names(r.ToolCalls) != "start_task,extract_document_text" {
		t.Fatalf("extract step: %s", names(r.ToolCalls))
	}
	// The extraction was interrupted by a crash: it is done again.
	msgs = exchange(msgs, r, "task 2 in progress", "error: this call was interrupted when the job stopped")
	r = ask(t, msgs)
	if names(r.ToolCalls) != "extract_document_text" {
		t.Fatalf("after an interrupted call: %s", names(r.ToolCalls))
	}
}

func TestGroupWorkAndRecovery(t *testing.T) {
	plan := "Plan: 4 of 6 tasks completed\n[x] 1. Read instructions.md and look at input/\n[x] 2. Extract the text of p.pdf\n[x] 3. Split p.pdf into chunks\n[x] 4. Profile the documents in notes/document.md\n[ ] 5. Find and save the requirements in chunk_001 to chunk_002\n[ ] 6. Build the output with finalize_output and check it\n"
	// After a summary the plan is in the brief, the profile is not.
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "Job j. Source documents: input/p.pdf (2.0 KB)."},
		{Role: llm.RoleUser, Content: "Summary of the work so far.\n" + plan},
	}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "start_task,read_file,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "notes/document.md") || !strings.Contains(r.ToolCalls[2].Arguments, "chunk_001") {
		t.Fatalf("after a summary: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
	profileNote := "     1\t# Document profile\n     2\t\n     3\t## p.pdf\n     4\t\n     5\t- Language: English\n     6\t- Identifier: -\n     7\t- Convention: ordinary-language\n     8\t- Why: x\n[8 lines, whole file]"
	chunk := "     1\t[chunk_001 | p.pdf | p. 1 | 1 Scope]\n     2\t\n     3\tThe operator must keep records for ten years.\n     4\tThis line says nothing.\n[4 lines, whole file]"
	msgs = exchange(msgs, r, "task 5 in progress", profileNote, chunk)
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
	msgs = exchange(msgs, r, "saved REQ-001", "[cleared: read_file chunks/chunk_002.md]")
	r = ask(t, msgs)
	if names(r.ToolCalls) != "read_file" || !strings.Contains(r.ToolCalls[0].Arguments, "chunk_002") {
		t.Fatalf("after a cleared result: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// A read answered as a repeat points to the last identical read that
// succeeded, not to one cut off by an interruption in between.
func TestRepeatAfterAnInterruptedCall(t *testing.T) {
	plan := "Plan: 4 of 6 tasks completed\n[x] 1. Read instructions.md and look at input/\n[x] 2. Extract the text of p.pdf\n[x] 3. Split p.pdf into chunks\n[x] 4. Profile the documents in notes/document.md\n[>] 5. Find and save the requirements in chunk_001 to chunk_002   ← in progress\n[ ] 6. Build the output with finalize_output and check it\n"
	profileNote := "     1\t# Document profile\n     2\t\n     3\t## p.pdf\n     4\t\n     5\t- Language: English\n     6\t- Identifier: -\n     7\t- Convention: ordinary-language\n     8\t- Why: x\n[8 lines, whole file]"
	chunk := "     1\t[chunk_001 | p.pdf | p. 1 | 1 Scope]\n     2\t\n     3\tThe operator must keep records for ten years.\n[3 lines, whole file]"
	read := func() llm.Response {
		return llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "chunks/chunk_001.md", "limit": 2000})}}
	}
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "Job j. Source documents: input/p.pdf (2.0 KB)."},
		{Role: llm.RoleUser, Content: "Summary of the work so far.\n" + plan},
	}
	msgs = exchange(msgs, llm.Response{ToolCalls: []llm.ToolCall{call("read_file", map[string]any{"path": "notes/document.md"})}}, profileNote)
	msgs = exchange(msgs, read(), chunk)
	msgs = exchange(msgs, read(), agent.InterruptedResult)
	msgs = exchange(msgs, read(), "This call repeats your call in step 2 exactly, and nothing has changed since.")
	r := ask(t, msgs)
	if names(r.ToolCalls) != "save_requirement,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("after a repeat: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// A step that succeeded but would only be repeated — here a profile the
// model cannot read — stops the model at once with the reason.
func TestNoProgressStopsAtOnce(t *testing.T) {
	plan := "Plan: 4 of 6 tasks completed\n[x] 1. Read instructions.md and look at input/\n[x] 2. Extract the text of p.pdf\n[x] 3. Split p.pdf into chunks\n[x] 4. Profile the documents in notes/document.md\n[>] 5. Find and save the requirements in chunk_001 to chunk_002   ← in progress\n[ ] 6. Build the output with finalize_output and check it\n"
	msgs := []llm.Message{
		{Role: llm.RoleUser, Content: "Job j. Source documents: input/p.pdf (2.0 KB)."},
		{Role: llm.RoleUser, Content: "Summary of the work so far.\n" + plan},
	}
	unreadable := "     1\t# Document profile\n     2\t\n     3\t## p.pdf\n     4\t- Identifier: NIST SP 800-171\n     5\tRevision 1\n[5 lines, whole file]"
	chunk := "     1\t[chunk_001 | p.pdf | p. 1 | 1 Scope]\n     2\t\n     3\tThe operator must keep records for ten years.\n[3 lines, whole file]"
	r := ask(t, msgs)
	msgs = exchange(msgs, r, unreadable, chunk)
	_, err := New().Complete(context.Background(), llm.Request{Messages: msgs, Tools: []llm.ToolDef{{Name: "read_file"}}})
	if !errors.Is(err, ErrNoProgress) || !strings.Contains(err.Error(), "notes/document.md") {
		t.Fatalf("err = %v", err)
	}
}

func TestSummary(t *testing.T) {
	// As compaction renders the turns: chunk_041's requirements were saved,
	// chunk_042 was read but its step was cut off.
	rendered := "The conversation so far:\n\ncall read_file {\"limit\":2000,\"path\":\"chunks/chunk_041.md\"}\nassistant: chunk_041: 2 requirement(s). Reading chunk_042.\ncall save_requirement {}\ncall save_requirement {}\ncall read_file {\"limit\":2000,\"path\":\"chunks/chunk_042.md\"}\n"
	resp, err := New().Complete(context.Background(), llm.Request{System: "summarise", Messages: []llm.Message{{Role: llm.RoleUser, Content: rendered}}})
	if err != nil || len(resp.ToolCalls) != 0 || !strings.Contains(resp.Content, "2 requirements were submitted") || !strings.Contains(resp.Content, "Chunks processed up to chunk_041.") {
		t.Fatalf("summary = %q, %v", resp.Content, err)
	}
	// After the summary, the group goes on with chunk_042.
	plan := "[x] 1. Read instructions.md and look at input/\n[>] 2. Find and save the requirements in chunk_041 to chunk_050\n"
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "Job j. Source documents: input/p.pdf (1 KB)."}, {Role: llm.RoleUser, Content: resp.Content + "\n" + plan}}
	r := ask(t, msgs)
	if names(r.ToolCalls) != "read_file,read_file" || !strings.Contains(r.ToolCalls[1].Arguments, "chunk_042") {
		t.Fatalf("after the summary: %s %v", names(r.ToolCalls), r.ToolCalls)
	}
}

// After a kill: saves that never ran are repeated; when their arguments
// were shortened, the chunk is read and analysed again; a chunk that was
// read but whose requirements no step announced is not skipped.
func TestRecoveryAfterAKill(t *testing.T) {
	plan := "Plan: 4 of 6 tasks completed\n[x] 1. Read instructions.md and look at input/\n[x] 2. Extract the text of p.pdf\n[x] 3. Split p.pdf into chunks\n[x] 4. Profile the documents in notes/document.md\n[ ] 5. Find and save the requirements in chunk_001 to chunk_003\n[ ] 6. Build the output with finalize_output and check it\n"
	profileNote := "     1\t# Document profile\n     2\t\n     3\t## p.pdf\n     4\t\n     5\t- Language: English\n     6\t- Identifier: -\n     7\t- Convention: ordinary-language\n     8\t- Why: x\n[8 lines, whole file]"
	chunk := func(n int) string {
		return fmt.Sprintf("     1\t[chunk_%03d | p.pdf | p. 1 | 1 Scope]\n     2\t\n     3\tThe operator must keep record %d for ten years.\n[3 lines, whole file]", n, n)
	}
	interrupted := agent.InterruptedResult
	start := []llm.Message{
		{Role: llm.RoleUser, Content: "Job j. Source documents: input/p.pdf (2.0 KB)."},
		{Role: llm.RoleUser, Content: "Summary.\n" + plan},
	}
	// Profile and chunk_001 read; the next step saves chunk_001 and reads chunk_002.
	r := ask(t, start)
	msgs := exchange(start, r, "task 5 in progress", profileNote, chunk(1))
	r = ask(t, msgs)
	if names(r.ToolCalls) != "save_requirement,read_file" || !strings.HasPrefix(r.Content, "chunk_001: 1 requirement") {
		t.Fatalf("save step: %s %q", names(r.ToolCalls), r.Content)
	}
	save := r.ToolCalls[0]

	// Killed while that step ran: the save is repeated, chunk_002 read.
	killed := exchange(msgs, r, interrupted, interrupted)
	killed = append(killed, llm.Message{Role: llm.RoleUser, Content: "The job was interrupted and has now been resumed."})
	r2 := ask(t, killed)
	var want, got map[string]any
	json.Unmarshal([]byte(save.Arguments), &want)
	json.Unmarshal([]byte(r2.ToolCalls[0].Arguments), &got)
	if names(r2.ToolCalls) != "save_requirement,read_file" || !reflect.DeepEqual(got, want) || !strings.Contains(r2.ToolCalls[1].Arguments, "chunk_002") {
		t.Fatalf("after the kill: %s %v", names(r2.ToolCalls), r2.ToolCalls)
	}
	// Stopped by Ctrl-C after the save was cut off, the rest skipped: the same.
	stopped := exchange(msgs, r, interrupted, "error: not run, because the job was interrupted")
	stopped = append(stopped, llm.Message{Role: llm.RoleUser, Content: "The job was interrupted and has now been resumed."})
	if r := ask(t, stopped); names(r.ToolCalls) != "save_requirement,read_file" {
		t.Fatalf("after Ctrl-C: %s", names(r.ToolCalls))
	}
	skipped := exchange(msgs, r, "error: not run, because the job was interrupted", "error: not run, because the job was interrupted")
	skipped = append(skipped, llm.Message{Role: llm.RoleUser, Content: "The job was interrupted and has now been resumed."})
	if r := ask(t, skipped); names(r.ToolCalls) != "save_requirement,read_file" {
		t.Fatalf("after a save skipped by the stop: %s", names(r.ToolCalls))
	}

	// The same, but the save's quote was shortened by a clearing: chunk_001
	// is read again instead of saving a shortened quote.
	short := r
	short.ToolCalls = append([]llm.ToolCall(nil), r.ToolCalls...)
	short.ToolCalls[0].Arguments = strings.Replace(save.Arguments, `"quote":"The operator must keep record 1 for ten years."`, `"quote":"[shortened: 12 tokens]"`, 1)
	if short.ToolCalls[0].Arguments == save.Arguments {
		t.Fatalf("the test did not shorten the quote: %s", save.Arguments)
	}
	killed = exchange(msgs, short, interrupted, interrupted)
	killed = append(killed, llm.Message{Role: llm.RoleUser, Content: "The job was interrupted and has now been resumed."})
	r3 := ask(t, killed)
	if names(r3.ToolCalls) != "read_file" || !strings.Contains(r3.ToolCalls[0].Arguments, "chunk_001") {
		t.Fatalf("after the kill with a shortened save: %s %v", names(r3.ToolCalls), r3.ToolCalls)
	}

	// chunk_002 read, then the step after it (re-reading the profile and
	// chunk_002) cut off: chunk_002 is read again, not skipped.
	msgs = exchange(msgs, r, "saved REQ-001", chunk(2))
	noProfile := append([]llm.Message{start[0], {Role: llm.RoleUser, Content: "Summary.\n" + plan}}, msgs[len(msgs)-3:]...)
	r4 := ask(t, noProfile) // the profile is not in the conversation: read it again
	if n := len(r4.ToolCalls); n < 2 || !strings.Contains(r4.ToolCalls[n-2].Arguments, "notes/document.md") || !strings.Contains(r4.ToolCalls[n-1].Arguments, "chunk_002") {
		t.Fatalf("profile step: %s %v", names(r4.ToolCalls), r4.ToolCalls)
	}
	results := make([]string, len(r4.ToolCalls))
	for i := range results {
		results[i] = interrupted
	}
	cut := exchange(noProfile, r4, results...)
	cut = append(cut, llm.Message{Role: llm.RoleUser, Content: "The job was interrupted and has now been resumed."})
	r5 := ask(t, cut)
	if !strings.Contains(r5.ToolCalls[len(r5.ToolCalls)-1].Arguments, "chunk_002") {
		t.Fatalf("after the cut-off profile step: %s %v", names(r5.ToolCalls), r5.ToolCalls)
	}
}
