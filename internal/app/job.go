package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"creator/compaction"
	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/remote"
	"creator/internal/settings"
	"creator/internal/transcript"
	"creator/internal/usage"
	"creator/planner"
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

// Create makes the job folder id for the documents and takes its lock; on
// a bucket, its first checkpoint is written at once, so that the id is
// taken there too.
func (a Jobs) Create(ctx context.Context, id string, documents []string, m Model) (*job.Job, *remote.Mirror, error) {
	if err := a.clearStale(ctx, id); err != nil {
		return nil, nil, err
	}
	j, err := job.Create(a.Root, workspace.CreateOptions{
		ID: id, Inputs: documents, Instructions: templates.Instructions,
		Model: m.Name, Settings: a.Settings.Record(m.BaseURL), Version: a.Env.Version, Now: a.Env.Now,
	})
	if errors.Is(err, workspace.ErrJobExists) {
		return nil, nil, usage.Errorf("%v", err)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := j.Lock(); err != nil {
		j.Close()
		return nil, nil, err
	}
	mirror := a.mirror(j.ID)
	if mirror == nil {
		return j, nil, nil
	}
	err = mirror.Checkpoint(ctx, j.Workspace())
	if errors.Is(err, remote.ErrSuperseded) {
		// Another machine made a job of the same id at the same moment.
		j.Close()
		os.RemoveAll(j.Dir)
		mirror.Forget()
		return nil, nil, usage.Errorf("job '%s' already exists in %s: continue it with 'creator resume --job %s', or give another --job", j.ID, a.Store.URL, j.ID)
	}
	if err != nil {
		// The job is this machine's until its first checkpoint is sent:
		// a resume here sends it.
		j.Close()
		return nil, nil, fmt.Errorf("job '%s' was made in %s but could not be sent to %s (a resume here sends it): %w", j.ID, a.Root, a.Store.URL, err)
	}
	return j, mirror, nil
}

// clearStale refuses an id the bucket has a job of, and drops a cached
// folder of that id the bucket does not know and this machine never
// made (left by a crash before the job's first checkpoint was recorded).
func (a Jobs) clearStale(ctx context.Context, id string) error {
	m := a.mirror(id)
	if m == nil || id == "" {
		return nil
	}
	if _, ok, err := a.Store.Newest(ctx, id); err != nil || ok {
		if err == nil {
			err = usage.Errorf("job '%s' already exists in %s: continue it with 'creator resume --job %s', or give another --job", id, a.Store.URL, id)
		}
		return err
	}
	if _, err := os.Stat(m.Dir); err != nil || busy(a.Root, id) {
		return nil
	}
	if found, err := m.Pull(ctx); err != nil || found {
		return err // this machine's job, not yet sent: Create says it exists
	}
	return os.RemoveAll(m.Dir)
}

// Resumed is a job opened to go on: locked, with what it recorded, the
// settings it goes on with and its model; on a bucket, its mirror.
type Resumed struct {
	Job        *job.Job
	Info       workspace.Info
	Settings   settings.Settings
	Model      Model
	Transcript []transcript.Record
	Mirror     *remote.Mirror
}

// Open opens the job id to resume it: its lock taken, its record read; a
// completed job is opened too, for the caller to say so. On a bucket the
// cached copy is brought to the newest checkpoint first, and what this
// machine did since its own last checkpoint is sent.
func (a Jobs) Open(ctx context.Context, id string) (*job.Job, workspace.Info, *remote.Mirror, error) {
	if err := CheckJobID(id); err != nil {
		return nil, workspace.Info{}, nil, err
	}
	mirror, err := a.pull(ctx, id)
	if err != nil {
		return nil, workspace.Info{}, nil, err
	}
	j, err := job.Open(a.Root, id)
	if err != nil {
		return nil, workspace.Info{}, nil, err
	}
	var info workspace.Info
	err = j.Lock()
	if err == nil && mirror != nil {
		err = mirror.Checkpoint(ctx, j.Workspace())
	}
	if err == nil {
		info, err = j.Info()
	}
	if err != nil {
		j.Close()
		return nil, workspace.Info{}, nil, err
	}
	return j, info, mirror, nil
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

// Run runs the agent on a job r holds locked, under its settings and
// model, with its own client (so its own gate of Parallel requests),
// reporting to rep: the one path from settings to jobrun.Run. extracted
// are the documents checked before a new job was made (nil when
// resuming). On a bucket the job is checkpointed beside the work and once
// more when it ends; a job another process took over stops, with
// remote.ErrSuperseded.
func (a Jobs) Run(ctx context.Context, r Resumed, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	password := a.Secrets.Password(a.Env.Getenv)
	r.Job.Redact(r.Model.APIKey, password)
	price, priced := r.Model.Pricing(r.Settings)
	cfg := jobrun.Config{
		Job: r.Job, Model: r.Model.Client(r.Settings, a.Env), ModelName: r.Model.Name,
		Price: price, Priced: priced, Settings: r.Settings.Record(r.Model.BaseURL), Transcript: r.Transcript,
		Embedder: r.Model.Embedder(r.Settings), Extracted: extracted, PDFPassword: password, Reporter: rep, Now: a.Env.Now,
	}
	if r.Mirror == nil {
		return jobrun.Run(ctx, cfg)
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	cp := r.Mirror.Start(r.Job.Workspace(), remote.CheckpointOptions{Every: a.Env.CheckpointEvery,
		Superseded: func() { stop(remote.ErrSuperseded) }, Log: a.Env.Log})
	cfg.Reporter = checkpointing{Reporter: reporterOr(rep), cp: cp}
	out, err := jobrun.Run(ctx, cfg)
	cpErr := cp.Stop(context.WithoutCancel(ctx))
	switch {
	case errors.Is(cpErr, remote.ErrSuperseded):
		return out, fmt.Errorf("job '%s' was taken over by another process, which checkpointed it to %s since this one began: this run stopped, and its last steps are not kept (%w)", r.Job.ID, a.Store.URL, cpErr)
	case err != nil:
		return out, err
	case cpErr != nil:
		return out, fmt.Errorf("job '%s' %s here, but its last checkpoint could not be sent to %s; 'creator resume --job %s' on this machine sends it: %w", r.Job.ID, out.Status, a.Store.URL, r.Job.ID, cpErr)
	}
	return out, nil
}

// RunNew runs a job New made, as Run does; when its model server could
// not be reached before it ever answered, the job did nothing, and is
// removed (from the bucket too): the usage error says so.
func (a Jobs) RunNew(ctx context.Context, r Resumed, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	out, err := a.Run(ctx, r, extracted, rep)
	if err != nil || !errors.Is(out.Agent.Err, llm.ErrUnreachable) {
		return out, err
	}
	if derr := a.discard(ctx, r); derr != nil {
		return out, err
	}
	return out, usage.Errorf("%v: %s — no job was created", out.Agent.Err, r.Model.ServerAdvice(out.Agent.Err))
}

// discard removes a job that did nothing: its folder, and its checkpoints
// in the bucket.
func (a Jobs) discard(ctx context.Context, r Resumed) error {
	if r.Mirror != nil {
		if err := a.Store.Delete(ctx, r.Job.ID); err != nil {
			return err
		}
		r.Mirror.Forget()
	}
	return os.RemoveAll(r.Job.Dir)
}

// checkpointing asks for a checkpoint at the points a job is worth
// keeping: a task changed, a chunk committed, a compaction.
type checkpointing struct {
	jobrun.Reporter
	cp *remote.Checkpointer
}

func (c checkpointing) PlanChanged(e planner.Event) { c.Reporter.PlanChanged(e); c.cp.Nudge() }
func (c checkpointing) Compacted(e compaction.Event) {
	c.Reporter.Compacted(e)
	c.cp.Nudge()
}
func (c checkpointing) ChunksChanged(p jobrun.ChunkProgress) {
	c.Reporter.ChunksChanged(p)
	c.cp.Nudge()
}

func reporterOr(rep jobrun.Reporter) jobrun.Reporter {
	if rep == nil {
		return jobrun.Silent{}
	}
	return rep
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
	j, mirror, err := a.Create(ctx, id, documents, m)
	if err != nil {
		return Resumed{}, nil, err
	}
	return Resumed{Job: j, Settings: a.Settings, Model: m, Mirror: mirror}, extracted, nil
}

// Continue opens the job id to go on with it, locked: done reports a
// completed job, left as it is. The caller closes r.Job.
func (a Jobs) Continue(ctx context.Context, id string) (r Resumed, done bool, err error) {
	j, info, mirror, err := a.Open(ctx, id)
	if err != nil {
		return r, false, err
	}
	if info.Status == workspace.StatusCompleted {
		return Resumed{Job: j, Info: info, Mirror: mirror}, true, nil
	}
	if r, err = a.Prepare(j, info); err != nil {
		j.Close()
	}
	r.Mirror = mirror
	return r, false, err
}

// Start creates the job id for the document and runs it.
func (a Jobs) Start(ctx context.Context, id, path string, extracted *document.Cache, rep jobrun.Reporter) (jobrun.Outcome, error) {
	m, err := a.Model()
	if err != nil {
		return jobrun.Outcome{}, err
	}
	j, mirror, err := a.Create(ctx, id, []string{path}, m)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer j.Close()
	return a.Run(ctx, Resumed{Job: j, Settings: a.Settings, Model: m, Mirror: mirror}, extracted, rep)
}

// Resume continues the job id; a completed one is left as it is.
func (a Jobs) Resume(ctx context.Context, id string, rep jobrun.Reporter) (jobrun.Outcome, error) {
	r, done, err := a.Continue(ctx, id)
	if err != nil {
		return jobrun.Outcome{}, err
	}
	defer r.Job.Close()
	if done {
		return jobrun.Outcome{Status: workspace.StatusCompleted}, nil
	}
	return a.Run(ctx, r, nil, rep)
}
