package planner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"creator/workspace"
)

func newJob(t *testing.T) (*workspace.Job, string) {
	t.Helper()
	root := t.TempDir()
	doc := filepath.Join(t.TempDir(), "doc.txt")
	os.WriteFile(doc, []byte("text"), 0o644)
	j, err := workspace.Create(root, workspace.CreateOptions{ID: "p", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, root
}

// clock ticks one second per call, so timestamps are distinct and stable.
func clock() func() time.Time {
	t := time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

func TestPlanLifecycle(t *testing.T) {
	t.Parallel()
	j, _ := newJob(t)
	p := New(j, clock())

	if _, err := p.Load(); !errors.Is(err, ErrNoPlan) {
		t.Fatalf("Load before write_plan = %v, want ErrNoPlan", err)
	}
	res, err := p.Write([]string{"Read instructions.md", "  Extract   the text ", "Chunk the document"})
	if err != nil || res.Tasks != 3 || res.Replaced {
		t.Fatalf("Write = %+v, %v", res, err)
	}
	if _, err := p.Start(2); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Start(3); err == nil || !strings.Contains(err.Error(), "task 2 (Extract the text) is in progress") {
		t.Fatalf("second task in progress: err = %v", err)
	}
	if _, err := p.Start(2); err != nil {
		t.Fatalf("starting the task in progress again should be harmless: %v", err)
	}
	c, err := p.Complete(2, "wrote input/doc.txt")
	if err != nil || c.Already || c.Done != 1 || c.Total != 3 || c.Next == nil || c.Next.Number != 1 {
		t.Fatalf("Complete = %+v, %v", c, err)
	}
	again, err := p.Complete(2, "")
	if err != nil || !again.Already || again.Task.Notes != "wrote input/doc.txt" {
		t.Fatalf("repeated Complete = %+v, %v", again, err)
	}
	if _, err := p.Start(2); err == nil || !strings.Contains(err.Error(), "already completed") {
		t.Fatalf("restarting a completed task: %v", err)
	}
	if _, err := p.Start(3); err != nil {
		t.Fatalf("start after completing the task in progress: %v", err)
	}

	plan, _ := p.Load()
	want := "Plan: 1 of 3 tasks completed\n" +
		"[ ] 1. Read instructions.md\n" +
		"[x] 2. Extract the text\n" +
		"      notes: wrote input/doc.txt\n" +
		"[>] 3. Chunk the document   ← in progress\n"
	if got := Checklist(plan); got != want {
		t.Fatalf("Checklist =\n%s\nwant\n%s", got, want)
	}

	log, _ := os.ReadFile(filepath.Join(j.Dir, "progress.md"))
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "plan written: 3 tasks") ||
		!strings.HasSuffix(lines[1], "task 2 completed: Extract the text — wrote input/doc.txt") {
		t.Fatalf("progress.md =\n%s", log)
	}
}

func TestPlanSurvivesRestart(t *testing.T) {
	t.Parallel()
	j, root := newJob(t)
	p := New(j, clock())
	p.Write([]string{"a", "b", "c"})
	p.Complete(1, "done")
	p.Start(2)
	j.Close()

	j2, err := workspace.Open(root, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	s, err := New(j2, nil).Summarize()
	if err != nil {
		t.Fatal(err)
	}
	if s.Done != 1 || s.Total != 3 || s.Current == nil || s.Current.Number != 2 || s.Next.Number != 3 {
		t.Fatalf("after restart: %+v", s)
	}
	if _, err := New(j2, nil).Start(3); err == nil {
		t.Fatal("the in-progress task was forgotten across the restart")
	}
}

func TestAddTask(t *testing.T) {
	t.Parallel()
	j, _ := newJob(t)
	p := New(j, clock())
	p.Write([]string{"a", "b"})
	p.Complete(1, "")
	n, err := p.Add("a2", 1)
	if err != nil || n != 2 {
		t.Fatalf("Add after 1 = %d, %v", n, err)
	}
	n, err = p.Add("z", 0)
	if err != nil || n != 4 {
		t.Fatalf("Add at end = %d, %v", n, err)
	}
	plan, _ := p.Load()
	var got []string
	for _, task := range plan.Tasks {
		got = append(got, task.Text+":"+string(task.Status))
	}
	if strings.Join(got, " ") != "a:completed a2:pending b:pending z:pending" {
		t.Fatalf("tasks = %v", got)
	}
	if _, err := p.Add("x", 9); err == nil || !strings.Contains(err.Error(), "there is no task 9; the plan has tasks 1 to 4") {
		t.Fatalf("Add after a missing task: %v", err)
	}
}

func TestReplaceKeepsFinishedWork(t *testing.T) {
	t.Parallel()
	j, _ := newJob(t)
	p := New(j, clock())
	p.Write([]string{"extract", "chunk", "review"})
	p.Complete(1, "ok")
	p.Start(2)
	res, err := p.Write([]string{"extract", "chunk", "review chunks 1-10", "review chunks 11-20"})
	if err != nil || !res.Replaced || res.Kept != 2 || res.Tasks != 4 {
		t.Fatalf("replace = %+v, %v", res, err)
	}
	plan, _ := p.Load()
	if plan.Tasks[0].Status != Completed || plan.Tasks[0].Notes != "ok" || plan.Tasks[1].Status != InProgress || plan.Tasks[2].Status != Pending {
		t.Fatalf("statuses after replace: %+v", plan.Tasks)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	j, _ := newJob(t)
	p := New(j, clock())
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		{"start without plan", func() error { _, err := p.Start(1); return err }, "no plan yet"},
		{"empty plan", func() error { _, err := p.Write(nil); return err }, "at least one task"},
		{"blank task", func() error { _, err := p.Write([]string{"a", " \n"}); return err }, "task 2 is empty"},
		{"huge task", func() error { _, err := p.Write([]string{strings.Repeat("x", 501)}); return err }, "keep task texts under 500"},
	}
	for _, c := range cases {
		if err := c.do(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
	p.Write([]string{"only"})
	for _, n := range []int{0, -1, 2} {
		if _, err := p.Complete(n, ""); err == nil || !strings.Contains(err.Error(), "the plan has tasks 1 to 1") {
			t.Errorf("Complete(%d) = %v", n, err)
		}
	}
	if _, err := p.Complete(1, strings.Repeat("n", MaxNotes+1)); err == nil {
		t.Error("over-long notes accepted")
	}
}

func TestCorruptPlanIsReportedAndReplaceable(t *testing.T) {
	t.Parallel()
	j, _ := newJob(t)
	os.WriteFile(filepath.Join(j.Dir, "plan.json"), []byte("{not json"), 0o644)
	p := New(j, clock())
	if _, err := p.Start(1); !errors.Is(err, ErrCorruptPlan) || !strings.Contains(err.Error(), "write_plan") {
		t.Fatalf("Start on a corrupt plan: %v", err)
	}
	if _, err := p.Write([]string{"a"}); err != nil {
		t.Fatalf("write_plan cannot replace a corrupt plan: %v", err)
	}
	if plan, err := p.Load(); err != nil || len(plan.Tasks) != 1 {
		t.Fatalf("after replace: %+v, %v", plan, err)
	}
}

func TestEventsAndCompleteness(t *testing.T) {
	t.Parallel()
	j, _ := newJob(t)
	p := New(j, clock())
	var kinds []string
	p.OnChange = func(e Event) { kinds = append(kinds, e.Kind+":"+e.Task.Text) }
	p.Write([]string{"a", "b"})
	p.Start(1)
	p.Complete(1, "")
	p.Complete(1, "") // already completed: no second event
	plan, _ := p.Load()
	if plan.Complete() {
		t.Fatal("plan with a pending task reported complete")
	}
	p.Complete(2, "")
	plan, _ = p.Load()
	if !plan.Complete() {
		t.Fatal("plan with all tasks completed not reported complete")
	}
	if got := strings.Join(kinds, " "); got != "task_started:a task_completed:a task_completed:b" {
		t.Fatalf("events = %s", got)
	}
	if (Plan{}).Complete() {
		t.Fatal("an empty plan is not complete")
	}
}
