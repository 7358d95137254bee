package app

import (
	"errors"
	"testing"
	"time"

	"creator/internal/job"
)

// Status's warnings say why no publish could be settled, and how to
// settle each one not known to have committed.
func TestStatusWarnings(t *testing.T) {
	t.Parallel()
	st := Status{SettleErr: errors.New("cannot reach the database")}
	st.View.ID = "j"
	p := job.PendingPublication{Time: time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)}
	p.Database = "db.example:5432/reqs"
	st.Unsettled = []job.PendingPublication{p}
	got := st.Warnings()
	if len(got) != 2 || got[0] != "cannot reach the database" ||
		got[1] != "the publish of 2026-11-28T05:00:00Z to db.example:5432/reqs is not known to have committed: 'creator publish --job j' to that database settles it (or status with $"+DatabaseEnv+" set to it)" {
		t.Errorf("%q", got)
	}
}
