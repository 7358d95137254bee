package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/tokens"
	"creator/workspace"
)

// reqEnv is a job whose paged text input is extracted and chunked.
func reqEnv(t *testing.T) (*workspace.Job, *Registry) {
	t.Helper()
	base := t.TempDir()
	doc := filepath.Join(base, "policy.txt")
	filler := func(topic string) string {
		return strings.Repeat("This paragraph explains the background of "+topic+" in some detail for the reader. ", 8) + "\n\n"
	}
	text := "1. Retention\n\n" + filler("retention") + "Invoices must be kept for ten years.\nBusiness letters shall be kept for six years.\n\f" +
		"2. Deletion\n\n" + filler("deletion") + "Records must not be deleted before the end of their retention period, even if the business rela-\ntionship has ended.\n\f" +
		"3. Review\n\n" + filler("review") + "The archive should be checked every quarter.\n"
	os.WriteFile(doc, []byte(text), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "r", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	docs, err := DocumentFilesOf(job)
	if err != nil {
		t.Fatal(err)
	}
	all := append(WorkspaceTools(job.Files), DocumentTools(docs, tokens.Default())...)
	reg, err := NewRegistry(append(all, RequirementTools(reqstore.Open(job), nil)...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, reg, "chunk_document", `{"path":"input/policy.txt","max_tokens":200}`); err != nil {
		t.Fatal(err)
	}
	return job, reg
}

func saveArgsJSON(quote, chunk string, page int) string {
	return fmt.Sprintf(`{"title":"Keep invoices","text":"The company must keep invoices for ten years.","type":"obligation","category":"compliance","priority":"high","frameworks":["GoBD"],"citations":[{"document":"policy.txt","chunk":%q,"page":%d,"quote":%q}],"confidence":0.9,"rationale":"'must' sets a retention duty"}`,
		chunk, page, quote)
}

func chunkOf(t *testing.T, job *workspace.Job, needle string) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(job.Dir, "chunks", "chunk_*.md"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), needle) {
			return strings.TrimSuffix(filepath.Base(f), ".md")
		}
	}
	t.Fatalf("no chunk holds %q", needle)
	return ""
}

