// Package pgmigrate applies creator's own migrations to PostgreSQL: the
// queue's tables (internal/queue) and requirement_cache (internal/publish)
// go through the same runner. A set of migrations is recorded in a table
// of its own (version, applied_at), applied in order under an advisory
// lock held for the transaction, each step once; a database at a later
// version than this creator knows is refused, never changed. River's own
// tables are migrated by River (rivermigrate).
package pgmigrate

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Set is a sequence of migrations: step n is Steps[n-1]. Only ever append.
type Set struct {
	// Name says what the set makes, in errors: "requirement_cache".
	Name string
	// Table records the applied steps: a sanitized, possibly qualified,
	// table name ("creator_queue_migrations", "public"."creator_migrations").
	Table string
	// Lock names the advisory lock that one migrating process holds.
	Lock string
	// Steps are the statements of each migration.
	Steps []string
	// Adopt, when given, reports for a set never recorded whether what
	// step 1 makes exists already (made before migrations were recorded,
	// or by hand): then step 1 counts as applied.
	Adopt func(ctx context.Context, tx pgx.Tx) (bool, error)
}

// Querier reads one row: a transaction, a connection or a pool.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Version is the set's latest applied step, 0 when none is (or its table
// does not exist); it reads the table without a lock.
func (s Set) Version(ctx context.Context, q Querier) (int, error) {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, s.Table).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+s.Table).Scan(&v)
	return v, err
}

// Check fails on a version newer than this creator knows.
func (s Set) Check(version int) error {
	if version > len(s.Steps) {
		return fmt.Errorf("%s is at migration %d, newer than this creator knows (%d): use a newer creator", s.Name, version, len(s.Steps))
	}
	return nil
}

// Apply brings the set to its latest step within tx, under its lock, and
// returns the steps it applied.
func (s Set) Apply(ctx context.Context, tx pgx.Tx) ([]int, error) {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, s.Lock); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+s.Table+` (
		version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return nil, fmt.Errorf("creating %s: %w", s.Table, err)
	}
	var version int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+s.Table).Scan(&version); err != nil {
		return nil, fmt.Errorf("reading %s: %w", s.Table, err)
	}
	if err := s.Check(version); err != nil {
		return nil, err
	}
	if version == 0 && s.Adopt != nil {
		exists, err := s.Adopt(ctx, tx)
		if err != nil {
			return nil, err
		}
		if exists {
			if _, err := tx.Exec(ctx, `INSERT INTO `+s.Table+` (version) VALUES (1)`); err != nil {
				return nil, err
			}
			version = 1
		}
	}
	var applied []int
	for n := version + 1; n <= len(s.Steps); n++ {
		if _, err := tx.Exec(ctx, s.Steps[n-1]); err != nil {
			return applied, fmt.Errorf("%s migration %d: %w", s.Name, n, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+s.Table+` (version) VALUES ($1)`, n); err != nil {
			return applied, err
		}
		applied = append(applied, n)
	}
	return applied, nil
}
