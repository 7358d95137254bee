package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"creator/internal/jsonl"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/internal/reviewlog"
	"creator/workspace"
)

// call sends a request with a JSON body (none when body is "") and the
// headers given as name, value pairs.
func call(t *testing.T, srv *httptest.Server, method, path, body string, headers ...string) (int, http.Header, any) {
	t.Helper()
	var req *http.Request
	if body == "" {
		req, _ = http.NewRequest(method, srv.URL+path, nil)
	} else {
		req, _ = http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v any
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return res.StatusCode, res.Header, v
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func logOf(t *testing.T, job *workspace.Job) []reviewlog.Entry {
	t.Helper()
	data, err := job.ReadInternal(reviewlog.DecisionsFile)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := jsonl.Parse[reviewlog.Entry](reviewlog.DecisionsFile, data)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func serve(t *testing.T, svc *Service, opts HandlerOptions) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(Handler(svc, opts))
	t.Cleanup(srv.Close)
	return srv
}

// A change names the version it was taken on, in its body or If-Match;
// a change on an old version is refused with the requirement as it is.
func TestVersionsRefuseOverwrites(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	_, _, l := call(t, srv, "GET", "/api/requirements", "")
	for _, r := range obj(l)["requirements"].([]any) {
		if obj(r)["version"] != 0.0 {
			t.Errorf("version before any change: %v", obj(r)["version"])
		}
	}
	status, h, d := call(t, srv, "GET", "/api/requirements/REQ-001", "")
	if status != 200 || h.Get("ETag") != `"0"` || obj(d)["version"] != 0.0 {
		t.Fatalf("%d ETag %q %v", status, h.Get("ETag"), obj(d)["version"])
	}
	// Two reviewers open REQ-001 at version 0; the first decides.
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted", "version": 0}`); status != 200 || obj(obj(v)["requirement"])["version"] != 1.0 {
		t.Fatalf("first: %d %v", status, v)
	}
	before := folderHash(t, job.Dir)
	status, h, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "rejected", "note": "no", "version": 0}`)
	if status != 409 || !strings.Contains(obj(v)["error"].(string), "version 1") || obj(obj(v)["requirement"])["version"] != 1.0 ||
		obj(obj(v)["requirement"])["review_status"] != "accepted" || h.Get("ETag") != `"1"` {
		t.Errorf("second on version 0: %d %v", status, v)
	}
	status, _, v = call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "rejected", "note": "no"}`, "If-Match", `"0"`)
	if status != 409 {
		t.Errorf("If-Match 0: %d %v", status, v)
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted"}`, "If-Match", "x"); status != 400 {
		t.Errorf("If-Match x: %d %v", status, v)
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a refused change changed the job folder")
	}
	if status, h, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "rejected", "note": "no"}`, "If-Match", `"1"`); status != 200 || obj(obj(v)["requirement"])["version"] != 2.0 || h.Get("ETag") != `"2"` {
		t.Errorf("If-Match 1: %d %v", status, v)
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "rejected", "note": "no"}`, "If-Match", "*"); status != 200 || obj(obj(v)["requirement"])["version"] != 3.0 {
		t.Errorf("If-Match *: %d %v", status, v)
	}
	// Without a version a change goes through, as scripts send it.
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted"}`); status != 200 || obj(obj(v)["requirement"])["version"] != 4.0 {
		t.Errorf("without a version: %d %v", status, v)
	}
	if _, h, _ := call(t, srv, "GET", "/api/requirements/REQ-001", ""); h.Get("ETag") != `"4"` {
		t.Errorf("ETag after four changes %q", h.Get("ETag"))
	}
}