func TestSaveRequirement(t *testing.T) {
	t.Parallel()
	job, reg := reqEnv(t)
	c1 := chunkOf(t, job, "Invoices must be kept")
	c2 := chunkOf(t, job, "must not be deleted")

	out, err := call(t, reg, "save_requirement", saveArgsJSON("Invoices must be kept for ten  years.", c1, 0))
	if err != nil || !strings.HasPrefix(out, "saved REQ-001 (requirements/req_001/final.json): obligation, compliance, high; quote found in "+c1+" on page 1") {
		t.Fatalf("save: %q, %v", out, err)
	}

	// The same requirement again: its id, no duplicate.
	out, err = call(t, reg, "save_requirement", saveArgsJSON("Invoices must be kept for ten years.", c1, 1))
	if err != nil || !strings.HasPrefix(out, "already saved as REQ-001") {
		t.Fatalf("duplicate save: %q, %v", out, err)
	}
	// A quote divided at a line end, cited with a wrong page: found, page corrected.
	out, err = call(t, reg, "save_requirement", strings.Replace(saveArgsJSON("Records must not be deleted before the end of their retention period, even if the business relationship has ended.", c2, 1), `"obligation"`, `"prohibition"`, 1))
	if err != nil || !strings.Contains(out, "saved REQ-002") || !strings.Contains(out, "on page 2") || !strings.Contains(out, "corrected to 2") {
		t.Fatalf("divided word: %q, %v", out, err)
	}

	cases := []struct {
		name, args, want string
	}{
		{"quote not in chunk", saveArgsJSON("Invoices must be kept for twelve years.", c1, 0), "the quote was not found in " + c1 + ". The closest passage there is: «Invoices must be kept for ten years."},
		{"quote in another chunk", saveArgsJSON("The archive should be checked every quarter.", c1, 0), "the quote is in "},
		{"chunk does not exist", saveArgsJSON("Invoices must be kept for ten years.", "chunk_999", 0), `chunk "chunk_999" does not exist; the chunks are chunk_001 to`},
		{"wrong document", strings.Replace(saveArgsJSON("Invoices must be kept for ten years.", c1, 0), `"document":"policy.txt"`, `"document":"other.pdf"`, 1), "is part of policy.txt, not other.pdf"},
		{"invalid type", strings.Replace(saveArgsJSON("x", c1, 0), `"obligation"`, `"duty"`, 1), `invalid arguments for save_requirement: field "type" must be one of obligation, prohibition, permission, recommendation (got "duty")`},
		{"quote with an ellipsis", saveArgsJSON("Invoices must be kept … years.", c1, 0), "the quote leaves words out with an ellipsis, and a quote must be verbatim: cite each part as a separate citation"},
		{"translated quote", saveArgsJSON("Rechnungen sind zehn Jahre lang aufzubewahren.", c1, 0), "the quote was not found in " + c1 + ", and no passage of " + c1 + " resembles it. Copy a sentence from the chunk word for word, in the document's own language"},
		{"missing field", `{"title":"t","text":"x","type":"obligation","category":"compliance","priority":"high","confidence":0.5,"rationale":"r"}`, `missing required field "citations"`},
		{"no citations", strings.Replace(saveArgsJSON("x", c1, 0), `[{"document":"policy.txt","chunk":"`+c1+`","page":0,"quote":"x"}]`, `[]`, 1), "citations are empty"},
		{"long title", strings.Replace(saveArgsJSON("x", c1, 0), `"Keep invoices"`, `"`+strings.Repeat("t", 81)+`"`, 1), "keep it to 80"},
		{"confidence", strings.Replace(saveArgsJSON("x", c1, 0), `0.9`, `1.5`, 1), "confidence must be between 0 and 1"},
	}
	for _, c := range cases {
		if _, err := call(t, reg, "save_requirement", c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(job.Dir, "requirements", "req_*")); len(files) != 2 {
		t.Fatalf("%d requirement folders after refused saves, want 2", len(files))
	}
	def, _ := reg.Get("save_requirement")
	if !strings.Contains(string(def.Schema()), `"enum":["obligation","prohibition","permission","recommendation"]`) {
		t.Errorf("schema lacks the type enumeration: %s", def.Schema())
	}
}

// TestSaveRequirementReadsVariants sends the argument variants models
// produce: each is read as what it unambiguously means, stored in the
// canonical form, and named in the result.
func TestSaveRequirementReadsVariants(t *testing.T) {
	t.Parallel()
	job, reg := reqEnv(t)
	c1 := chunkOf(t, job, "Invoices must be kept")
	c2 := chunkOf(t, job, "Records must not be deleted")
	cases := []struct {
		name  string
		args  string
		notes []string
	}{
		{"document as a path, chunk as a file name, enums in other cases, numbers as strings, frameworks as one string",
			`{"title":"Keep invoices","text":"The company must keep invoices for ten years.","type":"Obligation","category":" COMPLIANCE ","priority":"HIGH",` +
				`"frameworks":"GoBD, GDPR","citations":[{"document":"input/policy.txt","chunk":"` + c1 + `.md","page":"1","quote":"Invoices must be kept for ten years."}],"confidence":"0.9","rationale":"'must'"}`,
			[]string{`read type "Obligation" as "obligation"`, `read category " COMPLIANCE " as "compliance"`, `read priority "HIGH" as "high"`,
				`read frameworks "GoBD, GDPR" as ["GoBD", "GDPR"]`, `read citations[1].page "1" as 1`, `read confidence "0.9" as 0.9`,
				`read chunk "` + c1 + `.md" as "` + c1 + `"`, `read document "input/policy.txt" as "policy.txt"`}},
		{"one citation object instead of a list, null page, chunk as a path, unknown fields",
			`{"title":"Keep letters","text":"The company must keep business letters for six years.","type":"obligation","category":"non-functional","priority":"high",` +
				`"citations":{"document":"policy.txt","chunk":"chunks/` + c1 + `.md","page":null,"quote":"Business letters shall be kept for six years.","section":"1"},"confidence":0.8,"rationale":"'shall'","id":"REQ-9"}`,
			[]string{`ignored unknown field "id"`, `read category "non-functional" as "non_functional"`, `read citations, sent as one object, as a list of one`,
				`ignored unknown field "citations[1].section"`, `read chunk "chunks/` + c1 + `.md" as "` + c1 + `"`}},
		{"chunk by number, document left out, citations as a JSON string, typographic dash",
			`{"title":"Keep records","text":"Records must not be deleted before the end of their retention period.","type":"prohibition","category":"compliance","priority":"high",` +
				`"citations":"[{\"chunk\":\"` + strings.TrimLeft(strings.TrimPrefix(c2, "chunk_"), "0") + `\",\"quote\":\"Records must not be deleted before the end of their retention period, even if the business rela–tionship has ended.\"}]","confidence":1,"rationale":"'must not'"}`,
			[]string{`read citations, sent as a JSON string, as a list`, `read chunk "` + strings.TrimLeft(strings.TrimPrefix(c2, "chunk_"), "0") + `" as "` + c2 + `"`}},
	}
	for i, c := range cases {
		out, err := call(t, reg, "save_requirement", c.args)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.HasPrefix(out, fmt.Sprintf("saved REQ-%03d", i+1)) {
			t.Errorf("%s: %q", c.name, out)
		}
		for _, n := range c.notes {
			if !strings.Contains(out, n) {
				t.Errorf("%s: result lacks %q:\n%s", c.name, n, out)
			}
		}
	}
	var rec requirement.Record
	data, _ := os.ReadFile(filepath.Join(job.Dir, "requirements", "req_001", "final.json"))
	json.Unmarshal(data, &rec)
	if rec.Type != "obligation" || rec.Category != "compliance" || rec.Priority != "high" || rec.Confidence != 0.9 ||
		strings.Join(rec.Frameworks, "|") != "GoBD|GDPR" || rec.Citations[0].Document != "policy.txt" || rec.Citations[0].Chunk != c1 {
		t.Errorf("stored record is not canonical: %+v", rec)
	}
	// A value that is still wrong says what is allowed.
	bad := strings.Replace(saveArgsJSON("Invoices must be kept for ten years.", c1, 0), `"compliance"`, `"legal"`, 1)
	if _, err := call(t, reg, "save_requirement", bad); err == nil || !strings.Contains(err.Error(), `field "category" must be one of functional, non_functional, constraint, compliance (got "legal")`) {
		t.Errorf("wrong category: %v", err)
	}
	bad = strings.Replace(saveArgsJSON("Invoices must be kept for ten years.", c1, 0), `"page":0`, `"page":"first"`, 1)
	if _, err := call(t, reg, "save_requirement", bad); err == nil || !strings.Contains(err.Error(), `field "citations[1].page" must be an integer, not a string (got "first")`) {
		t.Errorf("wrong page: %v", err)
	}
	bad = strings.Replace(saveArgsJSON("Invoices must be kept for ten years.", c1, 0), `"document":"policy.txt"`, `"document":"input/other.pdf"`, 1)
	if _, err := call(t, reg, "save_requirement", bad); err == nil || !strings.Contains(err.Error(), "is part of policy.txt, not input/other.pdf") {
		t.Errorf("wrong document: %v", err)
	}
}

func TestFinalizeOutput(t *testing.T) {
	t.Parallel()
	job, reg := reqEnv(t)
	// Saved out of source order.
	c3 := chunkOf(t, job, "should be checked")
	c1 := chunkOf(t, job, "Invoices must be kept")
	review := strings.NewReplacer(`"obligation"`, `"recommendation"`, `"high"`, `"low"`, `"Keep invoices"`, `"Check archive"`).Replace(saveArgsJSON("The archive should be checked every quarter.", c3, 0))
	for _, a := range []string{review, saveArgsJSON("Invoices must be kept for ten years.", c1, 0)} {
		if _, err := call(t, reg, "save_requirement", a); err != nil {
			t.Fatal(err)
		}
	}
	out, err := call(t, reg, "finalize_output", `{}`)
	if err != nil || !strings.Contains(out, "wrote output/requirements.json with 2 requirements (1 obligation, 1 recommendation), output/summary.md and output/requirements.csv") {
		t.Fatalf("finalize: %q, %v", out, err)
	}
	data, _ := os.ReadFile(filepath.Join(job.Dir, "output", "requirements.json"))
	if err := output.Validate(data); err != nil {
		t.Fatal(err)
	}
	var recs []requirement.Record
	json.Unmarshal(data, &recs)
	if len(recs) != 2 || recs[0].ID != "REQ-002" || recs[1].ID != "REQ-001" {
		t.Fatalf("not in source order: %s", data)
	}
	summary, _ := os.ReadFile(filepath.Join(job.Dir, "output", "summary.md"))
	for _, w := range []string{"2 requirements from policy.txt", "| obligation | 1 |", "| GoBD | 2 |", "| REQ-002 | Keep invoices | obligation | high | 1\\. Retention | policy.txt p. 1 |"} {
		if !strings.Contains(string(summary), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, summary)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(job.Dir, "output", "requirements.csv"))
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "id,title,text,type") {
		t.Fatalf("requirements.csv:\n%s", csv)
	}

	// A hand-edited, broken final.json: problems are reported, no output written.
	os.Remove(filepath.Join(job.Dir, "output", "requirements.json"))
	broken := strings.Replace(string(mustRead(t, job, "requirements/req_002/final.json")), `"compliance"`, `"legal"`, 1)
	broken = strings.Replace(broken, "kept for ten years", "kept for 12 years", 1)
	os.WriteFile(filepath.Join(job.Dir, "requirements", "req_002", "final.json"), []byte(broken), 0o644)
	_, err = call(t, reg, "finalize_output", `{}`)
	if err == nil || !strings.Contains(err.Error(), "requirements/req_002/final.json: field category") {
		t.Fatalf("broken requirement: %v", err)
	}
	if _, err := os.Stat(filepath.Join(job.Dir, "output", "requirements.json")); err == nil {
		t.Fatal("output written despite problems")
	}
	broken = strings.Replace(broken, `"legal"`, `"compliance"`, 1)
	os.WriteFile(filepath.Join(job.Dir, "requirements", "req_002", "final.json"), []byte(broken), 0o644)
	if _, err = call(t, reg, "finalize_output", `{}`); err == nil || !strings.Contains(err.Error(), "REQ-002 citation 1: the quote was not found in") {
		t.Fatalf("edited quote: %v", err)
	}
}

