package publish

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"creator/internal/job"
	"creator/internal/telemetry"
	"creator/workspace"
)

// JobOptions say where to publish a job.
type JobOptions struct {
	URL, Schema string
	// Partial publishes a job that has not completed: the requirements of
	// its output/requirements.json as they stand.
	Partial bool
	Now     time.Time

	// stopAt, when it returns true for a stage (stageBeforeCommit,
	// stageAfterCommit), makes Job stop there as a process killed at that
	// moment would: nothing more written to the job. For tests.
	stopAt func(stage string) bool
}

// The stages at which a test may stop a publish.
const (
	stageBeforeCommit = "before commit"
	stageAfterCommit  = "after commit"
)

// errStopped is the error of a publish stopped by JobOptions.stopAt.
var errStopped = errors.New("publish stopped")

func (o JobOptions) stops(stage string) bool { return o.stopAt != nil && o.stopAt(stage) }

// Job publishes the job's validated output/requirements.json and records
// the publication in the job's events. Nothing is written, to the
// database or the job, when it fails. Publications of the job left
// pending by a publish killed around its COMMIT are settled first (Settle).
func Job(ctx context.Context, j *job.Job, o JobOptions) (Result, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	if _, err := Settle(ctx, j, o.URL); err != nil {
		return Result{Schema: o.Schema}, err
	}
	var p Publication
	database, err := inTx(ctx, o.URL, func(tx pgx.Tx) error {
		var err error
		if p, err = JobTx(ctx, tx, j, o); err != nil {
			return err
		}
		if o.stops(stageBeforeCommit) {
			return errStopped
		}
		return nil
	})
	if errors.Is(err, errStopped) || err == nil && o.stops(stageAfterCommit) {
		return p.Result, errStopped
	}
	if err != nil {
		if p.pending.ID != "" {
			// The COMMIT failed, or its answer was lost: the database
			// knows which.
			Settle(context.WithoutCancel(ctx), j, o.URL) //nolint:errcheck // the publish's error says more
		}
		return Result{Schema: o.Schema, Database: database}, err
	}
	return p.Result, p.Record()
}

// Publication is a job's publish written within a transaction, to be
// recorded in the job once the transaction has committed.
type Publication struct {
	Result
	job     *job.Job
	pending job.PendingPublication
}

// JobTx writes the job's validated output/requirements.json to Table
// within tx, migrating the schema first; o.URL is not used. The caller
// commits tx, then records the publication in the job (Record). Before
// returning it writes the publication to the job as pending, naming tx, so
// that a process killed between the COMMIT and Record leaves it to be
// settled by the next publish or status (Settle); a transaction rolled
// back leaves a pending publication that Settle drops.
func JobTx(ctx context.Context, tx pgx.Tx, j *job.Job, o JobOptions) (Publication, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	p := Publication{Result: Result{Schema: o.Schema, Database: Redact(tx.Conn().Config())}, job: j}
	info, err := j.Info()
	if err != nil {
		return p, err
	}
	if info.Status != workspace.StatusCompleted && !o.Partial {
		return p, fmt.Errorf("job '%s' is %s, not completed: publish it when it completes, or publish what it has with --partial",
			j.ID, info.Status)
	}
	recs, err := j.View().Output()
	if err != nil {
		return p, err
	}
	if _, err := migrate(ctx, tx, o.Schema); err != nil {
		return p, err
	}
	if err := write(ctx, tx, Options{Schema: o.Schema, JobID: j.ID, Records: recs, Now: o.Now}, &p.Result); err != nil {
		return p, err
	}
	r := p.Result
	pending := job.PendingPublication{ID: newPublishID(), Transaction: r.transaction, Time: o.Now,
		Publication: telemetry.Publication{Database: r.Database, Schema: r.Schema,
			Requirements: len(recs), Inserted: r.Inserted, Updated: r.Updated, Unchanged: r.Unchanged,
			Removed: r.Removed, Partial: info.Status != workspace.StatusCompleted}}
	if err := j.WritePendingPublication(pending); err != nil {
		return p, fmt.Errorf("cannot note the publish in the job: %w", err)
	}
	p.pending = pending
	return p, nil
}

// newPublishID is a random id for a publication.
func newPublishID() string {
	b := make([]byte, 12)
	rand.Read(b) //nolint:errcheck // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// Record notes the committed publication in the job's events.
func (p Publication) Record() error {
	err := func() error {
		unlock, err := p.job.LockPublications()
		if err != nil {
			return err
		}
		defer unlock()
		// Another process's Settle may have recorded it since the COMMIT.
		recorded, err := p.job.HasPublication(p.pending.ID)
		if err != nil {
			return err
		}
		return p.job.SettlePublication(p.pending, !recorded)
	}()
	if err != nil {
		return fmt.Errorf("published, but cannot record it in the job: %w", err)
	}
	return nil
}

// Settle ends the job's pending publications (JobTx), each a publish
// whose process was killed, or lost the database, around its COMMIT: one
// whose event the job already holds is simply removed; otherwise the
// database of databaseURL, when it is the publication's, says whether its
// transaction committed: then the event is recorded, once, else the
// publication dropped. It returns those it could not settle: for another
// database, or without one (databaseURL empty), or still in progress.
func Settle(ctx context.Context, j *job.Job, databaseURL string) ([]job.PendingPublication, error) {
	if pending, err := j.PendingPublications(); err != nil || len(pending) == 0 {
		return nil, err
	}
	unlock, err := j.LockPublications()
	if err != nil {
		return nil, err
	}
	defer unlock()
	pending, err := j.PendingPublications()
	if err != nil {
		return nil, err
	}
	var cfg *pgx.ConnConfig
	if databaseURL != "" {
		cfg, _ = ParseURL(databaseURL)
	}
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.WithoutCancel(ctx))
		}
	}()
	var unsettled []job.PendingPublication
	for _, p := range pending {
		recorded, err := j.HasPublication(p.ID)
		if err != nil {
			return nil, err
		}
		if recorded {
			if err := j.SettlePublication(p, false); err != nil {
				return nil, err
			}
			continue
		}
		if cfg == nil || Redact(cfg) != p.Database {
			unsettled = append(unsettled, p)
			continue
		}
		if conn == nil {
			c := cfg.Copy()
			if c.ConnectTimeout == 0 {
				c.ConnectTimeout = 15 * time.Second
			}
			if conn, err = pgx.ConnectConfig(ctx, c); err != nil {
				conn = nil
				return nil, fmt.Errorf("cannot connect to %s to settle a publish: %w", p.Database, hide(connectError(err), cfg.Password))
			}
		}
		var status *string
		if err := conn.QueryRow(ctx, `SELECT txid_status($1)`, p.Transaction).Scan(&status); err != nil {
			// An id the server does not know (another server at the same
			// address, say): not this database's to settle.
			unsettled = append(unsettled, p)
			continue
		}
		switch {
		case status != nil && *status == "committed": // and not recorded, as found above
			err = j.SettlePublication(p, true)
		case status != nil && *status == "aborted":
			err = j.SettlePublication(p, false)
		default: // in progress, or too old for the server to know
			unsettled = append(unsettled, p)
		}
		if err != nil {
			return nil, err
		}
	}
	return unsettled, nil
}

// Migrate creates or migrates Table in schema (DefaultSchema when empty)
// within tx, as a publish does first.
func Migrate(ctx context.Context, tx pgx.Tx, schema string) ([]int, error) {
	if schema == "" {
		schema = DefaultSchema
	}
	return migrate(ctx, tx, schema)
}