// A change on a version the requirement never had (newer than its own)
// says so, rather than that the requirement changed since.
func TestVersionNeverGiven(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted"}`); status != 200 {
		t.Fatalf("first: %d %v", status, v)
	}
	before := folderHash(t, job.Dir)
	const want = "REQ-001 is at version 1 (accepted); version 5 was never given: reload it and decide again"
	for _, c := range []struct{ body, ifMatch string }{
		{`{"decision": "rejected", "note": "no", "version": 5}`, ""},
		{`{"decision": "rejected", "note": "no"}`, `"5"`},
	} {
		status, h, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", c.body, "If-Match", c.ifMatch)
		if status != 409 || obj(v)["error"] != want || obj(obj(v)["requirement"])["version"] != 1.0 || h.Get("ETag") != `"1"` {
			t.Errorf("%s If-Match %s: %d %v; want 409 %q", c.body, c.ifMatch, status, v, want)
		}
	}
	status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/undo", `{"version": 5}`)
	if status != 409 || obj(v)["error"] != want {
		t.Errorf("undo on version 5: %d %v", status, v)
	}
	_, _, v = call(t, srv, "POST", "/api/review/bulk", `{"ids": ["REQ-001"], "decision": "accepted", "versions": {"REQ-001": 5}}`)
	if results, _ := obj(v)["results"].([]any); len(results) != 1 || obj(results[0])["error"] != want {
		t.Errorf("bulk on version 5: %v", v)
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a refused change changed the job folder")
	}
}

// Every change is a line of the log; undo takes changes back one by one,
// to the extracted requirement, and is logged itself.
func TestHistoryAndUndo(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	const extracted = "Invoices must be kept for ten years"
	steps := []string{
		`{"decision": "accepted", "note": "fine", "reviewer": "bob"}`,
		`{"decision": "edited", "note": "shorter", "changes": {"title": "Keep invoices", "priority": "low"}}`,
		`{"decision": "rejected", "note": "repeats REQ-002"}`,
	}
	for _, body := range steps {
		if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", body); status != 200 {
			t.Fatalf("%s: %d %v", body, status, v)
		}
	}
	status, _, h := call(t, srv, "GET", "/api/requirements/REQ-001/history", "")
	entries := h.([]any)
	if status != 200 || len(entries) != 3 {
		t.Fatalf("%d %v", status, h)
	}
	e1, e2 := obj(entries[0]), obj(entries[1])
	if e1["seq"] != 1.0 || e1["reviewer"] != "bob" || e1["action"] != "decision" || e1["from"] != "pending" || e1["to"] != "accepted" ||
		e1["note"] != "fine" || e1["version"] != 1.0 || e1["time"] != "2026-11-23T10:00:00Z" || e1["requirement"] != "REQ-001" {
		t.Errorf("first entry %v", e1)
	}
	if c := obj(obj(e2["changes"])["title"]); e2["reviewer"] != "alice" || c["old"] != extracted || c["new"] != "Keep invoices" || len(obj(e2["changes"])) != 2 {
		t.Errorf("second entry %v", e2)
	}

	// Undo, step by step, back to the extracted requirement.
	wants := []struct{ status, title, note string }{
		{"edited", "Keep invoices", "shorter"},
		{"accepted", extracted, "fine"},
		{"pending", extracted, ""},
	}
	for i, w := range wants {
		status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/undo", `{"reviewer": "carol"}`)
		r := obj(obj(v)["requirement"])
		if status != 200 || r["review_status"] != w.status || r["title"] != w.title || r["version"] != float64(4+i) || obj(obj(v)["progress"]) == nil {
			t.Fatalf("undo %d: %d %v", i+1, status, v)
		}
		if rec := saved(t, job, "REQ-001"); rec.ReviewStatus() != w.status || rec.Title != w.title || rec.ReviewNote() != w.note {
			t.Errorf("undo %d: final.json %s %q %q", i+1, rec.ReviewStatus(), rec.Title, rec.ReviewNote())
		}
	}
	if rec := saved(t, job, "REQ-001"); rec.Review != nil || rec.Priority != "high" {
		t.Errorf("after undoing everything: %+v %s", rec.Review, rec.Priority)
	}
	if v, _ := job.ReadInternal("requirements/req_001/validation.md"); strings.Contains(string(v), blockStart) {
		t.Errorf("validation.md keeps the review of a pending requirement:\n%s", v)
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/undo", ""); status != 409 || obj(obj(v)["requirement"])["version"] != 6.0 {
		t.Errorf("nothing to undo: %d %v", status, v)
	}
	log := logOf(t, job)
	if len(log) != 6 || log[3].Action != "undo" || log[3].Undoes != 3 || log[5].Undoes != 1 || log[3].Reviewer != "carol" || log[5].To != "pending" || log[5].After != nil {
		t.Errorf("the log: %+v", log)
	}
	// The output files follow.
	if recs := outputRecords(t, job); recs[0].Review != nil || recs[0].Title != extracted {
		t.Errorf("output: %+v", recs[0])
	}
	if status, _, v := call(t, srv, "GET", "/api/requirements/REQ-077/history", ""); status != 404 {
		t.Errorf("history of an unknown id: %d %v", status, v)
	}
}

