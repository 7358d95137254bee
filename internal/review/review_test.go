package review

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"creator/internal/document"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/workspace"
)

// The chunks of policy.pdf.
var testChunks = []struct {
	first, last int
	heading     string
	text        string
}{
	{1, 1, "1 Retention", "1 Retention\n\nInvoices must be kept for ten years.\nBusiness letters shall be kept for six years.\n"},
	{2, 3, "2 Deletion", "2 Deletion\n\nRecords must not be deleted before the end of their retention period.\n--- page 3 ---\n3 Review\n\nThe archive should be checked every quarter.\n"},
}

var testQuotes = []struct{ chunk, quote, typ string }{
	{"chunk_001", "Invoices must be kept for ten years.", "obligation"},
	{"chunk_001", "Business letters shall be kept for six years.", "obligation"},
	{"chunk_002", "Records must not be deleted before the end of their retention period.", "prohibition"},
	{"chunk_002", "The archive should be checked every quarter.", "recommendation"},
}

var testNow = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

// newJob is a job with two chunks and four saved requirements; withOutput
// also finalizes it.
func newJob(t *testing.T, withOutput bool) *workspace.Job {
	t.Helper()
	base := t.TempDir()
	doc := filepath.Join(base, "policy.pdf")
	os.WriteFile(doc, []byte("%PDF-1.4\n"), 0o644)
	job, err := workspace.Create(filepath.Join(base, "ws"), workspace.CreateOptions{ID: "r", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	var man document.Manifest
	for i, c := range testChunks {
		id := fmt.Sprintf("chunk_%03d", i+1)
		mc := document.ManifestChunk{ID: id, File: "chunks/" + id + ".md", Document: "policy.pdf", Source: "input/policy.txt",
			Heading: c.heading, FirstPage: c.first, LastPage: c.last}
		if i == 1 {
			mc.Sections = []string{"3 Review"}
		}
		if _, err := job.WriteFile(mc.File, []byte(document.ChunkFile(mc, c.text))); err != nil {
			t.Fatal(err)
		}
		man.Chunks = append(man.Chunks, mc)
	}
	data, _ := requirement.Marshal(man)
	if err := job.WriteInternal(document.ManifestFile, data); err != nil {
		t.Fatal(err)
	}
	store := reqstore.Open(job)
	for i, q := range testQuotes {
		rec := requirement.Record{Title: strings.TrimSuffix(q.quote, "."), Text: q.quote, Type: q.typ, Category: "compliance",
			Priority: "high", Frameworks: []string{"GoBD"}, Confidence: 0.9, Rationale: "a modal verb sets it",
			Citations: []requirement.Citation{{Document: "policy.pdf", Chunk: q.chunk, Quote: q.quote}}}
		if i == len(testQuotes)-1 { // the document's id and columns of REQ-004
			rec.SourceID, rec.Attributes = "RV-4", map[string]string{"frequency": "quarterly"}
		}
		_, err := store.Save(rec)
		if err != nil {
			t.Fatal(err)
		}
	}
	if withOutput {
		if _, err := store.Finalize("", nil); err != nil {
			t.Fatal(err)
		}
	}
	return job
}

func newService(job *workspace.Job) *Service {
	return New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: func() time.Time { return testNow }, Reviewer: "alice"})
}

// server serves the review of a new job with output.
func server(t *testing.T) (*workspace.Job, *httptest.Server) {
	t.Helper()
	job := newJob(t, true)
	srv := httptest.NewServer(Handler(newService(job), HandlerOptions{}))
	t.Cleanup(srv.Close)
	return job, srv
}

func post(t *testing.T, srv *httptest.Server, id, body string) (int, map[string]any) {
	t.Helper()
	res, err := http.Post(srv.URL+"/api/requirements/"+id+"/review", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, res)
}

func get(t *testing.T, srv *httptest.Server, path string) (int, map[string]any) {
	t.Helper()
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, res)
}

func decode(t *testing.T, res *http.Response) (int, map[string]any) {
	t.Helper()
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	var v map[string]any
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, v
}

