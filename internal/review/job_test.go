package review

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/internal/job"
	"creator/internal/output"
	"creator/internal/requirement"
)

// The review of a job works through the job's owner: a decision goes into
// the requirement's record and validation.md, and the output files are
// written again with the coverage the job's View measures.
func TestForJobDecidesThroughTheJob(t *testing.T) {
	t.Parallel()
	ws := newJob(t, true)
	j, err := job.Open(filepath.Dir(ws.Dir), ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	if err := j.Lock(); err != nil {
		t.Fatal(err)
	}
	svc := ForJob(j, Config{Reviewer: "alice", Now: func() time.Time { return testNow }})
	if err := svc.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Decide("REQ-002", Decision{Decision: requirement.Rejected, Note: "repeats REQ-001"}); err != nil {
		t.Fatal(err)
	}
	if rec := saved(t, ws, "REQ-002"); rec.Review == nil || rec.Review.Status != requirement.Rejected || rec.Review.By != "alice" {
		t.Errorf("the record's review: %+v", rec.Review)
	}
	validation, err := ws.ReadInternal("requirements/req_002/validation.md")
	if err != nil || !strings.Contains(string(validation), "- Reason: repeats REQ-001") {
		t.Errorf("validation.md: %q, %v", validation, err)
	}
	for _, r := range outputRecords(t, ws) {
		if r.ID == "REQ-002" && (r.Review == nil || r.Review.Status != requirement.Rejected) {
			t.Errorf("the output's REQ-002: %+v", r.Review)
		}
	}
	rep, err := j.View().Coverage()
	if err != nil {
		t.Fatal(err)
	}
	summary, err := ws.ReadInternal(output.SummaryFile)
	want := "of 2 chunks covered"
	if err != nil || rep.Chunks != 2 || !strings.Contains(string(summary), want) {
		t.Errorf("summary.md holds no coverage of the View's %+v: %q, %v", rep, summary, err)
	}
}

// A review writes only the files of a requirement's folder besides its
// record; its record changes only through the requirement store.
func TestJobRefusesOtherFilesOfTheReview(t *testing.T) {
	t.Parallel()
	ws := newJob(t, false)
	j, err := job.Open(filepath.Dir(ws.Dir), ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	for _, rel := range []string{"requirements/req_001/final.json", "plan.json", "requirements/validation.md", "output/requirements.json", "requirements/req_001/../../plan.json", "requirements/req_001/x/../final.json", "requirements/req_001"} {
		if _, err := j.WriteRequirementFile(rel, []byte("x")); err == nil {
			t.Errorf("WriteRequirementFile(%q) was allowed", rel)
		}
		if _, err := j.ReadRequirementFile(rel); err == nil {
			t.Errorf("ReadRequirementFile(%q) was allowed", rel)
		}
	}
	if _, err := j.WriteRequirementFile("requirements/req_001/validation.md", []byte("notes\n")); err != nil {
		t.Error(err)
	}
}
