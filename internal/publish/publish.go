// Package publish writes a job's requirements to a PostgreSQL table,
// requirement_cache, one row per requirement, for tools that read them
// from a database. It creates and migrates the table itself, with the
// applied migrations recorded in the database, and replaces a job's rows
// in one transaction: a reader sees the old rows or the new ones, never a
// mixture, and a failed publish leaves the database as it was.
package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"creator/internal/output"
	"creator/internal/requirement"
)

// Table is the table the requirements go to.
const Table = "requirement_cache"

// DefaultSchema is the schema of Table unless another is named.
const DefaultSchema = "public"

// StatusPending is the status of a row whose content is new or changed:
// not yet looked at by whoever validates the requirements downstream.
const StatusPending = "pending"

// Options say what to publish where.
type Options struct {
	URL     string // postgres://user:password@host:port/database
	Schema  string // DefaultSchema when empty
	JobID   string
	Records []requirement.Record
	Now     time.Time
}

// Result counts what a publish changed.
type Result struct {
	Schema string
	// Database is where the records went, without the password
	// (Redact); empty when the URL cannot be parsed.
	Database string

	Inserted, Updated, Unchanged, Removed int

	// transaction is the database's id of the publish's transaction.
	transaction int64
}

// Publish writes the records as the job's rows of Table: new requirements
// are inserted, changed ones updated (and set back to pending), unchanged
// ones left alone, and rows of requirements the job no longer has deleted;
// all in one transaction. Errors never contain the password.
func Publish(ctx context.Context, o Options) (Result, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	res := Result{Schema: o.Schema}
	var err error
	res.Database, err = inTx(ctx, o.URL, func(tx pgx.Tx) error {
		if _, err := migrate(ctx, tx, o.Schema); err != nil {
			return err
		}
		return write(ctx, tx, o, &res)
	})
	return res, err
}

// inTx connects to the database of the URL and runs f in one transaction,
// committed when f returns nil. database is where it connected (Redact;
// empty when the URL cannot be parsed). Errors never contain the password.
func inTx(ctx context.Context, databaseURL string, f func(pgx.Tx) error) (database string, err error) {
	cfg, err := ParseURL(databaseURL)
	if err != nil {
		return "", err
	}
	database = Redact(cfg)
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 15 * time.Second
	}
	err = func() error {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return fmt.Errorf("cannot connect to %s: %w", database, connectError(err))
		}
		defer conn.Close(context.WithoutCancel(ctx))
		tx, err := conn.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
		if err := f(tx); err != nil {
			return err
		}
		return tx.Commit(ctx)
	}()
	return database, hide(err, cfg.Password)
}

// connectError keeps the server's own message (bad password, no such
// database) and drops pgx's restatement of the connection settings.
func connectError(err error) error {
	var pe *pgconn.PgError
	var ne *net.OpError
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.As(err, &ne):
		return ne
	}
	return err
}