// Decision pending takes a requirement back to its extracted values.
func TestPendingResets(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	call(t, srv, "POST", "/api/requirements/REQ-002/review", `{"decision": "edited", "changes": {"text": "Letters are kept six years.", "type": "recommendation"}}`)
	status, _, v := call(t, srv, "POST", "/api/requirements/REQ-002/review", `{"decision": "pending", "note": "decide later"}`)
	if status != 200 || obj(obj(v)["requirement"])["review_status"] != "pending" {
		t.Fatalf("%d %v", status, v)
	}
	if rec := saved(t, job, "REQ-002"); rec.Review != nil || rec.Text != "Business letters shall be kept for six years." || rec.Type != "obligation" {
		t.Errorf("after the reset: %+v", rec)
	}
	log := logOf(t, job)
	if last := log[len(log)-1]; last.From != "edited" || last.To != "pending" || last.Note != "decide later" || last.Changes["type"] != (reviewlog.Change{Old: "recommendation", New: "obligation"}) {
		t.Errorf("the reset's entry %+v", last)
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-002/review", `{"decision": "pending"}`); status != 400 || !strings.Contains(obj(v)["error"].(string), "pending already") {
		t.Errorf("reset of a pending requirement: %d %v", status, v)
	}
}

// failingFiles are a job's files on which the write of one record fails,
// as a kill between the log line and the record leaves them.
type failingFiles struct {
	*workspace.Job
	file string
}

func (f failingFiles) WriteFile(rel string, data []byte) (workspace.WriteResult, error) {
	if rel == f.file {
		return workspace.WriteResult{}, errors.New("killed")
	}
	return f.Job.WriteFile(rel, data)
}

func (f failingFiles) PrepareFile(rel string, data []byte) (*workspace.PendingFile, error) {
	if rel == f.file {
		return nil, errors.New("killed")
	}
	return f.Job.PrepareFile(rel, data)
}

func (f failingFiles) ReplaceFile(rel string, data []byte) (workspace.WriteResult, error) {
	if rel == f.file {
		return workspace.WriteResult{}, errors.New("killed")
	}
	return f.Job.ReplaceFile(rel, data)
}