func saved(t *testing.T, job *workspace.Job, id string) requirement.Record {
	t.Helper()
	rec, err := reqstore.Open(job).Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func outputRecords(t testing.TB, job *workspace.Job) []requirement.Record {
	t.Helper()
	data, err := job.ReadInternal(output.RequirementsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := output.Validate(data); err != nil {
		t.Fatal(err)
	}
	var recs []requirement.Record
	json.Unmarshal(data, &recs)
	return recs
}

// folderHash fingerprints every file of the job folder but the lock.
func folderHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, "lock") {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		data, _ := os.ReadFile(n)
		fmt.Fprintf(h, "%s\x00%x\x00", n, sha256.Sum256(data))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestListAndDetail(t *testing.T) {
	t.Parallel()
	_, srv := server(t)
	status, l := get(t, srv, "/api/requirements")
	if status != 200 || l["job"] != "r" || l["from"] != "output" {
		t.Fatalf("%d %v", status, l)
	}
	reqs := l["requirements"].([]any)
	if len(reqs) != 4 {
		t.Fatalf("%d requirements", len(reqs))
	}
	for _, r := range reqs {
		if r.(map[string]any)["review_status"] != "pending" {
			t.Errorf("%v", r)
		}
	}
	if p := l["progress"].(map[string]any); p["total"] != 4.0 || p["reviewed"] != 0.0 || p["pending"] != 4.0 {
		t.Errorf("progress %v", p)
	}

	// REQ-004 quotes the second chunk after a heading that starts inside it.
	status, d := get(t, srv, "/api/requirements/REQ-004")
	if status != 200 {
		t.Fatalf("%d %v", status, d)
	}
	src := d["sources"].([]any)[0].(map[string]any)
	body := document.ChunkBody(document.ChunkFile(document.ManifestChunk{ID: "chunk_002"}, testChunks[1].text))
	if got := src["before"].(string) + src["quote"].(string) + src["after"].(string); got != body {
		t.Errorf("before+quote+after = %q, want the chunk %q", got, body)
	}
	if src["quote"] != "The archive should be checked every quarter." || src["page"] != 3.0 || src["first_page"] != 2.0 {
		t.Errorf("source %v", src)
	}
	if d["source_id"] != "RV-4" || fmt.Sprint(d["attributes"]) != "map[frequency:quarterly]" || fmt.Sprint(reqs[3].(map[string]any)["attributes"]) != "map[frequency:quarterly]" {
		t.Errorf("REQ-004's source_id %v, attributes %v", d["source_id"], d["attributes"])
	}
	if _, ok := reqs[0].(map[string]any)["source_id"]; ok {
		t.Errorf("REQ-001 has a source_id: %v", reqs[0])
	}
	if sec, _ := json.Marshal(src["section"]); string(sec) != `["3 Review"]` {
		t.Errorf("section %s, want the heading the quote stands under", sec)
	}
	if status, e := get(t, srv, "/api/requirements/REQ-099"); status != 404 || !strings.Contains(e["error"].(string), "REQ-099") {
		t.Errorf("unknown id: %d %v", status, e)
	}
	if status, e := get(t, srv, "/api/nothing"); status != 404 || e["error"] == "" {
		t.Errorf("unknown API: %d %v", status, e)
	}
}

func TestDecisionsAreKeptInTheJob(t *testing.T) {
	t.Parallel()
	job, srv := server(t)

	status, res := post(t, srv, "REQ-001", `{"decision": "accepted"}`)
	if status != 200 || res["requirement"].(map[string]any)["review_status"] != "accepted" {
		t.Fatalf("%d %v", status, res)
	}
	status, res = post(t, srv, "REQ-002", `{"decision": "rejected", "note": "repeats a rule of REQ-001's section"}`)
	if status != 200 {
		t.Fatalf("%d %v", status, res)
	}
	status, res = post(t, srv, "REQ-003", `{"decision": "edited", "note": "sharper", "changes": {"title": "Keep records to the end", "priority": "medium"}}`)
	if status != 200 {
		t.Fatalf("%d %v", status, res)
	}
	if p := res["progress"].(map[string]any); p["reviewed"] != 3.0 || p["accepted"] != 1.0 || p["rejected"] != 1.0 || p["edited"] != 1.0 || p["pending"] != 1.0 {
		t.Errorf("progress %v", p)
	}

	// The records.
	r1, r2, r3 := saved(t, job, "REQ-001"), saved(t, job, "REQ-002"), saved(t, job, "REQ-003")
	want1 := requirement.Review{Status: "accepted", By: "alice", At: "2026-11-23T10:00:00Z"}
	if r1.Review == nil || fmt.Sprint(*r1.Review) != fmt.Sprint(want1) {
		t.Errorf("REQ-001 review %+v", r1.Review)
	}
	if r2.Review == nil || r2.Review.Status != "rejected" || r2.Review.Note != "repeats a rule of REQ-001's section" {
		t.Errorf("REQ-002 review %+v", r2.Review)
	}
	if r3.Title != "Keep records to the end" || r3.Priority != "medium" || r3.Review.Status != "edited" ||
		r3.Review.Changes["title"] != (requirement.Change{From: "Records must not be deleted before the end of their retention period", To: "Keep records to the end"}) ||
		r3.Review.Changes["priority"] != (requirement.Change{From: "high", To: "medium"}) || len(r3.Review.Changes) != 2 {
		t.Errorf("REQ-003 %+v %+v", r3, r3.Review)
	}

	// validation.md, for people.
	v2, _ := job.ReadInternal("requirements/req_002/validation.md")
	if !strings.Contains(string(v2), "- Decision: rejected\n- Reason: repeats a rule of REQ-001's section\n- Reviewed: 2026-11-23T10:00:00Z by alice") {
		t.Errorf("req_002/validation.md:\n%s", v2)
	}
	v3, _ := job.ReadInternal("requirements/req_003/validation.md")
	if !strings.Contains(string(v3), "| priority | high | medium |") || !strings.Contains(string(v3), "- Note: sharper") {
		t.Errorf("req_003/validation.md:\n%s", v3)
	}
	if _, err := job.ReadInternal("requirements/req_004/validation.md"); err == nil {
		t.Error("validation.md written for a requirement not reviewed")
	}

	// The output files, in their order, with the decisions.
	recs := outputRecords(t, job)
	var statuses []string
	for _, r := range recs {
		statuses = append(statuses, r.ID+"="+r.ReviewStatus())
	}
	if strings.Join(statuses, " ") != "REQ-001=accepted REQ-002=rejected REQ-003=edited REQ-004=pending" || recs[2].Title != "Keep records to the end" {
		t.Errorf("output: %v, %q", statuses, recs[2].Title)
	}
	csv, _ := job.ReadInternal(output.CSVFile)
	if !strings.Contains(string(csv), ",review,review_note,source_id,attributes\n") || !strings.Contains(string(csv), ",rejected,repeats a rule of REQ-001's section,,{}\n") ||
		!strings.Contains(string(csv), `,pending,,RV-4,"{""frequency"":""quarterly""}"`) {
		t.Errorf("requirements.csv:\n%s", csv)
	}
	summary, _ := job.ReadInternal(output.SummaryFile)
	if !strings.Contains(string(summary), "3 of 4 reviewed: 1 accepted, 1 edited, 1 rejected.") || !strings.Contains(string(summary), "| Keep records to the end |") {
		t.Errorf("summary.md:\n%s", summary)
	}

	// A reload shows the decisions.
	_, l := get(t, srv, "/api/requirements")
	if p := l["progress"].(map[string]any); p["reviewed"] != 3.0 {
		t.Errorf("after reload: %v", p)
	}
}

// Decisions and values are read as people write them.
func TestDecisionsAsPeopleWriteThem(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, decision, category string }{
		{`{"decision": "Accept"}`, "accepted", ""},
		{`{"decision": " REJECTED ", "note": "no"}`, "rejected", ""},
		{`{"decision": "edit", "changes": {"category": "Non-Functional", "priority": "Low"}}`, "edited", "non_functional"},
	} {
		d, err := ParseDecision(strings.NewReader(c.body))
		if err != nil || d.Decision != c.decision || d.Changes["category"] != c.category {
			t.Errorf("%s: %+v %v", c.body, d, err)
		}
	}
}

func TestEditsKeepTheExtractedValues(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	const extracted = "Invoices must be kept for ten years"
	steps := []struct {
		body       string
		wantStatus string
		wantTitle  string
		changes    int
	}{
		{`{"decision": "edited", "changes": {"title": "Keep invoices"}}`, "edited", "Keep invoices", 1},
		{`{"decision": "edited", "changes": {"title": "Keep invoices 10 years", "type": "prohibition"}}`, "edited", "Keep invoices 10 years", 2},
		// A later acceptance keeps the edits.
		{`{"decision": "accepted", "note": "fine now"}`, "accepted", "Keep invoices 10 years", 2},
		// Back to the extracted values: nothing is left changed.
		{`{"decision": "edited", "changes": {"title": "` + extracted + `", "type": "obligation"}}`, "accepted", extracted, 0},
	}
	for i, s := range steps {
		if status, res := post(t, srv, "REQ-001", s.body); status != 200 {
			t.Fatalf("step %d: %d %v", i+1, status, res)
		}
		r := saved(t, job, "REQ-001")
		if r.Review.Status != s.wantStatus || r.Title != s.wantTitle || len(r.Review.Changes) != s.changes {
			t.Errorf("step %d: %s %q %v", i+1, r.Review.Status, r.Title, r.Review.Changes)
		}
		if c, ok := r.Review.Changes["title"]; ok && c.From != extracted {
			t.Errorf("step %d: title was %q, want the extracted %q", i+1, c.From, extracted)
		}
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	cases := []struct {
		name, id, contentType, body, want string
		status                            int
	}{
		{"no content type", "REQ-001", "text/plain", `{"decision": "accepted"}`, "Content-Type: application/json", 400},
		{"empty", "REQ-001", "application/json", ``, "the request body is empty", 400},
		{"not JSON", "REQ-001", "application/json", `accept`, "not a decision", 400},
		{"array", "REQ-001", "application/json", `["accepted"]`, "a JSON object is expected", 400},
		{"two values", "REQ-001", "application/json", `{"decision": "accepted"} {}`, "more than one JSON value", 400},
		{"unknown field", "REQ-001", "application/json", `{"decision": "accepted", "reason": "x"}`, `unknown field "reason"`, 400},
		{"no decision", "REQ-001", "application/json", `{"note": "x"}`, `"decision" is missing`, 400},
		{"decision not a string", "REQ-001", "application/json", `{"decision": 1}`, `"decision" has the wrong type`, 400},
		{"unknown decision", "REQ-001", "application/json", `{"decision": "fine"}`, `unknown decision "fine": use one of accepted, rejected, edited`, 400},
		{"rejection without reason", "REQ-001", "application/json", `{"decision": "rejected", "note": "  "}`, "needs its reason", 400},
		{"changes on accept", "REQ-001", "application/json", `{"decision": "accepted", "changes": {"title": "x"}}`, `"changes" are for the decision "edited"`, 400},
		{"edit without changes", "REQ-001", "application/json", `{"decision": "edited"}`, `an edit needs "changes"`, 400},
		{"edit of the quote", "REQ-001", "application/json", `{"decision": "edited", "changes": {"quote": "Invoices must be kept."}}`, "citations cannot be edited", 400},
		{"edit of the id", "REQ-001", "application/json", `{"decision": "edited", "changes": {"id": "REQ-009"}}`, `"id" cannot be edited`, 400},
		{"bad type", "REQ-001", "application/json", `{"decision": "edited", "changes": {"type": "must"}}`, `changes.type is "must": use one of obligation`, 400},
		{"long title", "REQ-001", "application/json", `{"decision": "edited", "changes": {"title": "` + strings.Repeat("x", 81) + `"}}`, "81 characters long", 400},
		{"empty text", "REQ-001", "application/json", `{"decision": "edited", "changes": {"text": " "}}`, "changes.text is empty", 400},
		{"change not a string", "REQ-001", "application/json", `{"decision": "edited", "changes": {"priority": 1}}`, "changes.priority must be a string", 400},
		{"change to the same", "REQ-001", "application/json", `{"decision": "edited", "changes": {"priority": "high"}}`, "the changes change nothing", 400},
		{"unknown id", "REQ-077", "application/json", `{"decision": "accepted"}`, "REQ-077", 404},
		{"not an id", "chunk_001", "application/json", `{"decision": "accepted"}`, "chunk_001", 404},
	}
	before := folderHash(t, job.Dir)
	for _, c := range cases {
		res, err := http.Post(srv.URL+"/api/requirements/"+c.id+"/review", c.contentType, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		status, v := decode(t, res)
		if status != c.status || !strings.Contains(fmt.Sprint(v["error"]), c.want) {
			t.Errorf("%s: %d %v, want %d %q", c.name, status, v["error"], c.status, c.want)
		}
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a refused request changed the job folder")
	}
	res, err := http.Get(srv.URL + "/api/requirements/REQ-001/review")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET of the review: %d", res.StatusCode)
	}
}

// A quote changed in final.json by hand must still stand verbatim in its
// chunk: a decision on it is refused, by the check of save_requirement.
func TestHandChangedQuoteIsChecked(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	file := "requirements/req_001/final.json"
	rec := saved(t, job, "REQ-001")
	rec.Citations[0].Quote = "Invoices must be kept for 20 years."
	changed, _ := requirement.Marshal(rec)
	if _, err := job.WriteFile(file, changed); err != nil {
		t.Fatal(err)
	}
	status, res := post(t, srv, "REQ-001", `{"decision": "accepted"}`)
	if status != 400 || !strings.Contains(res["error"].(string), "the quote was not found in chunk_001") {
		t.Fatalf("%d %v", status, res)
	}
	if now, _ := job.ReadInternal(file); !bytes.Equal(now, changed) {
		t.Error("the refused decision changed final.json")
	}
}

func TestGuardRefusesOtherHostsAndOrigins(t *testing.T) {
	t.Parallel()
	_, srv := server(t)
	req, _ := http.NewRequest("GET", srv.URL+"/api/requirements", nil)
	req.Host = "attacker.example:80"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if status, v := decode(t, res); status != 403 || !strings.Contains(v["error"].(string), "attacker.example") {
		t.Errorf("other host: %d %v", status, v)
	}
	req, _ = http.NewRequest("POST", srv.URL+"/api/requirements/REQ-001/review", strings.NewReader(`{"decision":"accepted"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://attacker.example")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := decode(t, res); status != 403 {
		t.Errorf("other origin: %d", status)
	}
	for _, h := range []string{"localhost:8080", "127.0.0.1", "[::1]:9000", "127.1.2.3:80"} {
		if !LoopbackHost(h) {
			t.Errorf("%s is loopback", h)
		}
	}
	for _, h := range []string{"example.com", "10.0.0.1:80", "localhost.example.com", ""} {
		if LoopbackHost(h) {
			t.Errorf("%s is not loopback", h)
		}
	}
}

func TestPageIsServed(t *testing.T) {
	t.Parallel()
	_, srv := server(t)
	for path, want := range map[string]string{"/": "<title>creator review</title>", "/assets/app.js": "/api/requirements", "/assets/app.css": "mark"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("%s: %d, no %q", path, res.StatusCode, want)
		}
		if !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("%s: no Content-Security-Policy", path)
		}
	}
}

// A decision's record is its commit point: when the files after it were
// not written (the review was killed), Sync writes them.
func TestSyncRebuildsWhatAKillLeftUndone(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	// The agent's own notes in validation.md are kept.
	job.WriteFile("requirements/req_002/validation.md", []byte("Checked against the source: fine.\n"))
	store := reqstore.Open(job)
	_, err := store.Amend("REQ-002", func(r *requirement.Record) error {
		r.Review = &requirement.Review{Status: "rejected", Note: "not a duty", At: "2026-11-23T09:00:00Z"}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if recs := outputRecords(t, job); recs[1].Review != nil {
		t.Fatal("the output changed before Sync")
	}
	// Readers of the output see the decision already.
	if recs := store.WithReviews(outputRecords(t, job)); recs[1].ReviewStatus() != "rejected" {
		t.Errorf("WithReviews: %s", recs[1].ReviewStatus())
	}
	if err := newService(job).Sync(); err != nil {
		t.Fatal(err)
	}
	if recs := outputRecords(t, job); recs[1].ReviewStatus() != "rejected" {
		t.Errorf("after Sync: %s", recs[1].ReviewStatus())
	}
	v, _ := job.ReadInternal("requirements/req_002/validation.md")
	if !strings.Contains(string(v), "- Reason: not a duty") || !strings.HasSuffix(string(v), "Checked against the source: fine.\n") {
		t.Errorf("validation.md:\n%s", v)
	}
	// Sync again changes nothing; a second decision replaces the review
	// block and keeps the notes.
	before := folderHash(t, job.Dir)
	if err := newService(job).Sync(); err != nil {
		t.Fatal(err)
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a second Sync changed files")
	}
	if _, _, err := newService(job).Decide("REQ-002", Decision{Decision: "accepted"}); err != nil {
		t.Fatal(err)
	}
	v, _ = job.ReadInternal("requirements/req_002/validation.md")
	if strings.Count(string(v), blockStart) != 1 || !strings.Contains(string(v), "- Decision: accepted") || strings.Contains(string(v), "not a duty") ||
		!strings.HasSuffix(string(v), "Checked against the source: fine.\n") {
		t.Errorf("validation.md after a second decision:\n%s", v)
	}
}

// Before the job has an output, the requirements saved so far are
// reviewed, and no output is written.
func TestReviewBeforeOutput(t *testing.T) {
	t.Parallel()
	job := newJob(t, false)
	svc := newService(job)
	l, err := svc.List()
	if err != nil || l.From != "saved" || len(l.Requirements) != 4 {
		t.Fatalf("%v %s %d", err, l.From, len(l.Requirements))
	}
	if _, _, err := svc.Decide("REQ-004", Decision{Decision: "rejected", Note: "advice only"}); err != nil {
		t.Fatal(err)
	}
	if _, err := job.ReadInternal(output.RequirementsFile); err == nil {
		t.Error("a decision wrote an output the job did not have")
	}
	if r := saved(t, job, "REQ-004"); r.ReviewStatus() != "rejected" {
		t.Errorf("REQ-004: %s", r.ReviewStatus())
	}
}

// Decisions sent at once are each kept.
func TestConcurrentDecisions(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	var wg sync.WaitGroup
	for i := 1; i <= 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"decision": "rejected", "note": "reason %d"}`, i)
			res, err := http.Post(fmt.Sprintf("%s/api/requirements/REQ-%03d/review", srv.URL, i), "application/json", strings.NewReader(body))
			if err == nil {
				res.Body.Close()
			}
		}()
	}
	wg.Wait()
	for i, r := range outputRecords(t, job) {
		if r.Review == nil || r.Review.Note != fmt.Sprintf("reason %d", i+1) {
			t.Errorf("%s: %+v", r.ID, r.Review)
		}
	}
}

// validation.md shows a reviewer's text as written: HTML and Markdown in a
// note or an edit are escaped, and a note holding the block's end marker
// does not cut the block short, so the next decision replaces it whole.
func TestValidationShowsReviewersTextAsWritten(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	svc := newService(job)
	note := "<script>alert(1)</script> " + blockEnd + " | x |"
	if _, _, err := svc.Decide("REQ-002", Decision{Decision: "rejected", Note: note}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Decide("REQ-002", Decision{Decision: "edited", Changes: map[string]string{"title": "<b>bold</b> title"}}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Sync(); err != nil {
		t.Fatal(err)
	}
	v, _ := job.ReadInternal("requirements/req_002/validation.md")
	text := string(v)
	if strings.Contains(text, "<script>") || strings.Contains(text, "<b>") {
		t.Errorf("raw HTML in validation.md:\n%s", text)
	}
	if n := strings.Count(text, blockEnd); n != 1 {
		t.Errorf("%d end markers, want 1:\n%s", n, text)
	}
	if !strings.Contains(text, "&lt;b&gt;bold&lt;/b&gt; title") {
		t.Errorf("the edited title is not shown:\n%s", text)
	}
}
