package compaction

import (
	"errors"
	"fmt"
	"strings"

	"creator/planner"
)

// Brief is where a job stands: Text for the model, and the plan it shows
// (none when there is no plan or it cannot be read).
type Brief struct {
	Text string
	Plan []planner.Task
}

// BriefFiles reads the job's files for the brief.
type BriefFiles interface {
	ReadInternal(rel string) ([]byte, error)
	Names(dir string) ([]string, error)
}

// WorkspaceBrief returns a function that describes where a job stands:
// the plan (plan loads it: the job's planner's Load) with every task's
// status and the current task, and from the job's files the last lines of
// progress.md and the files written so far. It is attached to every
// summary, so the plan is never lost.
func WorkspaceBrief(job BriefFiles, plan func() (planner.Plan, error)) func() Brief {
	return func() Brief {
		var b strings.Builder
		var tasks []planner.Task
		b.WriteString("Workspace brief (read from the job's files):\n\n")
		plan, err := plan()
		switch {
		case errors.Is(err, planner.ErrNoPlan):
			b.WriteString("There is no plan yet.\n")
		case err != nil:
			fmt.Fprintf(&b, "The plan cannot be read: %v\n", err)
		default:
			tasks = plan.Tasks
			b.WriteString(planner.Checklist(plan))
			s := planner.SummaryOf(plan)
			switch {
			case s.Current != nil:
				fmt.Fprintf(&b, "Current task: %d. %s\n", s.Current.Number, s.Current.Text)
			case s.Next != nil:
				fmt.Fprintf(&b, "No task in progress; next: %d. %s\n", s.Next.Number, s.Next.Text)
			}
		}
		if data, err := job.ReadInternal(planner.ProgressFile); err == nil {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			b.WriteString("\nLast lines of progress.md:\n")
			for _, l := range lines[max(0, len(lines)-5):] {
				b.WriteString("  " + l + "\n")
			}
		}
		b.WriteString("\nFiles:\n")
		for _, dir := range []string{"chunks", "candidates", "requirements", "output", "notes"} {
			names, err := job.Names(dir)
			if err != nil {
				continue
			}
			fmt.Fprintf(&b, "  %s/: %s\n", dir, describeNames(names))
		}
		return Brief{Text: b.String(), Plan: tasks}
	}
}

// describeNames counts names and shows the first and last few.
func describeNames(names []string) string {
	switch {
	case len(names) == 0:
		return "empty"
	case len(names) <= 6:
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%d entries: %s … %s", len(names), strings.Join(names[:3], ", "), strings.Join(names[len(names)-2:], ", "))
}