// write upserts the rows of the job, keyed on (job_id, requirement_id),
// and deletes those of requirements it no longer has: two statements
// whatever the number of requirements, sent together in one round trip,
// the rows passed as one array per column (no temporary table, so no
// TEMPORARY right is needed and it works inside any caller's transaction).
// A requirement id given twice is written once, as its last record.
func write(ctx context.Context, tx pgx.Tx, o Options, res *Result) error {
	table := pgx.Identifier{o.Schema, Table}.Sanitize()
	cols, err := columnsOf(o.Records)
	if err != nil {
		return err
	}
	n := len(cols.id)
	// In a savepoint, so that when the statement fails (a constraint
	// added to the table, say) the rows can be tried one at a time to name
	// the requirement that failed; the transaction fails either way.
	const savepoint = "creator_publish_rows"
	b := &pgx.Batch{}
	b.Queue(`SAVEPOINT ` + savepoint)
	var inserted []bool
	var written bool
	b.Queue(upsertSQL(table), cols.args(o.JobID, o.Now, 0, n)...).Query(func(rows pgx.Rows) error {
		var err error
		inserted, err = pgx.CollectRows(rows, pgx.RowTo[bool])
		written = err == nil
		return err
	})
	b.Queue(`RELEASE SAVEPOINT ` + savepoint)
	var removed int64
	b.Queue(`DELETE FROM `+table+` WHERE job_id = $1 AND NOT (requirement_id = ANY($2))`, o.JobID, cols.id).
		Exec(func(tag pgconn.CommandTag) error {
			removed = tag.RowsAffected()
			return nil
		})
	// The transaction's id, for settling a publish whose process was
	// killed around the COMMIT (Settle).
	b.Queue(`SELECT txid_current()`).QueryRow(func(row pgx.Row) error { return row.Scan(&res.transaction) })
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		if written || ctx.Err() != nil {
			return fmt.Errorf("removing withdrawn requirements from %s: %w", table, err)
		}
		if _, rb := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT `+savepoint); rb != nil {
			return fmt.Errorf("writing the requirements to %s: %w", table, err)
		}
		for i := range n {
			one, berr := tx.Begin(ctx)
			if berr != nil {
				break
			}
			rows, rerr := one.Query(ctx, upsertSQL(table), cols.args(o.JobID, o.Now, i, i+1)...)
			if rerr == nil {
				rows.Close()
				rerr = rows.Err()
			}
			one.Rollback(ctx) //nolint:errcheck // only looking
			if rerr != nil {
				return fmt.Errorf("writing %s to %s: %w", cols.id[i], table, rerr)
			}
		}
		return fmt.Errorf("writing the requirements to %s: %w", table, err)
	}
	for _, ins := range inserted {
		if ins {
			res.Inserted++
		} else {
			res.Updated++
		}
	}
	res.Unchanged = n - len(inserted)
	res.Removed = int(removed)
	return nil
}

// upsertSQL writes rows given as one array per column of columns, in its
// order, into table; it returns, for each row written, whether it is new.
// The record's fields are read from its JSON, parsed once per row (the
// subquery with OFFSET 0 is not folded into the outer query), instead of
// being sent a second time each as a column of their own: the database
// receives each record once.
func upsertSQL(table string) string {
	return `INSERT INTO ` + table + ` AS t (job_id, requirement_id, title, text, type, category, priority,
		frameworks, confidence, rationale, document, page, quote, citations, record, content_hash,
		review_status, review_note, reviewed_by, reviewed_at, source_id, attributes, status, published_at)
	SELECT $1, u.id, u.r->>'title', u.r->>'text', u.r->>'type', u.r->>'category', u.r->>'priority',
		u.frameworks::text[], (u.r->>'confidence')::float8, u.r->>'rationale',
		u.r->'citations'->0->>'document',
		CASE WHEN (u.r->'citations'->0->>'page')::int4 > 0 THEN (u.r->'citations'->0->>'page')::int4 END,
		u.r->'citations'->0->>'quote', u.r->'citations', u.r, u.content_hash,
		u.review_status, u.review_note, u.reviewed_by, u.reviewed_at, u.source_id, u.attributes::jsonb,
		'` + StatusPending + `', $12
	FROM (SELECT u.*, u.record::jsonb AS r
		FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::timestamptz[], $10::text[], $11::text[])
		AS u(id, record, frameworks, content_hash, review_status, review_note, reviewed_by, reviewed_at, source_id, attributes)
		OFFSET 0) AS u
	ON CONFLICT (job_id, requirement_id) DO UPDATE SET
		title = EXCLUDED.title, text = EXCLUDED.text, type = EXCLUDED.type, category = EXCLUDED.category,
		priority = EXCLUDED.priority, frameworks = EXCLUDED.frameworks, confidence = EXCLUDED.confidence,
		rationale = EXCLUDED.rationale, document = EXCLUDED.document, page = EXCLUDED.page, quote = EXCLUDED.quote,
		citations = EXCLUDED.citations, record = EXCLUDED.record, content_hash = EXCLUDED.content_hash,
		review_status = EXCLUDED.review_status, review_note = EXCLUDED.review_note,
		reviewed_by = EXCLUDED.reviewed_by, reviewed_at = EXCLUDED.reviewed_at,
		source_id = EXCLUDED.source_id, attributes = EXCLUDED.attributes,
		status = EXCLUDED.status, published_at = EXCLUDED.published_at
	WHERE t.content_hash IS DISTINCT FROM EXCLUDED.content_hash
	RETURNING (xmax = 0)`
}

// columns are the rows of a publish, one typed slice per column of
// upsertSQL (typed, so that pgx encodes each array in one pass); frameworks
// are array literals, as a text[] per row does not fit a rectangular array
// and a record's may be null.
type columns struct {
	id, record, frameworks, contentHash, reviewStatus []string
	reviewNote, reviewedBy                            []*string
	reviewedAt                                        []*time.Time
	sourceID, attributes                              []*string
}

// args are the parameters of upsertSQL for the rows from..to.
func (c *columns) args(jobID string, now time.Time, from, to int) []any {
	return []any{jobID, c.id[from:to], c.record[from:to], c.frameworks[from:to], c.contentHash[from:to],
		c.reviewStatus[from:to], c.reviewNote[from:to], c.reviewedBy[from:to], c.reviewedAt[from:to],
		c.sourceID[from:to], c.attributes[from:to], now}
}

// columnsOf gives the columns of the records, the last record of an id
// given twice standing for it; source_id and attributes are null when the
// document gives none.
func columnsOf(recs []requirement.Record) (*columns, error) {
	last := make(map[string]int, len(recs))
	for i, r := range recs {
		last[r.ID] = i
	}
	c := &columns{}
	for i, r := range recs {
		if last[r.ID] != i {
			continue
		}
		record, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		var note, by *string
		var at *time.Time
		if rv := r.Review; rv != nil {
			if rv.Note != "" {
				note = &rv.Note
			}
			if rv.By != "" {
				by = &rv.By
			}
			if t, err := time.Parse(time.RFC3339, rv.At); err == nil {
				at = &t
			}
		}
		var sourceID, attributes *string
		if r.SourceID != "" {
			sourceID = &r.SourceID
		}
		if len(r.Attributes) > 0 {
			a := output.AttributesJSON(r.Attributes)
			attributes = &a
		}
		sum := sha256.Sum256(record)
		c.id = append(c.id, r.ID)
		c.record = append(c.record, string(record))
		c.frameworks = append(c.frameworks, arrayLiteral(r.Frameworks))
		c.contentHash = append(c.contentHash, hex.EncodeToString(sum[:]))
		c.reviewStatus = append(c.reviewStatus, r.ReviewStatus())
		c.reviewNote = append(c.reviewNote, note)
		c.reviewedBy = append(c.reviewedBy, by)
		c.reviewedAt = append(c.reviewedAt, at)
		c.sourceID = append(c.sourceID, sourceID)
		c.attributes = append(c.attributes, attributes)
	}
	return c, nil
}

// arrayLiteral writes strings as a PostgreSQL text[] literal: every
// element quoted, with its quotes and backslashes escaped, so that no
// element reads as NULL or splits.
func arrayLiteral(elems []string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, r := range e {
			if r == '"' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// Redact describes where a connection goes without its password:
// postgres://user@host:port/database, printed from the parsed settings
// (an IPv6 host in brackets), so nothing of the URL as given, password
// included, is repeated.
func Redact(cfg *pgx.ConnConfig) string {
	u := url.URL{Scheme: "postgres", Host: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), Path: "/" + cfg.Database}
	if strings.HasPrefix(cfg.Host, "/") { // a Unix socket folder
		u.Host, u.RawQuery = "", url.Values{"host": {cfg.Host}, "port": {strconv.Itoa(int(cfg.Port))}}.Encode()
	}
	if cfg.User != "" {
		u.User = url.User(cfg.User)
	}
	return u.String()
}

// ParseURL parses a database URL. Its error never repeats the URL: pgx's
// restates it with the password masked as well as it can tell where the
// password is, which for one with unescaped @, : or / is not.
func ParseURL(databaseURL string) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(databaseURL)
	if err == nil {
		return cfg, nil
	}
	why := err.Error()
	var pe *pgconn.ParseConfigError
	if errors.As(err, &pe) {
		if i := strings.LastIndex(why, "`: "); i >= 0 {
			why = why[i+3:]
		} else {
			why = "invalid"
		}
	}
	return nil, fmt.Errorf("database URL: cannot parse it: %s (write @ : / ? # %% in a user name or password percent-encoded, as %%40 %%3A %%2F %%3F %%23 %%25)",
		hide(errors.New(why), passwordIn(databaseURL)))
}

