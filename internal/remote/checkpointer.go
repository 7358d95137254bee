package remote

import (
	"context"
	"errors"
	"sync"
	"time"
)

// CheckpointOptions say how often a running job is checkpointed.
type CheckpointOptions struct {
	// Every is the longest time between checkpoints while the job
	// changes (default 30 s).
	Every time.Duration
	// Spacing is the shortest time between two checkpoints that Nudge
	// asks for (default 2 s): a burst of consistent points makes one.
	Spacing time.Duration
	// Superseded is called once when a checkpoint finds the job taken
	// over by another process: the job must stop.
	Superseded func()
	// Log gets a line for each checkpoint that failed (it is tried
	// again).
	Log func(format string, args ...any)
}

// Checkpointer checkpoints a running job beside its work: at the points
// it is nudged at, at least every Every, and once more when it stops.
type Checkpointer struct {
	m     *Mirror
	q     Quiescer
	o     CheckpointOptions
	nudge chan struct{}
	stop  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	err   error // ErrSuperseded, once found
}

// Start starts checkpointing the job q holds still.
func (m *Mirror) Start(q Quiescer, o CheckpointOptions) *Checkpointer {
	if o.Every <= 0 {
		o.Every = 30 * time.Second
	}
	if o.Spacing <= 0 {
		o.Spacing = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	c := &Checkpointer{m: m, q: q, o: o, nudge: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// Nudge asks for a checkpoint: the job is at a point worth keeping (a
// chunk committed, a task changed, a compaction).
func (c *Checkpointer) Nudge() {
	select {
	case c.nudge <- struct{}{}:
	default:
	}
}

func (c *Checkpointer) loop() {
	defer close(c.done)
	last := time.Now()
	every := time.NewTimer(c.o.Every)
	defer every.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-every.C:
		case <-c.nudge:
			if wait := c.o.Spacing - time.Since(last); wait > 0 {
				select {
				case <-c.stop:
					return
				case <-time.After(wait):
				}
			}
		}
		last = time.Now()
		if c.checkpoint(context.Background()) {
			return
		}
		every.Reset(c.o.Every)
	}
}

// checkpoint takes one checkpoint; it reports whether the job was taken
// over.
func (c *Checkpointer) checkpoint(ctx context.Context) (superseded bool) {
	err := c.m.Checkpoint(ctx, c.q)
	switch {
	case errors.Is(err, ErrSuperseded):
		c.mu.Lock()
		first := c.err == nil
		c.err = err
		c.mu.Unlock()
		if first && c.o.Superseded != nil {
			c.o.Superseded()
		}
		return true
	case err != nil:
		c.o.Log("checkpoint of job '%s' failed, to be tried again: %v", c.m.id, err)
	}
	return false
}

// Err is ErrSuperseded once a checkpoint found the job taken over.
func (c *Checkpointer) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Stop ends the checkpoints and takes the last one, waiting for it; its
// error says the bucket does not hold the job's last state (this machine
// does: a resume here sends it).
func (c *Checkpointer) Stop(ctx context.Context) error {
	close(c.stop)
	<-c.done
	if err := c.Err(); err != nil {
		return err
	}
	err := c.m.Checkpoint(ctx, c.q)
	if errors.Is(err, ErrSuperseded) {
		c.mu.Lock()
		c.err = err
		c.mu.Unlock()
	}
	return err
}