// A change logged whose record was not written (a kill between the two)
// is written into the record by the next start's Sync; a torn last line
// of the log is left out.
func TestSyncWritesWhatTheLogHolds(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	files := failingFiles{job, "requirements/req_003/final.json"}
	cut := New(Config{JobID: job.ID, Store: reqstore.Open(files), Files: files, Now: func() time.Time { return testNow }, Reviewer: "alice"})
	if _, _, err := cut.Decide("REQ-003", Decision{Decision: "edited", Note: "sharper", Changes: map[string]string{"title": "Keep records"}}); err == nil {
		t.Fatal("the write of the record did not fail")
	}
	// The logged change keeps its number: the next one takes the next.
	if _, _, err := cut.Decide("REQ-001", Decision{Decision: "accepted"}); err != nil {
		t.Fatal(err)
	}
	if rec, log := saved(t, job, "REQ-003"), logOf(t, job); rec.Review != nil || len(log) != 2 || log[1].Seq != 2 {
		t.Fatalf("before the restart: %+v %+v", rec.Review, log)
	}
	// A change torn by a kill in the middle of its line.
	if err := job.AppendInternal(reviewlog.DecisionsFile, []byte(`{"seq": 3, "requirement": "REQ-00`)); err != nil {
		t.Fatal(err)
	}
	svc := newService(job)
	if err := svc.Sync(); err != nil {
		t.Fatal(err)
	}
	rec := saved(t, job, "REQ-003")
	if rec.ReviewStatus() != "edited" || rec.Title != "Keep records" || rec.Review.Note != "sharper" || rec.Review.Changes["title"].From == "" {
		t.Errorf("after Sync: %+v %+v", rec, rec.Review)
	}
	if recs := outputRecords(t, job); recs[2].Title != "Keep records" || recs[2].ReviewStatus() != "edited" {
		t.Errorf("output after Sync: %+v", recs[2])
	}
	if item, err := svc.Item("REQ-003"); err != nil || item.Version != 1 {
		t.Errorf("version %d %v", item.Version, err)
	}
	// The next change is appended after the cut torn line.
	if _, _, err := svc.Decide("REQ-003", Decision{Decision: "accepted"}); err != nil {
		t.Fatal(err)
	}
	if log := logOf(t, job); len(log) != 3 || log[2].Seq != 3 || log[2].From != "edited" {
		t.Errorf("log after the torn line: %+v", log)
	}
	// A power cut may undo the renames of several records written after
	// the log's last flush: the record lags more than one change.
	original, _ := job.ReadInternal("requirements/req_003/final.json")
	for _, d := range []Decision{{Decision: "rejected", Note: "no"}, {Decision: "edited", Changes: map[string]string{"priority": "low"}}} {
		if _, _, err := svc.Decide("REQ-003", d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := job.WriteFile("requirements/req_003/final.json", original); err != nil {
		t.Fatal(err)
	}
	if err := newService(job).Sync(); err != nil {
		t.Fatal(err)
	}
	if rec := saved(t, job, "REQ-003"); rec.ReviewStatus() != "edited" || rec.Priority != "low" || rec.Title != "Keep records" || rec.Review.Note != "" {
		t.Errorf("after Sync of a record two changes behind: %+v %+v", rec, rec.Review)
	}

	// A record changed by other means than the review is left as it is.
	store := reqstore.Open(job)
	if _, err := store.Amend("REQ-003", func(r *requirement.Record) error { r.Review = nil; return nil }); err != nil {
		t.Fatal(err)
	}
	if err := newService(job).Sync(); err != nil {
		t.Fatal(err)
	}
	if rec := saved(t, job, "REQ-003"); rec.Review != nil {
		t.Errorf("Sync overwrote a record changed by hand: %+v", rec.Review)
	}
}

// Reviewers name themselves in each change; --reviewers restricts the names.
func TestReviewers(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: func() time.Time { return testNow }, Reviewer: "root", Reviewers: []string{"alice", "bob"}})
	srv := serve(t, svc, HandlerOptions{})
	status, _, s := call(t, srv, "GET", "/api/session", "")
	if status != 200 || fmt.Sprint(obj(s)["reviewers"]) != "[alice bob]" || obj(s)["auth"] != false || obj(s)["reviewer"] != "" || obj(s)["default_reviewer"] != "root" {
		t.Errorf("session %d %v", status, s)
	}
	for body, want := range map[string]string{
		`{"decision": "accepted", "reviewer": "mallory"}`: `"mallory" is not a reviewer of this review: the reviewers are alice, bob`,
		`{"decision": "accepted"}`:                        `name the reviewer in "reviewer": one of alice, bob`,
	} {
		if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", body); status != 400 || !strings.Contains(obj(v)["error"].(string), want) {
			t.Errorf("%s: %d %v", body, status, v)
		}
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted", "reviewer": " bob "}`); status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	if rec := saved(t, job, "REQ-001"); rec.Review.By != "bob" {
		t.Errorf("review by %q", rec.Review.By)
	}
	if log := logOf(t, job); log[0].Reviewer != "bob" {
		t.Errorf("logged by %q", log[0].Reviewer)
	}
	// Without restriction any name goes, the default without one.
	_, srv2 := server(t)
	if _, _, s := call(t, srv2, "GET", "/api/session", ""); fmt.Sprint(obj(s)["reviewers"]) != "[]" || obj(s)["default_reviewer"] != "alice" {
		t.Errorf("unrestricted session %v", s)
	}
}

