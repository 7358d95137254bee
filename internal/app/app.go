// Package app is creator's application layer: the use cases the command
// line, the batch and the queue's workers share, each taking typed
// options and returning data. It creates, starts and resumes jobs from
// settings.Settings (the model and its client, what a resume inherits
// from the job's record, the run itself), serves a review, queues
// documents, and reads jobs for status, export, eval and diff. The
// command line only turns flags into options and results into output.
package app

import (
	"context"

	"creator/internal/job"
	"creator/internal/remote"
	"creator/internal/usage"
	"creator/workspace"
)

// Workspace is the folder that holds the jobs, with what the application
// takes from the process.
type Workspace struct {
	// Root is the folder the jobs are in: the workspace's own, or the
	// local cache of a bucket's (Store).
	Root string
	Env  Env
	// Store is the bucket a workspace given by URL is on; nil for a
	// local folder.
	Store *remote.Store
}

// ResolveRoot is the folder that holds the jobs: flag, else
// $CREATOR_WORKSPACE, else /workspace inside a container, else
// ./workspace.
func ResolveRoot(flag string, getenv func(string) string) (string, error) {
	env := workspace.SystemEnvironment()
	env.Getenv = getenv
	return workspace.ResolveRoot(flag, env)
}

// CheckJobID refuses a missing or malformed job id.
func CheckJobID(id string) error {
	if id == "" {
		return usage.Errorf("--job is required")
	}
	if err := workspace.ValidateID(id); err != nil {
		return usage.Errorf("%v", err)
	}
	return nil
}

// OpenView opens the job id for reading: the use cases that only read a
// job (status, export, diff, eval) see it through its View and take no
// lock.
func (w Workspace) OpenView(ctx context.Context, id string) (*job.View, error) {
	if err := CheckJobID(id); err != nil {
		return nil, err
	}
	if _, err := w.pull(ctx, id); err != nil {
		return nil, err
	}
	return job.OpenView(w.Root, id)
}

// OpenJob opens the job id to change it: a resume runs it, a publish
// records its publication, a review amends its requirements.
func (w Workspace) OpenJob(ctx context.Context, id string) (*job.Job, error) {
	if err := CheckJobID(id); err != nil {
		return nil, err
	}
	if _, err := w.pull(ctx, id); err != nil {
		return nil, err
	}
	return job.Open(w.Root, id)
}