// passwordIn is the password of a URL, for hiding it in errors: as
// url.Parse reads it, else (unescaped special characters) everything
// between the user name's colon and the last @ of the URL; or of a
// keyword/value connection string.
func passwordIn(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		p, _ := u.User.Password()
		return p
	}
	if _, rest, ok := strings.Cut(s, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, p, ok := strings.Cut(rest[:at], ":"); ok {
				if q, err := url.PathUnescape(p); err == nil {
					return q
				}
				return p
			}
		}
		return ""
	}
	if _, after, ok := strings.Cut(s, "password="); ok {
		return strings.Fields(after + " ")[0]
	}
	return ""
}

// masked replaces a password.
const masked = "xxxxx"

// hide replaces the password, as given or URL-escaped, in an error's
// text: where a URL or connection string holds it (":pw@", "password=pw")
// always, and anywhere else when it is long enough (4 characters) not to
// be a common piece of ordinary text, which replacing would garble.
func hide(err error, password string) error {
	if err == nil || password == "" {
		return err
	}
	msg := err.Error()
	forms := []string{password, url.QueryEscape(password), url.PathEscape(password),
		url.UserPassword("u", password).String()[2:]}
	for _, p := range forms {
		msg = strings.ReplaceAll(msg, ":"+p+"@", ":"+masked+"@")
		msg = strings.ReplaceAll(msg, "password="+p, "password="+masked)
		msg = strings.ReplaceAll(msg, "password='"+p+"'", "password="+masked)
	}
	if len(password) >= 4 {
		for _, p := range forms {
			msg = strings.ReplaceAll(msg, p, masked)
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// HidePassword is err with the password of the database URL hidden, and
// for a failed connection the server's own message without pgx's
// restatement of the settings.
func HidePassword(err error, databaseURL string) error {
	if err == nil {
		return nil
	}
	return hide(connectError(err), passwordIn(databaseURL))
}