func mustRead(t *testing.T, job *workspace.Job, rel string) []byte {
	data, err := os.ReadFile(filepath.Join(job.Dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The notes on citations read otherwise than given, and the list of
// problems that stops finalize_output, in the model's words.
func TestRequirementWording(t *testing.T) {
	t.Parallel()
	notes := []struct {
		c    reqstore.Correction
		want string
	}{
		{reqstore.Correction{Kind: reqstore.ChunkName, Chunk: "chunk_003", Given: "3", Stored: "chunk_003"}, `read chunk "3" as "chunk_003"`},
		{reqstore.Correction{Kind: reqstore.DocumentName, Chunk: "chunk_003", Given: "input/GoBD.pdf", Stored: "GoBD.pdf"}, `read document "input/GoBD.pdf" as "GoBD.pdf"`},
		{reqstore.Correction{Kind: reqstore.DocumentSource, Chunk: "chunk_003", Given: "GoBD.txt", Stored: "GoBD.pdf"}, `read document "GoBD.txt", the text extracted from GoBD.pdf, as "GoBD.pdf"`},
		{reqstore.Correction{Kind: reqstore.Page, Chunk: "chunk_003", Given: "4", Stored: "5"}, "page 4 of the quote in chunk_003 corrected to 5"},
	}
	for _, n := range notes {
		if got := correction(n.c); got != n.want {
			t.Errorf("correction = %q, want %q", got, n.want)
		}
	}
	var problems []reqstore.Problem
	for i := range 22 {
		problems = append(problems, reqstore.Problem{Kind: reqstore.MisplacedID, File: fmt.Sprintf("requirements/req_%03d/final.json", i+1), ID: "REQ-999", Want: fmt.Sprintf("REQ-%03d", i+1)})
	}
	err := invalidOutput(problems)
	want := "the output was not written; fix these requirements (edit their final.json, or delete the folder and save the requirement again), then call finalize_output again:\n" +
		"- requirements/req_001/final.json has id REQ-999; in this folder it must be REQ-001\n"
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "\n- requirements/req_020/final.json has id REQ-999; in this folder it must be REQ-020\n… and 2 more") {
		t.Errorf("invalidOutput =\n%v", err)
	}
}

// save_requirement keeps the document's id and columns of a requirement,
// and reads the forms models send them in when they mean one thing: a
// list of "name: value" strings or of {name, value} objects, numbers and
// booleans as values, a string of "name: value" parts, a null value. Each
// is named in the result.
func TestSaveRequirementSourceIDAndAttributes(t *testing.T) {
	t.Parallel()
	job, reg := reqEnv(t)
	c1 := chunkOf(t, job, "Invoices must be kept")
	c2 := chunkOf(t, job, "Records must not be deleted")
	c3 := chunkOf(t, job, "should be checked")
	with := func(quote, chunk, text, extra string) string {
		args := strings.Replace(saveArgsJSON(quote, chunk, 0), `"The company must keep invoices for ten years."`, strconv.Quote(text), 1)
		return strings.TrimSuffix(args, "}") + "," + extra + "}"
	}
	cases := []struct {
		name  string
		args  string
		id    string
		attrs map[string]string
		notes []string
	}{
		{"an object of strings", with("Invoices must be kept for ten years.", c1, "Invoices must be kept for ten years.", `"source_id":" V1.2.3 ","attributes":{"level":"2","priority":"High"}`),
			"V1.2.3", map[string]string{"level": "2", "priority": "High"}, nil},
		{"a list of name: value strings with a number",
			with("Business letters shall be kept for six years.", c1, "Business letters must be kept for six years.", `"source_id":"BK-01","attributes":["level: 2","Severity = CAT II"]`),
			"BK-01", map[string]string{"level": "2", "Severity": "CAT II"}, []string{`read attributes, sent as a list, as {"Severity":"CAT II","level":"2"}`}},
		{"numbers and booleans as values, a null, a source id as a number",
			with("Records must not be deleted before the end of their retention period, even if the business relationship has ended.", c2, "Records must not be deleted early.", `"source_id":4.2,"attributes":{"level":2,"automated":true,"owner":null}`),
			"4.2", map[string]string{"level": "2", "automated": "true"}, []string{`read source_id 4.2 as "4.2"`, `read attributes.level 2 as "2"`, `read attributes.automated true as "true"`}},
		{"a list of name/value objects", with("The archive should be checked every quarter.", c3, "The archive should be checked every quarter.", `"attributes":[{"name":"level","value":"1"},{"key":"priority","value":"Low"}]`),
			"", map[string]string{"level": "1", "priority": "Low"}, []string{`read attributes, sent as a list, as {"level":"1","priority":"Low"}`}},
	}
	for i, c := range cases {
		out, err := call(t, reg, "save_requirement", c.args)
		if err != nil || !strings.HasPrefix(out, fmt.Sprintf("saved REQ-%03d", i+1)) {
			t.Fatalf("%s: %q, %v", c.name, out, err)
		}
		for _, n := range c.notes {
			if !strings.Contains(out, n) {
				t.Errorf("%s: result lacks %q:\n%s", c.name, n, out)
			}
		}
		var rec requirement.Record
		data, _ := os.ReadFile(filepath.Join(job.Dir, "requirements", fmt.Sprintf("req_%03d", i+1), "final.json"))
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.SourceID != c.id || !reflect.DeepEqual(rec.Attributes, c.attrs) {
			t.Errorf("%s: stored source_id %q, attributes %v; want %q, %v", c.name, rec.SourceID, rec.Attributes, c.id, c.attrs)
		}
	}

	// A string of name: value parts, read the same way.
	out, err := call(t, reg, "save_requirement", with("Invoices must be kept for ten years.", c1, "Invoices must be kept for a decade.", `"attributes":"level: 3; priority: High, urgent"`))
	if err != nil || !strings.Contains(out, `read attributes "level: 3; priority: High, urgent" as {"level":"3","priority":"High, urgent"}`) {
		t.Errorf("attributes as one string: %q, %v", out, err)
	}

	// What cannot be read as names and values says what the field allows.
	for _, c := range []struct{ extra, want string }{
		{`"attributes":["level 2"]`, `field "attributes" must be an object of names and values, e.g. {"level": "2"}, not an array`},
		{`"attributes":"two"`, `field "attributes" must be an object of names and values, e.g. {"level": "2"}, not a string (got "two")`},
		{`"attributes":{"levels":["1","2"]}`, `field "attributes.levels" must be a string, not an array`},
		{`"attributes":["level: 1","level: 2"]`, `field "attributes" must be an object of names and values`},
		{`"source_id":"` + strings.Repeat("9", 101) + `"`, "source_id is 101 characters long; keep it to 100"},
	} {
		if _, err := call(t, reg, "save_requirement", with("Invoices must be kept for ten years.", c1, "Invoices must be kept, really.", c.extra)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.extra, err, c.want)
		}
	}
	def, _ := reg.Get("save_requirement")
	if s := string(def.Schema()); !strings.Contains(s, `"source_id":{"type":"string"`) || !strings.Contains(s, `"attributes":{"type":"object"`) || !strings.Contains(s, `"additionalProperties":{"type":"string"}`) {
		t.Errorf("schema lacks source_id or attributes: %s", s)
	}
}
