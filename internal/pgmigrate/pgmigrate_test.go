package pgmigrate

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"creator/internal/pgtest"
)

// A set applies each step once, in order, records it, adopts what step 1
// made before migrations were recorded, and refuses a database at a
// version it does not know.
func TestApply(t *testing.T) {
	t.Parallel()
	srv := pgtest.Start(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, srv.URL(srv.Password))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	apply := func(s Set) ([]int, error) {
		var applied []int
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) (err error) {
			applied, err = s.Apply(ctx, tx)
			return err
		})
		return applied, err
	}
	s := Set{Name: "things", Table: "things_migrations", Lock: "test.things", Steps: []string{
		`CREATE TABLE things (id int PRIMARY KEY)`,
		`ALTER TABLE things ADD COLUMN name text`,
	}}
	if v, err := s.Version(ctx, pool); err != nil || v != 0 {
		t.Fatalf("version before: %d %v", v, err)
	}
	if got, err := apply(s); err != nil || len(got) != 2 {
		t.Fatalf("first apply: %v %v", got, err)
	}
	if got, err := apply(s); err != nil || len(got) != 0 {
		t.Fatalf("again: %v %v", got, err)
	}
	s.Steps = append(s.Steps, `ALTER TABLE things ADD COLUMN size int`)
	if got, err := apply(s); err != nil || len(got) != 1 || got[0] != 3 {
		t.Fatalf("a new step: %v %v", got, err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO things (id, name, size) VALUES (1, 'a', 2)`); err != nil {
		t.Fatal(err)
	}
	older := s
	older.Steps = s.Steps[:2]
	if _, err := apply(older); err == nil || !strings.Contains(err.Error(), "things is at migration 3, newer than this creator knows (2)") {
		t.Errorf("an older creator: %v", err)
	}

	// A table made by hand before its migrations were recorded.
	if _, err := pool.Exec(ctx, `CREATE TABLE legacy (id int)`); err != nil {
		t.Fatal(err)
	}
	adopting := Set{Name: "legacy", Table: "legacy_migrations", Lock: "test.legacy", Steps: []string{
		`CREATE TABLE legacy (id int)`, `ALTER TABLE legacy ADD COLUMN note text`,
	}, Adopt: func(ctx context.Context, tx pgx.Tx) (ok bool, err error) {
		err = tx.QueryRow(ctx, `SELECT to_regclass('legacy') IS NOT NULL`).Scan(&ok)
		return ok, err
	}}
	if got, err := apply(adopting); err != nil || len(got) != 1 || got[0] != 2 {
		t.Fatalf("adopted: %v %v", got, err)
	}
	if v, err := adopting.Version(ctx, pool); err != nil || v != 2 {
		t.Errorf("version after adopting: %d %v", v, err)
	}
}