// Every change names who made it: without a default reviewer a change
// that names nobody is refused, naming the field, and so is a name with a
// character no one sees.
func TestEveryChangeNamesItsReviewer(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: func() time.Time { return testNow }})
	srv := serve(t, svc, HandlerOptions{})
	before := folderHash(t, job.Dir)
	for path, body := range map[string]string{
		"/api/requirements/REQ-001/review":   `{"decision": "accepted"}`,
		"/api/requirements/REQ-001/comments": `{"text": "who says this?"}`,
		"/api/requirements/REQ-001/undo":     `{"reviewer": "  "}`,
		"/api/review/bulk":                   `{"ids": ["REQ-001"], "decision": "accepted"}`,
	} {
		if status, _, v := call(t, srv, "POST", path, body); status != 400 || !strings.HasPrefix(fmt.Sprint(obj(v)["error"]), `"reviewer" is missing`) {
			t.Errorf("%s %s: %d %v", path, body, status, v)
		}
	}
	for _, name := range []string{"al\u200Bice", "alice\u200F", "\u061Calice", "ali\u2028ce", "ali\u00ADce", "\uFEFFalice", "alice\u2060", "bob\u202E", "\u2066bob"} {
		body := fmt.Sprintf(`{"decision": "accepted", "reviewer": %q}`, name)
		if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", body); status != 400 || !strings.Contains(fmt.Sprint(obj(v)["error"]), "invisible character") {
			t.Errorf("%+q: %d %v", name, status, v)
		}
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a refused change changed the job folder")
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted", "reviewer": "alice"}`); status != 200 {
		t.Fatalf("named: %d %v", status, v)
	}
	if log := logOf(t, job); len(log) != 1 || log[0].Reviewer != "alice" {
		t.Errorf("log %+v", log)
	}
}

// With tokens every API request needs one, and it makes the reviewer.
func TestTokens(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	srv := serve(t, newService(job), HandlerOptions{Tokens: map[string]string{"tok-alice": "alice", "tok-bob": "bob"}})
	for _, auth := range []string{"", "Bearer wrong", "Bearer tok-alic", "tok-alice"} {
		status, h, v := call(t, srv, "GET", "/api/requirements", "", "Authorization", auth)
		if status != 401 || !strings.Contains(obj(v)["error"].(string), "token") || h.Get("WWW-Authenticate") == "" {
			t.Errorf("Authorization %q: %d %v", auth, status, v)
		}
	}
	if status, _, _ := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted"}`); status != 401 {
		t.Errorf("decision without a token: %d", status)
	}
	res, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("the page needs no token: %d", res.StatusCode)
	}
	status, _, s := call(t, srv, "GET", "/api/session", "", "Authorization", "Bearer tok-bob")
	if status != 200 || obj(s)["auth"] != true || obj(s)["reviewer"] != "bob" {
		t.Errorf("session %d %v", status, s)
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted", "reviewer": "alice"}`, "Authorization", "Bearer tok-bob"); status != 403 {
		t.Errorf("bob as alice: %d %v", status, v)
	}
	if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted"}`, "Authorization", "Bearer tok-bob"); status != 200 {
		t.Errorf("bob: %d %v", status, v)
	}
	if rec := saved(t, job, "REQ-001"); rec.Review.By != "bob" {
		t.Errorf("review by %q, want the token's bob", rec.Review.By)
	}
	if status, _, c := call(t, srv, "POST", "/api/requirements/REQ-001/comments", `{"text": "ok"}`, "Authorization", "Bearer tok-alice"); status != 200 || obj(c)["reviewer"] != "alice" {
		t.Errorf("comment: %d %v", status, c)
	}
}

