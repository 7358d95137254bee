package publish

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"creator/internal/job"
	"creator/internal/pgtest"
	"creator/internal/telemetry"
	"creator/workspace"
)

// TestSettle covers publishes stopped as a kill would stop them: after the
// COMMIT and before the event, before the COMMIT, and after the event but
// before the pending publication is removed. Whatever the moment, the next
// publish or Settle leaves exactly one published event for each committed
// publish, and settling again adds none.
func TestSettle(t *testing.T) {
	server := pgtest.Start(t)
	for name, test := range map[string]func(*testing.T, *pgtest.Server){
		"KilledAfterCommit": tKilledAfterCommit, "KilledBeforeCommit": tKilledBeforeCommit,
		"KilledAfterTheEvent": tKilledAfterTheEvent, "NextPublishSettles": tNextPublishSettles,
		"SettledBeforeRecord": tSettledBeforeRecord,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, server.NewDatabase(t))
		})
	}
}

func stopAt(stage string) func(string) bool { return func(s string) bool { return s == stage } }

func publishedEvents(t *testing.T, j *job.Job) []telemetry.Event {
	t.Helper()
	var out []telemetry.Event
	for _, e := range events(t, j) {
		if e.Type == telemetry.TypePublished {
			out = append(out, e)
		}
	}
	return out
}

func pending(t *testing.T, j *job.Job) []job.PendingPublication {
	t.Helper()
	p, err := j.PendingPublications()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func tKilledAfterCommit(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	j := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."), record("REQ-002", "Logs shall be signed."))
	if _, err := Job(ctx, j, JobOptions{URL: url, Now: now, stopAt: stopAt(stageAfterCommit)}); !errors.Is(err, errStopped) {
		t.Fatalf("stopped publish: %v", err)
	}
	if len(rows(t, url, "public")) != 2 || len(publishedEvents(t, j)) != 0 || len(pending(t, j)) != 1 {
		t.Fatalf("after a kill past the COMMIT: %d rows, events %+v, pending %+v", len(rows(t, url, "public")), publishedEvents(t, j), pending(t, j))
	}

	// Without the database, or with another one, it cannot be told.
	other := db.NewDatabase(t)
	for _, u := range []string{"", other.URL(other.Password)} {
		unsettled, err := Settle(ctx, j, u)
		if err != nil || len(unsettled) != 1 || len(publishedEvents(t, j)) != 0 {
			t.Fatalf("settle with %q: %+v, %v, events %+v", u, unsettled, err, publishedEvents(t, j))
		}
	}
	for range 2 {
		unsettled, err := Settle(ctx, j, url)
		if err != nil || len(unsettled) != 0 {
			t.Fatalf("settle: %+v, %v", unsettled, err)
		}
		ev := publishedEvents(t, j)
		if len(ev) != 1 || ev[0].Inserted != 2 || ev[0].Requirements != 2 || !ev[0].Time.Equal(now) || ev[0].PublishID == "" || len(pending(t, j)) != 0 {
			t.Fatalf("after settling: events %+v, pending %+v", ev, pending(t, j))
		}
	}
}

func tKilledBeforeCommit(t *testing.T, db *pgtest.Server) {
	url := db.URL(db.Password)
	j := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."))
	if _, err := Job(context.Background(), j, JobOptions{URL: url, Now: now, stopAt: stopAt(stageBeforeCommit)}); !errors.Is(err, errStopped) {
		t.Fatalf("stopped publish: %v", err)
	}
	if len(pending(t, j)) != 1 {
		t.Fatalf("no pending publication: %+v", pending(t, j))
	}
	ctx, conn := connect(t, url)
	var created bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass('requirement_cache') IS NOT NULL`).Scan(&created); err != nil || created {
		t.Fatalf("a publish rolled back made the table: %v, %v", created, err)
	}
	unsettled, err := Settle(ctx, j, url)
	if err != nil || len(unsettled) != 0 || len(publishedEvents(t, j)) != 0 || len(pending(t, j)) != 0 {
		t.Fatalf("a publish killed before its COMMIT, settled: %+v, %v, events %+v, pending %+v", unsettled, err, publishedEvents(t, j), pending(t, j))
	}
}

func tKilledAfterTheEvent(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	j := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."))
	if _, err := Job(ctx, j, JobOptions{URL: url, Now: now, stopAt: stopAt(stageAfterCommit)}); !errors.Is(err, errStopped) {
		t.Fatal(err)
	}
	p := pending(t, j)[0]
	// The event appended, the pending publication not yet removed.
	p.PublishID = p.ID
	if err := j.RecordPublication(p.Time, p.Publication); err != nil {
		t.Fatal(err)
	}
	// No database needed: the event says it committed.
	if unsettled, err := Settle(ctx, j, ""); err != nil || len(unsettled) != 0 || len(publishedEvents(t, j)) != 1 || len(pending(t, j)) != 0 {
		t.Fatalf("settled: %+v, %v, events %+v", unsettled, err, publishedEvents(t, j))
	}
}

func tNextPublishSettles(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	j := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."))
	if _, err := Job(ctx, j, JobOptions{URL: url, Now: now, stopAt: stopAt(stageAfterCommit)}); !errors.Is(err, errStopped) {
		t.Fatal(err)
	}
	res, err := Job(ctx, j, JobOptions{URL: url, Now: now.Add(time.Hour)})
	if err != nil || res.Unchanged != 1 {
		t.Fatalf("next publish: %+v, %v", res, err)
	}
	ev := publishedEvents(t, j)
	if len(ev) != 2 || ev[0].Inserted != 1 || ev[1].Unchanged != 1 || ev[0].PublishID == ev[1].PublishID || len(pending(t, j)) != 0 {
		t.Fatalf("events: %+v, pending %+v", ev, pending(t, j))
	}
}

// Another process's Settle (status) may record a publish between its
// COMMIT and its own Record: Record then adds no second event.
func tSettledBeforeRecord(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	j := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."))
	var p Publication
	if _, err := inTx(ctx, url, func(tx pgx.Tx) error {
		var err error
		p, err = JobTx(ctx, tx, j, JobOptions{Now: now})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if unsettled, err := Settle(ctx, j, url); err != nil || len(unsettled) != 0 || len(publishedEvents(t, j)) != 1 {
		t.Fatalf("settled before the Record: %+v, %v, events %+v", unsettled, err, publishedEvents(t, j))
	}
	if err := p.Record(); err != nil {
		t.Fatal(err)
	}
	if ev := publishedEvents(t, j); len(ev) != 1 || ev[0].PublishID != p.pending.ID || len(pending(t, j)) != 0 {
		t.Fatalf("after the Record: events %+v, pending %+v", ev, pending(t, j))
	}
}
