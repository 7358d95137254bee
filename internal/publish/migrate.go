package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"creator/internal/pgmigrate"

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

// migrationSet is the migrations of Table in schema, as the shared
// runner applies them (internal/pgmigrate).
func migrationSet(schema string) pgmigrate.Set {
	table := pgx.Identifier{schema, Table}.Sanitize()
	steps := make([]string, len(migrations))
	for i, m := range migrations {
		steps[i] = fmt.Sprintf(m, table)
	}
	return pgmigrate.Set{
		Name: table, Table: pgx.Identifier{schema, MigrationsTable}.Sanitize(), Lock: lockKey(schema), Steps: steps,
		// A table made before the migrations were recorded, or by hand:
		// adopted when publish can write it, else refused untouched.
		Adopt: func(ctx context.Context, tx pgx.Tx) (bool, error) { return checkTable(ctx, tx, schema, firstColumns) },
	}
}

// migrate brings the schema's tables to the latest migration inside tx,
// and checks that Table is one publish can write. A schema already up to
// date costs one round trip (upToDate); only one that needs migrating
// takes the exclusive lock and the statements that create and alter.
func migrate(ctx context.Context, tx pgx.Tx, schema string) ([]int, error) {
	ok, err := upToDate(ctx, tx, schema)
	if err != nil || ok {
		return nil, err
	}
	if err := createSchema(ctx, tx, schema); err != nil {
		return nil, err
	}
	applied, err := migrationSet(schema).Apply(ctx, tx)
	if err != nil {
		return applied, err
	}
	_, err = checkTable(ctx, tx, schema, firstColumns, reviewColumns, sourceColumns)
	return applied, err
}

// lockKey names the advisory lock of a schema's migrations: held
// exclusively by a publisher that migrates, shared by those that find the
// schema up to date, so publishes run side by side and a migration waits
// for them (and they for it).
func lockKey(schema string) string { return "creator.publish." + schema }

// upToDate says, in one round trip, whether the schema is at the latest
// migration with a Table publish can write; false sends the caller down
// the path that creates and migrates. It fails only on a schema newer than
// this creator. The statements are sent as one pipeline of unnamed
// statements so that a missing schema or migrations table, which fails
// the read, is undone by the savepoint before it instead of aborting tx.
func upToDate(ctx context.Context, tx pgx.Tx, schema string) (bool, error) {
	const savepoint = "creator_publish_check"
	log := pgx.Identifier{schema, MigrationsTable}.Sanitize()
	var b pgconn.Batch
	b.ExecParams(`SAVEPOINT `+savepoint, nil, nil, nil, nil)
	// Shared, and taken in a statement of its own: the read that follows
	// sees the migrations of whoever held the lock before.
	b.ExecParams(`SELECT pg_advisory_xact_lock_shared(hashtext($1))`, [][]byte{[]byte(lockKey(schema))}, nil, nil, nil)
	b.ExecParams(`SELECT (SELECT coalesce(max(version), 0) FROM `+log+`)::text, (`+shapeQuery+`)::text`,
		[][]byte{[]byte(pgx.Identifier{schema, Table}.Sanitize())}, nil, nil, nil)
	b.ExecParams(`RELEASE SAVEPOINT `+savepoint, nil, nil, nil, nil)
	results, err := tx.Conn().PgConn().ExecBatch(ctx, &b).ReadAll()
	if err != nil || len(results) != 4 || results[2].Err != nil || len(results[2].Rows) != 1 {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		// Not there yet (or not readable): the full path finds out which,
		// and says so.
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT `+savepoint); err != nil {
			return false, err
		}
		return false, nil
	}
	row := results[2].Rows[0]
	version, err := strconv.Atoi(string(row[0]))
	if err != nil {
		return false, fmt.Errorf("reading %s: %w", log, err)
	}
	if err := migrationSet(schema).Check(version); err != nil {
		return false, err
	}
	if version < len(migrations) {
		return false, nil
	}
	var shape tableShape
	if err := json.Unmarshal(row[1], &shape); err != nil {
		return false, fmt.Errorf("reading the columns of %s: %w", pgx.Identifier{schema, Table}.Sanitize(), err)
	}
	exists, err := shape.check(schema, firstColumns, reviewColumns, sourceColumns)
	return exists && err == nil, err
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
	var shape tableShape
	if err := tx.QueryRow(ctx, shapeQuery, pgx.Identifier{schema, Table}.Sanitize()).Scan(&shape); err != nil {
		return false, err
	}
	return shape.check(schema, want...)
}

// shapeQuery gives, as JSON, the columns of the table $1 (a quoted
// qualified name) with their types as information_schema.columns names
// them (its data_type, "ARRAY" for any array), and whether it has a
// unique key on (job_id, requirement_id); no columns when the table does
// not exist. From pg_catalog, which answers in a fraction of the time
// information_schema takes.
const shapeQuery = `SELECT json_build_object(
	'columns', coalesce((SELECT json_object_agg(a.attname, CASE WHEN t.typcategory = 'A' THEN 'ARRAY'
			ELSE format_type(CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END, NULL) END)
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
	'keyed', EXISTS (SELECT 1 FROM pg_catalog.pg_index i
		WHERE i.indrelid = to_regclass($1) AND i.indisunique AND
		(SELECT array_agg(a.attname::text ORDER BY a.attname) FROM pg_catalog.pg_attribute a
		 WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)) = ARRAY['job_id', 'requirement_id']))`

// tableShape is the answer of shapeQuery.
type tableShape struct {
	Columns map[string]string `json:"columns"`
	Keyed   bool              `json:"keyed"`
}

// check fails when the table exists with columns or a key that publish
// cannot write; it says whether the table exists.
func (s tableShape) check(schema string, want ...map[string]string) (bool, error) {
	if len(s.Columns) == 0 {
		return false, nil
	}
	var problems []string
	for _, columns := range want {
		for _, name := range slices.Sorted(maps.Keys(columns)) {
			switch got, ok := s.Columns[name]; {
			case !ok:
				problems = append(problems, "no column "+name)
			case got != columns[name]:
				problems = append(problems, fmt.Sprintf("column %s is %s, not %s", name, got, columns[name]))
			}
		}
	}
	if !s.Keyed {
		problems = append(problems, "no unique key on (job_id, requirement_id)")
	}
	if len(problems) == 0 {
		return true, nil
	}
	slices.Sort(problems)
	return true, fmt.Errorf("table %s exists with a schema publish cannot write (%s): drop or rename it, or publish to another schema with --schema",
		pgx.Identifier{schema, Table}.Sanitize(), strings.Join(problems, "; "))
}
