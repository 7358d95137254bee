package publish

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// MigrationsTable records the migrations applied to a schema.
const MigrationsTable = "creator_migrations"

// migrations make Table; migration n is migrations[n-1]. %[1]s is the
// table's quoted name. Only ever append.
var migrations = []string{
	`CREATE TABLE %[1]s (
		job_id         text             NOT NULL,
		requirement_id text             NOT NULL,
		title          text             NOT NULL,
		text           text             NOT NULL,
		type           text             NOT NULL,
		category       text             NOT NULL,
		priority       text             NOT NULL,
		frameworks     text[]           NOT NULL,
		confidence     double precision NOT NULL,
		rationale      text             NOT NULL,
		document       text,
		page           integer,
		quote          text,
		citations      jsonb            NOT NULL,
		record         jsonb            NOT NULL,
		content_hash   text             NOT NULL,
		status         text             NOT NULL DEFAULT 'pending',
		published_at   timestamptz      NOT NULL,
		PRIMARY KEY (job_id, requirement_id)
	)`,
	`ALTER TABLE %[1]s
		ADD COLUMN review_status text NOT NULL DEFAULT 'pending',
		ADD COLUMN review_note   text,
		ADD COLUMN reviewed_by   text,
		ADD COLUMN reviewed_at   timestamptz`,
	// IF NOT EXISTS: a column a person added by hand for the same data is
	// kept (checkTable then checks its type).
	`ALTER TABLE %[1]s
		ADD COLUMN IF NOT EXISTS source_id  text,
		ADD COLUMN IF NOT EXISTS attributes jsonb`,
}

// firstColumns are the columns of migration 1, with their types as
// information_schema names them: a table made before migrations were
// recorded is adopted when it has them.
var firstColumns = map[string]string{
	"job_id": "text", "requirement_id": "text", "title": "text", "text": "text", "type": "text",
	"category": "text", "priority": "text", "frameworks": "ARRAY", "confidence": "double precision",
	"rationale": "text", "document": "text", "page": "integer", "quote": "text", "citations": "jsonb",
	"record": "jsonb", "content_hash": "text", "status": "text", "published_at": "timestamp with time zone",
}

// reviewColumns are the columns of migration 2: a person's review.
var reviewColumns = map[string]string{
	"review_status": "text", "review_note": "text", "reviewed_by": "text", "reviewed_at": "timestamp with time zone",
}

// sourceColumns are the columns of migration 3: the document's id and
// columns of a requirement.
var sourceColumns = map[string]string{"source_id": "text", "attributes": "jsonb"}

// migrate brings the schema's tables to the latest migration inside tx,
// and checks that Table is one publish can write.
func migrate(ctx context.Context, tx pgx.Tx, schema string) error {
	// One migrating publisher at a time per schema; the lock ends with tx.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, "creator.publish."+schema); err != nil {
		return err
	}
	log := pgx.Identifier{schema, MigrationsTable}.Sanitize()
	if err := createSchema(ctx, tx, schema); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+log+` (
		version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("creating %s: %w", log, err)
	}
	var version int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM `+log).Scan(&version); err != nil {
		return fmt.Errorf("reading %s: %w", log, err)
	}
	if version > len(migrations) {
		return fmt.Errorf("%s is at migration %d, newer than this creator knows (%d): use a newer creator",
			pgx.Identifier{schema, Table}.Sanitize(), version, len(migrations))
	}
	if version == 0 {
		// A table made before the migrations were recorded, or by hand:
		// adopted when publish can write it, else refused untouched.
		exists, err := checkTable(ctx, tx, schema, firstColumns)
		if err != nil {
			return err
		}
		if exists {
			if _, err := tx.Exec(ctx, `INSERT INTO `+log+` (version) VALUES (1)`); err != nil {
				return err
			}
			version = 1
		}
	}
	for n := version + 1; n <= len(migrations); n++ {
		if _, err := tx.Exec(ctx, fmt.Sprintf(migrations[n-1], pgx.Identifier{schema, Table}.Sanitize())); err != nil {
			return fmt.Errorf("migration %d: %w", n, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO `+log+` (version) VALUES ($1)`, n); err != nil {
			return err
		}
	}
	_, err := checkTable(ctx, tx, schema, firstColumns, reviewColumns, sourceColumns)
	return err
}

// createSchema creates the schema unless it exists: a role with rights on
// an existing schema but not CREATE on the database can publish to it.
// When it is missing and the role may not create it, the error says so.
func createSchema(ctx context.Context, tx pgx.Tx, schema string) error {
	s := pgx.Identifier{schema}.Sanitize()
	var exists bool
	var role, db string
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1),
		current_user, current_database()`, schema).Scan(&exists, &role, &db); err != nil {
		return fmt.Errorf("looking for schema %s: %w", s, err)
	}
	if exists {
		return nil
	}
	if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+s); err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42501" {
			r, d := pgx.Identifier{role}.Sanitize(), pgx.Identifier{db}.Sanitize()
			return fmt.Errorf("schema %s does not exist, and the role %s lacks CREATE on the database %s to create it: "+
				"create the schema as its owner and let the role use it (CREATE SCHEMA %s; GRANT USAGE, CREATE ON SCHEMA %s TO %s), "+
				"or grant the role CREATE ON DATABASE %s (%w)", schema, role, db, s, s, r, d, err)
		}
		return fmt.Errorf("creating schema %s: %w", s, err)
	}
	return nil
}

// checkTable fails when Table exists with columns or a key that publish
// cannot write; a table that does not exist yet passes. It says whether
// the table exists.
func checkTable(ctx context.Context, tx pgx.Tx, schema string, want ...map[string]string) (bool, error) {
	rows, err := tx.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = $2`, schema, Table)
	if err != nil {
		return false, err
	}
	have, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]string, error) {
		var c [2]string
		return c, r.Scan(&c[0], &c[1])
	})
	if err != nil || len(have) == 0 {
		return false, err
	}
	types := map[string]string{}
	for _, c := range have {
		types[c[0]] = c[1]
	}
	var problems []string
	for _, columns := range want {
		for _, name := range slices.Sorted(maps.Keys(columns)) {
			switch got, ok := types[name]; {
			case !ok:
				problems = append(problems, "no column "+name)
			case got != columns[name]:
				problems = append(problems, fmt.Sprintf("column %s is %s, not %s", name, got, columns[name]))
			}
		}
	}
	var keyed bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_index i
		WHERE i.indrelid = to_regclass($1) AND i.indisunique AND
		(SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_attribute a
		 WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)) = ARRAY['job_id', 'requirement_id'])`,
		pgx.Identifier{schema, Table}.Sanitize()).Scan(&keyed); err != nil {
		return true, err
	}
	if !keyed {
		problems = append(problems, "no unique key on (job_id, requirement_id)")
	}
	if len(problems) == 0 {
		return true, nil
	}
	slices.Sort(problems)
	return true, fmt.Errorf("table %s exists with a schema publish cannot write (%s): drop or rename it, or publish to another schema with --schema",
		pgx.Identifier{schema, Table}.Sanitize(), strings.Join(problems, "; "))
}