func TestComments(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	status, _, c := call(t, srv, "POST", "/api/requirements/REQ-002/comments", `{"reviewer": "bob", "text": "Which letters?\n\tAll of them?"}`)
	if status != 200 || obj(c)["id"] != 1.0 || obj(c)["reviewer"] != "bob" || obj(c)["time"] != "2026-11-23T10:00:00Z" || obj(c)["text"] != "Which letters?\n\tAll of them?" {
		t.Fatalf("%d %v", status, c)
	}
	call(t, srv, "POST", "/api/requirements/REQ-001/comments", `{"text": "fine"}`)
	call(t, srv, "POST", "/api/requirements/REQ-002/comments", `{"text": "all, says 2.1"}`)
	status, _, list := call(t, srv, "GET", "/api/requirements/REQ-002/comments", "")
	if l := list.([]any); status != 200 || len(l) != 2 || obj(l[0])["id"] != 1.0 || obj(l[1])["id"] != 3.0 || obj(l[1])["reviewer"] != "alice" {
		t.Errorf("list %d %v", status, list)
	}
	if _, _, list := call(t, srv, "GET", "/api/requirements/REQ-004/comments", ""); len(list.([]any)) != 0 {
		t.Errorf("REQ-004 comments %v", list)
	}
	before := folderHash(t, job.Dir)
	for body, want := range map[string]string{
		`{"reviewer": "bob"}`: `"text" is missing`,
		`{"text": "  "}`:      `"text" is empty`,
		`{"text": "` + strings.Repeat("x", 8<<10+1) + `"}`: "8193 bytes long; keep it to 8192",
		`{"text": "bell\u0007"}`:                           "control character",
		`{"text": "carriage\rreturn"}`:                     "control character",
		`{"text": "right\u202Eleft"}`:                      "bidirectional formatting character U+202E at character 6",
		`{"reviewer": "eve\u202E", "text": "x"}`:           "invisible character U+202E",
		`{"text": "x", "note": "y"}`:                       `unknown field "note"`,
		`{"text": 3}`:                                      "wrong type",
	} {
		if status, _, v := call(t, srv, "POST", "/api/requirements/REQ-002/comments", body); status != 400 || !strings.Contains(obj(v)["error"].(string), want) {
			t.Errorf("%.40s: %d %v, want %q", body, status, v, want)
		}
	}
	if status, _, _ := call(t, srv, "POST", "/api/requirements/REQ-099/comments", `{"text": "x"}`); status != 404 {
		t.Errorf("comment on an unknown id: %d", status)
	}
	if folderHash(t, job.Dir) != before {
		t.Error("a refused comment changed the job folder")
	}
	data, _ := job.ReadInternal(reviewlog.CommentsFile)
	if comments, err := jsonl.Parse[reviewlog.Comment](reviewlog.CommentsFile, data); err != nil || len(comments) != 3 {
		t.Errorf("comments.jsonl: %v %d", err, len(comments))
	}
	// A new review reads them back.
	srv2 := serve(t, newService(job), HandlerOptions{})
	if _, _, list := call(t, srv2, "GET", "/api/requirements/REQ-002/comments", ""); len(list.([]any)) != 2 {
		t.Errorf("after a restart: %v", list)
	}
}

