package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/settings"
	"creator/internal/transcript"
	"creator/internal/usage"
	"creator/templates"
	"creator/workspace"
)

// Jobs creates, starts and resumes jobs under Root from typed settings:
// run, resume, each job of a batch and each job a worker takes go through
// it. It is the batch's and the queue's runner (batch.Runner).
type Jobs struct {
	Workspace
	Settings settings.Settings
	Secrets  Secrets
}

// DocumentOptions are the options the documents of a job are read with.
func (a Jobs) DocumentOptions() document.Options {
	return document.Options{MaxText: a.Settings.MaxText, Password: a.Secrets.Password(a.Env.Getenv)}
}

// Model is the model of a new job under the settings.
func (a Jobs) Model() (Model, error) {
	return ChooseModel(a.Settings, a.Secrets, a.Env.Getenv, "", "")
}

// Create makes the job folder id for the documents and takes its lock.
func (a Jobs) Create(id string, documents []string, m Model) (*job.Job, error) {
	j, err := job.Create(a.Root, workspace.CreateOptions{
		ID: id, Inputs: documents, Instructions: templates.Instructions,
		Model: m.Name, Settings: a.Settings.Record(m.BaseURL), Version: a.Env.Version, Now: a.Env.Now,
	})
	if errors.Is(err, workspace.ErrJobExists) {
		return nil, usage.Errorf("%v", err)
	}
	if err != nil {
		return nil, err
	}
	if err := j.Lock(); err != nil {
		j.Close()
		return nil, err
	}
	return j, nil
}

// Resumed is a job opened to go on: locked, with what it recorded, the
// settings it goes on with and its model.
type Resumed struct {
	Job        *job.Job
	Info       workspace.Info
	Settings   settings.Settings
	Model      Model
	Transcript []transcript.Record
}

// Open opens the job id to resume it: its lock taken, its record read; a
// completed job is opened too, for the caller to say so.
func (a Jobs) Open(id string) (*job.Job, workspace.Info, error) {
	j, err := a.OpenJob(id)
	if err != nil {
		return nil, workspace.Info{}, err
	}
	var info workspace.Info
	err = j.Lock()
	if err == nil {
		info, err = j.Info()
	}
	if err != nil {
		j.Close()
		return nil, workspace.Info{}, err
	}
	return j, info, nil
}

// Prepare takes the job's recorded settings for those not given, chooses
// the model and reads the transcript to resume from. A PDF of the job that
// needs a password is said before any model call, as a new job says it.
func (a Jobs) Prepare(j *job.Job, info workspace.Info) (Resumed, error) {
	r := Resumed{Job: j, Info: info, Settings: a.Settings.Inherit(info.Settings)}
	var err error
	r.Model, err = ChooseModel(r.Settings, a.Secrets, a.Env.Getenv, info.Model, info.Settings.BaseURL)
	if err != nil {
		return r, err
	}
	if r.Transcript, err = j.Transcript(); err != nil {
		return r, fmt.Errorf("job '%s': %w", j.ID, err)
	}
	for _, in := range info.Inputs {
		if err := document.CheckPassword(filepath.Join(j.Dir, "input", in.Name), a.Secrets.Password(a.Env.Getenv)); err != nil {
			return r, fmt.Errorf("%v — job '%s' was not resumed", err, j.ID)
		}
	}
	return r, nil
}

// Run runs the agent on a locked job under settings s with model m and
// its own client (so its own gate of Parallel requests), reporting to
// rep: the one path from settings to jobrun.Run. recs is the transcript
// to resume from (nil starts the job); extracted are the documents
// checked before the job was made (nil when resuming).
func (a Jobs) Run(ctx context.Context, j *job.Job, s settings.Settings, m Model, recs []transcript.Record, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	password := a.Secrets.Password(a.Env.Getenv)
	j.Redact(m.APIKey, password)
	price, priced := m.Pricing(s)
	return jobrun.Run(ctx, jobrun.Config{
		Job: j, Model: m.Client(s, a.Env), ModelName: m.Name,
		Price: price, Priced: priced, Settings: s.Record(m.BaseURL), Transcript: recs,
		Embedder: m.Embedder(s), Extracted: extracted, PDFPassword: password, Reporter: rep, Now: a.Env.Now,
	})
}

// Check reads a document as its job will: an error is a document refused
// for good.
func (a Jobs) Check(path string) (*document.Cache, error) {
	return jobrun.CheckDocuments([]string{path}, a.DocumentOptions())
}

// New checks the documents as the job will read them, then creates the
// job id for them (generated when empty), locked, to be run. A document
// that cannot be used makes no job; an interruption while they are read
// is ctx's error.
func (a Jobs) New(ctx context.Context, id string, documents []string) (Resumed, *document.Cache, error) {
	if id != "" {
		if err := workspace.ValidateID(id); err != nil {
			return Resumed{}, nil, usage.Errorf("%v", err)
		}
	}
	m, err := a.Model()
	if err != nil {
		return Resumed{}, nil, err
	}
	extracted, err := jobrun.CheckDocumentsContext(ctx, documents, a.DocumentOptions())
	if err != nil {
		if errors.Is(err, ctx.Err()) {
			return Resumed{}, nil, err
		}
		return Resumed{}, nil, fmt.Errorf("%v — no job was created", err)
	}
	j, err := a.Create(id, documents, m)
	if err != nil {
		return Resumed{}, nil, err
	}
	return Resumed{Job: j, Settings: a.Settings, Model: m}, extracted, nil
}

// Continue opens the job id to go on with it, locked: done reports a
// completed job, left as it is. The caller closes r.Job.
func (a Jobs) Continue(id string) (r Resumed, done bool, err error) {
	j, info, err := a.Open(id)
	if err != nil {
		return r, false, err
	}
	if info.Status == workspace.StatusCompleted {
		return Resumed{Job: j, Info: info}, true, nil
	}
	if r, err = a.Prepare(j, info); err != nil {
		j.Close()
	}
	return r, false, err
}

// Start creates the job id for the document and runs it.
func (a Jobs) Start(ctx context.Context, id, path string, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	m, err := a.Model()
	if err != nil {
		return jobrun.Outcome{}, err
	}
	j, err := a.Create(id, []string{path}, m)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer j.Close()
	return a.Run(ctx, j, a.Settings, m, nil, extracted, rep)
}

// Resume continues the job id; a completed one is left as it is.
func (a Jobs) Resume(ctx context.Context, id string, rep jobrun.Reporter) (jobrun.Outcome, error) {
	r, done, err := a.Continue(id)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer r.Job.Close()
	if done {
		return jobrun.Outcome{Status: workspace.StatusCompleted}, nil
	}
	return a.Run(ctx, r.Job, r.Settings, r.Model, r.Transcript, nil, rep)
}
