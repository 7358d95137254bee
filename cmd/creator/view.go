package main

import (
	"creator/internal/job"
)

// jobRoot checks a job id given on the command line and gives the
// workspace root its job is under.
func (g *globalOptions) jobRoot(id string) (string, error) {
	if err := checkJobID(id); err != nil {
		return "", err
	}
	return g.root()
}

// openView opens a job by id under the workspace root for reading: the
// commands that only read a job (status, export, diff, eval) see it
// through its View, and take no lock.
func (g *globalOptions) openView(id string) (*job.View, error) {
	root, err := g.jobRoot(id)
	if err != nil {
		return nil, err
	}
	return job.OpenView(root, id)
}

// openJob opens a job by id under the workspace root to change it: resume
// runs it, publish records its publication, review amends its
// requirements.
func (g *globalOptions) openJob(id string) (*job.Job, error) {
	root, err := g.jobRoot(id)
	if err != nil {
		return nil, err
	}
	return job.Open(root, id)
}