func TestBulk(t *testing.T) {
	t.Parallel()
	job, srv := server(t)
	call(t, srv, "POST", "/api/requirements/REQ-003/review", `{"decision": "accepted"}`)
	status, _, v := call(t, srv, "POST", "/api/review/bulk", `{"ids": ["REQ-001", "REQ-077", "REQ-002"], "decision": "rejected", "note": "out of scope", "reviewer": "bob"}`)
	if status != 200 {
		t.Fatalf("%d %v", status, v)
	}
	results := obj(v)["results"].([]any)
	if len(results) != 3 || obj(obj(results[0])["requirement"])["review_status"] != "rejected" || obj(results[1])["id"] != "REQ-077" ||
		!strings.Contains(fmt.Sprint(obj(results[1])["error"]), "REQ-077") || obj(results[2])["id"] != "REQ-002" {
		t.Errorf("results %v", results)
	}
	if p := obj(obj(v)["progress"]); p["rejected"] != 2.0 || p["accepted"] != 1.0 || p["reviewed"] != 3.0 {
		t.Errorf("progress %v", p)
	}
	log := logOf(t, job)
	if len(log) != 3 || log[1].Action != "bulk" || log[2].Action != "bulk" || log[1].Reviewer != "bob" || log[2].Note != "out of scope" {
		t.Errorf("log %+v", log)
	}
	// Back to pending in bulk; one of them is pending already.
	status, _, v = call(t, srv, "POST", "/api/review/bulk", `{"ids": ["REQ-001", "REQ-004"], "decision": "pending"}`)
	results = obj(v)["results"].([]any)
	if status != 200 || obj(obj(results[0])["requirement"])["review_status"] != "pending" || !strings.Contains(fmt.Sprint(obj(results[1])["error"]), "pending already") {
		t.Errorf("pending in bulk: %d %v", status, v)
	}
	// With the versions the reviewer saw: one changed since is left as it
	// stands, with the conflict and the requirement now; the others are
	// taken.
	status, _, v = call(t, srv, "POST", "/api/review/bulk", `{"ids": ["REQ-003", "REQ-004"], "decision": "rejected", "note": "dup", "versions": {"REQ-003": 0, "REQ-004": 0}}`)
	results = obj(v)["results"].([]any)
	if status != 200 || len(results) != 2 || !strings.Contains(fmt.Sprint(obj(results[0])["error"]), "version") ||
		obj(obj(results[0])["requirement"])["review_status"] != "accepted" || obj(obj(results[0])["requirement"])["version"] != 1.0 ||
		obj(obj(results[1])["requirement"])["review_status"] != "rejected" {
		t.Errorf("bulk with versions: %d %v", status, v)
	}
	for body, want := range map[string]string{
		`{"ids": ["REQ-001"], "decision": "accepted", "versions": {"REQ-001": -1}}`: "a version is 0 or more",
		`{"ids": ["REQ-001"], "decision": "edited"}`:                                "edit requirements one at a time",
		`{"ids": [], "decision": "accepted"}`:                                       `"ids" is empty`,
		`{"ids": ["REQ-001"]}`:                                                      `"decision" is missing`,
		`{"ids": ["REQ-001"], "decision": "rejected"}`:                              "needs its reason",
		`{"ids": ["REQ-001"], "decision": "accepted", "x": 1}`:                      `unknown field "x"`,
		`{"ids": "REQ-001", "decision": "accepted"}`:                                "wrong type",
	} {
		if status, _, v := call(t, srv, "POST", "/api/review/bulk", body); status != 400 || !strings.Contains(obj(v)["error"].(string), want) {
			t.Errorf("%s: %d %v, want %q", body, status, v, want)
		}
	}
}

// The output files are written once decisions pause, on request, and
// when the review stops (Flush); the records have every decision at once.
func TestOutputsFollowDecisions(t *testing.T) {
	t.Parallel()
	job := newJob(t, true)
	svc := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: func() time.Time { return testNow }, Reviewer: "alice", OutputDelay: time.Hour})
	srv := serve(t, svc, HandlerOptions{})
	call(t, srv, "POST", "/api/requirements/REQ-001/review", `{"decision": "accepted"}`)
	if recs := outputRecords(t, job); recs[0].Review != nil {
		t.Error("the output was written before decisions paused")
	}
	if _, _, v := call(t, srv, "GET", "/api/outputs", ""); obj(v)["pending"] != true {
		t.Errorf("GET /api/outputs: %v", v)
	}
	// The API shows the decision meanwhile.
	if _, _, l := call(t, srv, "GET", "/api/requirements", ""); obj(obj(l)["requirements"].([]any)[0])["review_status"] != "accepted" {
		t.Error("the list lacks a decision not yet in the output")
	}
	if status, _, v := call(t, srv, "POST", "/api/outputs", ""); status != 200 || obj(v)["pending"] != false {
		t.Errorf("POST /api/outputs: %d %v", status, v)
	}
	if recs := outputRecords(t, job); recs[0].ReviewStatus() != "accepted" {
		t.Error("POST /api/outputs did not write the output")
	}

	// After a short pause the timer writes them.
	quick := New(Config{JobID: job.ID, Store: reqstore.Open(job), Files: job, Now: func() time.Time { return testNow }, Reviewer: "alice", OutputDelay: time.Millisecond})
	if _, _, err := quick.Decide("REQ-002", Decision{Decision: "rejected", Note: "no"}); err != nil {
		t.Fatal(err)
	}
	// The write follows the pause; the minute only ends a test that would
	// otherwise wait for ever, not one on a busy machine.
	for deadline := time.Now().Add(time.Minute); quick.OutputsPending() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if recs := outputRecords(t, job); recs[1].ReviewStatus() != "rejected" {
		t.Error("the output was not written after the pause")
	}
}
