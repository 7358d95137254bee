// Package donecheck decides from the job's files whether a job is done:
// every task of plan.json completed and output/requirements.json present
// and valid. What the model says is never taken into account.
package donecheck

import (
	"errors"
	"fmt"
	"io/fs"

	"creator/internal/agent"
	"creator/internal/output"
	"creator/planner"
)

// Files reads the job's files.
type Files interface {
	ReadInternal(rel string) ([]byte, error)
}

// Checker implements agent.Completion.
type Checker struct {
	Planner *planner.Planner
	Files   Files
}

// Check reports whether the job is complete and, if not, what is missing.
func (c Checker) Check() (agent.CompletionStatus, error) {
	var st agent.CompletionStatus
	plan, err := c.Planner.Load()
	switch {
	case errors.Is(err, planner.ErrNoPlan):
		st.Missing = append(st.Missing, "there is no plan yet: read instructions.md, then write a plan with write_plan")
	case errors.Is(err, planner.ErrCorruptPlan):
		st.Missing = append(st.Missing, err.Error())
	case err != nil:
		return st, err
	default:
		for _, t := range plan.Tasks {
			if t.Status != planner.Completed {
				st.Missing = append(st.Missing, fmt.Sprintf("task %d (%s): %s", t.Number, t.Status, t.Text))
			}
		}
	}
	data, err := c.Files.ReadInternal(output.RequirementsFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.Missing = append(st.Missing, output.RequirementsFile+" does not exist yet")
	case err != nil:
		return st, err
	default:
		if verr := output.Validate(data); verr != nil {
			st.Missing = append(st.Missing, "fix the output: "+verr.Error())
		}
	}
	st.Done = len(st.Missing) == 0
	return st, nil
}
