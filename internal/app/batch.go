package app

import (
	"context"
	"errors"
	"os"
	"strings"

	"creator/internal/batch"
	"creator/internal/document"
	"creator/internal/settings"
	"creator/internal/usage"
	"creator/workspace"
)

// BatchOptions are a batch's own options; each of its jobs takes the
// Jobs' settings.
type BatchOptions struct {
	// Paths are the files and folders given; Include and Exclude filter
	// them by glob (batch.Discover).
	Paths, Include, Exclude []string
	// Jobs is how many documents are worked on at once.
	Jobs int
	// MaxTokens and MaxCost bound the batch, all its jobs together.
	MaxTokens int64
	MaxCost   float64
	// Changed is told of each document whose state changes.
	Changed func(i int, e batch.Entry)
}

// Batch is a batch ready to run, with the model its jobs run with and
// whether its price is known.
type Batch struct {
	*batch.Batch
	Model  Model
	Priced bool
}

// NewBatch checks the options and the settings, finds the documents (the
// workspace root left out) and makes the batch, which runs each job as
// run and resume do.
func (a Jobs) NewBatch(ctx context.Context, o BatchOptions) (Batch, error) {
	switch {
	case o.Jobs < 1 || o.Jobs > settings.MaxParallel:
		return Batch{}, usage.Errorf("--jobs is how many documents are worked on at once, 1 to %d, not %d", settings.MaxParallel, o.Jobs)
	case o.MaxTokens < 0 || o.MaxCost < 0:
		return Batch{}, usage.Errorf("--batch-max-tokens and --batch-max-cost cannot be negative")
	}
	m, err := a.Model()
	if err != nil {
		return Batch{}, err
	}
	_, priced := m.Pricing(a.Settings)
	if o.MaxCost > 0 && !priced {
		return Batch{}, usage.Errorf("--batch-max-cost needs the price of %s: give --price-in and --price-out (US dollars per million tokens)", m.Name)
	}
	docs, err := Discover(o.Paths, o.Include, o.Exclude, a.Root)
	if err != nil {
		return Batch{}, err
	}
	if err := os.MkdirAll(a.Root, 0o755); err != nil {
		return Batch{}, err
	}
	if err := a.pullAll(ctx, docs); err != nil {
		return Batch{}, err
	}
	b, err := batch.New(batch.Options{Root: a.Root, Documents: docs, Jobs: o.Jobs, Runner: a,
		MaxTokens: o.MaxTokens, MaxCost: o.MaxCost, Changed: o.Changed, Now: a.Env.Now})
	return Batch{Batch: b, Model: m, Priced: priced}, err
}

// Discover finds the documents of paths as batch and enqueue do
// (batch.Discover); a bad glob, a missing path or no documents at all is
// a usage error.
func Discover(paths, include, exclude []string, skip ...string) ([]string, error) {
	docs, err := batch.Discover(paths, include, exclude, skip...)
	if err != nil {
		return nil, usage.Errorf("%v", err)
	}
	if len(docs) == 0 {
		return nil, usage.Errorf("no documents in %s (searched for %s)", strings.Join(paths, ", "), strings.Join(document.Extensions(), " "))
	}
	return docs, nil
}

// pullAll brings the cached copies of the documents' jobs to their newest
// checkpoints, so that the batch sees which completed, stopped or never
// ran; nothing on a local workspace.
func (a Jobs) pullAll(ctx context.Context, docs []string) error {
	if a.Store == nil {
		return nil
	}
	for _, d := range docs {
		id, err := batch.JobID(d)
		if err != nil {
			return err
		}
		if _, err := a.pull(ctx, id); err != nil && !errors.Is(err, workspace.ErrNoJob) {
			return err
		}
	}
	return nil
}
