package publish

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"creator/internal/job"
	"creator/internal/output"
	"creator/internal/pgtest"
	"creator/internal/requirement"
	"creator/internal/telemetry"
	"creator/workspace"
)

var now = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func record(id, text string) requirement.Record {
	return requirement.Record{ID: id, Title: "Title of " + id, Text: text, Type: "obligation", Category: "compliance",
		Priority: "high", Frameworks: []string{"GoBD"}, Confidence: 0.9, Rationale: "says shall",
		Citations: []requirement.Citation{{Document: "policy.pdf", Chunk: "chunk_001", Page: 3, Quote: text}}}
}

// newJob makes a job whose output holds recs, with the given status.
func newJob(t *testing.T, status workspace.Status, recs ...requirement.Record) *job.Job {
	t.Helper()
	doc := filepath.Join(t.TempDir(), "policy.txt")
	if err := os.WriteFile(doc, []byte("Records shall be kept.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := job.Create(t.TempDir(), workspace.CreateOptions{ID: "gobd", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { job.Close() })
	if _, err := job.UpdateInfo(func(i *workspace.Info) { i.Status = status }); err != nil {
		t.Fatal(err)
	}
	setOutput(t, job, recs...)
	return job
}

func setOutput(t *testing.T, job *job.Job, recs ...requirement.Record) {
	t.Helper()
	data, err := output.JSON(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := job.Workspace().WriteInternal(output.RequirementsFile, data); err != nil {
		t.Fatal(err)
	}
}

type row struct {
	ID, Text, Status, Hash, Document, Quote string
	Page                                    *int
	Frameworks                              []string
	Published                               time.Time
}

// connect opens a connection to the test server, closed when the test ends.
func connect(t *testing.T, url string) (context.Context, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return ctx, conn
}

func rows(t *testing.T, url, schema string) []row {
	t.Helper()
	ctx, conn := connect(t, url)
	q := `SELECT requirement_id, text, status, content_hash, document, quote, page, frameworks, published_at, record
		FROM ` + pgx.Identifier{schema, Table}.Sanitize() + ` WHERE job_id = 'gobd' ORDER BY requirement_id`
	r, err := conn.Query(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(r, func(r pgx.CollectableRow) (row, error) {
		var x row
		var rec requirement.Record
		err := r.Scan(&x.ID, &x.Text, &x.Status, &x.Hash, &x.Document, &x.Quote, &x.Page, &x.Frameworks, &x.Published, &rec)
		if err == nil && rec.ID != x.ID {
			t.Errorf("record column of %s holds %s", x.ID, rec.ID)
		}
		return x, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func events(t *testing.T, job *job.Job) []telemetry.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(job.Dir, telemetry.File))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ev, err := telemetry.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestPostgres runs the tests that need a server on one, each in a
// database of its own.
func TestPostgres(t *testing.T) {
	server := pgtest.Start(t)
	for name, test := range map[string]func(*testing.T, *pgtest.Server){
		"PublishJob": tPublishJob, "Refusals": tPublishRefusals, "Schemas": tSchemas,
		"AllOrNothing": tPublishIsAllOrNothing, "AdoptsACompatibleTable": tAdoptsACompatibleTable,
		"ReviewStatus": tReviewStatus, "SourceIDAndAttributes": tSourceIDAndAttributes,
		"RoleWithoutCreateOnTheDatabase": tRoleWithoutCreateOnTheDatabase,
		"FrameworksAsWritten":            tFrameworksAsWritten, "TableChangedAfterMigrating": tTableChangedAfterMigrating,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, server.NewDatabase(t))
		})
	}
}

func tPublishJob(t *testing.T, db *pgtest.Server) {
	url := db.URL(db.Password)
	ctx := context.Background()
	job := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."), record("REQ-002", "Logs shall be signed."))

	res, err := Job(ctx, job, JobOptions{URL: url, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Inserted != 2 || res.Schema != "public" || res.Database != "postgres://creator@127.0.0.1:"+strconv.Itoa(db.Port)+"/"+db.Database {
		t.Fatalf("first publish: %+v", res)
	}
	first := rows(t, url, "public")
	if len(first) != 2 || first[0].ID != "REQ-001" || first[0].Status != StatusPending || first[0].Document != "policy.pdf" ||
		first[0].Page == nil || *first[0].Page != 3 || first[0].Quote != "Records shall be kept." ||
		strings.Join(first[0].Frameworks, ",") != "GoBD" || !first[0].Published.Equal(now) || len(first[0].Hash) != 64 {
		t.Fatalf("rows after the first publish: %+v", first)
	}

	// Twice: the same rows, untouched.
	res, err = Job(ctx, job, JobOptions{URL: url, Now: now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged != 2 || res.Inserted+res.Updated+res.Removed != 0 {
		t.Fatalf("second publish: %+v", res)
	}
	if again := rows(t, url, "public"); !equalRows(again, first) {
		t.Fatalf("publishing twice changed the rows:\n%+v\n%+v", first, again)
	}

	// A requirement withdrawn, another changed: gone, and updated.
	setOutput(t, job, record("REQ-001", "Records shall be kept for ten years."))
	res, err = Job(ctx, job, JobOptions{URL: url, Now: now.Add(2 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Updated != 1 || res.Removed != 1 {
		t.Fatalf("third publish: %+v", res)
	}
	third := rows(t, url, "public")
	if len(third) != 1 || third[0].Text != "Records shall be kept for ten years." || third[0].Hash == first[0].Hash ||
		!third[0].Published.Equal(now.Add(2*time.Hour)) {
		t.Fatalf("rows after the third publish: %+v", third)
	}

	var published []telemetry.Event
	for _, e := range events(t, job) {
		if e.Type == telemetry.TypePublished {
			published = append(published, e)
		}
	}
	if len(published) != 3 || published[2].Removed != 1 || published[2].Requirements != 1 ||
		published[0].Database != "postgres://creator@127.0.0.1:"+strconv.Itoa(db.Port)+"/"+db.Database {
		t.Fatalf("published events: %+v", published)
	}
	assertNoPassword(t, job, db.Password)
}

func equalRows(a, b []row) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// assertNoPassword fails when a file of the job holds the password.
func assertNoPassword(t *testing.T, job *job.Job, password string) {
	t.Helper()
	_ = filepath.Walk(job.Dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), password) {
				t.Errorf("%s holds the password", p)
			}
		}
		return nil
	})
}

func tPublishRefusals(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)

	running := newJob(t, workspace.StatusStopped, record("REQ-001", "Records shall be kept."))
	_, err := Job(ctx, running, JobOptions{URL: url, Now: now})
	if err == nil || !strings.Contains(err.Error(), "not completed") || !strings.Contains(err.Error(), "--partial") {
		t.Fatalf("an incomplete job: %v", err)
	}
	if tableExists(t, url, "public") || len(events(t, running)) != 0 {
		t.Fatal("a refused publish wrote something")
	}
	if res, err := Job(ctx, running, JobOptions{URL: url, Now: now, Partial: true}); err != nil || res.Inserted != 1 {
		t.Fatalf("--partial: %+v, %v", res, err)
	}
	if ev := events(t, running); len(ev) != 1 || !ev[0].Partial {
		t.Fatalf("events of a partial publish: %+v", ev)
	}

	job := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."))
	bad := db.URL("not-the-" + db.Password)
	_, err = Job(ctx, job, JobOptions{URL: bad, Schema: "bad", Now: now})
	if err == nil || !strings.Contains(err.Error(), "password authentication failed") || strings.Contains(err.Error(), "not-the-") {
		t.Fatalf("a bad password: %v", err)
	}
	unreachable := strings.Replace(url, strconv.Itoa(db.Port), "1", 1)
	_, err = Job(ctx, job, JobOptions{URL: unreachable, Schema: "bad", Now: now})
	if err == nil || !strings.Contains(err.Error(), "cannot connect to postgres://creator@127.0.0.1:1/"+db.Database+":") ||
		strings.Contains(err.Error(), db.Password) {
		t.Fatalf("an unreachable server: %v", err)
	}
	if tableExists(t, url, "bad") || len(events(t, job)) != 0 {
		t.Fatal("a failed publish wrote something")
	}
}

func tableExists(t *testing.T, url, schema string) bool {
	t.Helper()
	return exists(t, url, pgx.Identifier{schema, Table})
}

func exists(t *testing.T, url string, table pgx.Identifier) bool {
	t.Helper()
	ctx, conn := connect(t, url)
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table.Sanitize()).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func exec(t *testing.T, url string, sql ...string) {
	t.Helper()
	ctx, conn := connect(t, url)
	for _, q := range sql {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func tSchemas(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	recs := []requirement.Record{record("REQ-001", "Records shall be kept.")}

	// Another schema, created with its table and migrations log.
	res, err := Publish(ctx, Options{URL: url, Schema: "Reqs Prod", JobID: "gobd", Records: recs, Now: now})
	if err != nil || res.Inserted != 1 {
		t.Fatalf("--schema: %+v, %v", res, err)
	}
	if got := rows(t, url, "Reqs Prod"); len(got) != 1 || tableExists(t, url, "public") {
		t.Fatalf("rows in the named schema: %+v", got)
	}

	// An incompatible table of the same name: refused, left as it was.
	exec(t, url, `CREATE SCHEMA legacy`, `CREATE TABLE legacy.requirement_cache (job_id text, requirement_id integer, note text)`)
	_, err = Publish(ctx, Options{URL: url, Schema: "legacy", JobID: "gobd", Records: recs, Now: now})
	if err == nil || !strings.Contains(err.Error(), `"legacy"."requirement_cache" exists with a schema publish cannot write`) ||
		!strings.Contains(err.Error(), "column requirement_id is integer, not text") || !strings.Contains(err.Error(), "no column title") {
		t.Fatalf("an incompatible table: %v", err)
	}
	if exists(t, url, pgx.Identifier{"legacy", MigrationsTable}) {
		t.Fatal("a refused publish recorded a migration")
	}

	// A database migrated by a newer creator.
	exec(t, url, `INSERT INTO "Reqs Prod".creator_migrations (version) VALUES (99)`)
	_, err = Publish(ctx, Options{URL: url, Schema: "Reqs Prod", JobID: "gobd", Records: recs, Now: now})
	if err == nil || !strings.Contains(err.Error(), "newer than this creator knows") {
		t.Fatalf("a newer migration: %v", err)
	}
}

// A publish that fails half-way leaves the rows as they were, and the rows
// of other jobs are never touched.
func tPublishIsAllOrNothing(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	before := []requirement.Record{record("REQ-001", "Records shall be kept."), record("REQ-002", "Logs shall be signed.")}
	for _, job := range []string{"gobd", "other"} {
		if _, err := Publish(ctx, Options{URL: url, JobID: job, Records: before, Now: now}); err != nil {
			t.Fatal(err)
		}
	}
	first := rows(t, url, "public")
	exec(t, url, `ALTER TABLE requirement_cache ADD CONSTRAINT refused CHECK (text <> 'refused')`)
	after := []requirement.Record{record("REQ-001", "Records shall be kept longer."), record("REQ-003", "refused")}
	_, err := Publish(ctx, Options{URL: url, JobID: "gobd", Records: after, Now: now.Add(time.Hour)})
	if err == nil || !strings.Contains(err.Error(), "writing REQ-003") {
		t.Fatalf("a publish that fails half-way: %v", err)
	}
	if got := rows(t, url, "public"); !equalRows(got, first) {
		t.Fatalf("a failed publish changed the rows:\n%+v\n%+v", first, got)
	}
	res, err := Publish(ctx, Options{URL: url, JobID: "gobd", Records: after[:1], Now: now.Add(time.Hour)})
	if err != nil || res.Updated != 1 || res.Removed != 1 {
		t.Fatalf("publish: %+v, %v", res, err)
	}
	_, other := connect(t, url)
	var n int
	if err := other.QueryRow(ctx, `SELECT count(*) FROM requirement_cache WHERE job_id = 'other' AND published_at = $1`, now).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows of another job: %d, %v", n, err)
	}
}

// A table made by hand with the columns publish writes is adopted.
func tAdoptsACompatibleTable(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	exec(t, url, `CREATE SCHEMA made`, fmt.Sprintf(migrations[0], `made.requirement_cache`))
	res, err := Publish(ctx, Options{URL: url, Schema: "made", JobID: "gobd", Records: []requirement.Record{record("REQ-001", "Records shall be kept.")}, Now: now})
	if err != nil || res.Inserted != 1 {
		t.Fatalf("publish into a compatible table: %+v, %v", res, err)
	}
	var version int
	if err := pgxQueryRow(t, url, `SELECT max(version) FROM made.creator_migrations`, &version); err != nil || version != len(migrations) {
		t.Fatalf("migrations recorded: %d, %v", version, err)
	}
}

func pgxQueryRow(t *testing.T, url, q string, dest ...any) error {
	t.Helper()
	ctx, conn := connect(t, url)
	return conn.QueryRow(ctx, q).Scan(dest...)
}

// The review of each requirement goes into its columns, also a decision
// kept only in the requirement's final.json (its refresh of the output
// cut off), and a new decision updates the row.
func tReviewStatus(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	rejected := record("REQ-002", "Logs shall be signed.")
	rejected.Review = &requirement.Review{Status: requirement.Rejected, Note: "not in scope", By: "alice", At: "2026-11-23T09:30:00Z"}
	job := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."), rejected)
	accepted := record("REQ-001", "Records shall be kept.")
	accepted.Review = &requirement.Review{Status: requirement.Edited, At: "2026-11-23T09:31:00Z",
		Changes: map[string]requirement.Change{"priority": {From: "high", To: "low"}}}
	accepted.Priority = "low"
	data, _ := requirement.Marshal(accepted)
	if _, err := job.Workspace().WriteFile("requirements/req_001/final.json", data); err != nil {
		t.Fatal(err)
	}
	if _, err := Job(ctx, job, JobOptions{URL: url, Now: now}); err != nil {
		t.Fatal(err)
	}
	type reviewRow struct {
		ID, Priority, Status string
		Note, By             *string
		At                   *time.Time
	}
	read := func() []reviewRow {
		_, conn := connect(t, url)
		r, err := conn.Query(ctx, `SELECT requirement_id, priority, review_status, review_note, reviewed_by, reviewed_at
			FROM requirement_cache ORDER BY requirement_id`)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(r, pgx.RowToStructByPos[reviewRow])
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	got := read()
	if len(got) != 2 || got[0].Status != "edited" || got[0].Priority != "low" || got[0].Note != nil || got[0].By != nil ||
		got[0].At == nil || !got[0].At.Equal(time.Date(2026, 11, 23, 9, 31, 0, 0, time.UTC)) ||
		got[1].Status != "rejected" || got[1].Note == nil || *got[1].Note != "not in scope" || got[1].By == nil || *got[1].By != "alice" {
		t.Fatalf("review columns: %+v", got)
	}
	// A requirement never reviewed is pending.
	setOutput(t, job, record("REQ-003", "Changes shall be logged."))
	if _, err := Job(ctx, job, JobOptions{URL: url, Now: now}); err != nil {
		t.Fatal(err)
	}
	if got := read(); len(got) != 1 || got[0].Status != "pending" || got[0].At != nil {
		t.Fatalf("a requirement not reviewed: %+v", got)
	}
}

// A table of the version before source_id and attributes (migration 2,
// with a row in it) gets the two columns, and a publish fills them: null
// where the document gives a requirement none. The migration runs once,
// and leaves a column of the same name added by hand as it is.
func tSourceIDAndAttributes(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	url := db.URL(db.Password)
	for _, schema := range []string{"old", "byhand"} {
		exec(t, url, `CREATE SCHEMA `+schema, fmt.Sprintf(migrations[0], schema+`.requirement_cache`), fmt.Sprintf(migrations[1], schema+`.requirement_cache`),
			`CREATE TABLE `+schema+`.creator_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
			`INSERT INTO `+schema+`.creator_migrations (version) VALUES (1), (2)`,
			`INSERT INTO `+schema+`.requirement_cache (job_id, requirement_id, title, text, type, category, priority, frameworks, confidence, rationale,
				citations, record, content_hash, published_at) VALUES ('older', 'REQ-001', 't', 'x', 'obligation', 'compliance', 'high', '{}', 1, 'r', '[]', '{}', 'h', now())`)
	}
	exec(t, url, `ALTER TABLE byhand.requirement_cache ADD COLUMN source_id text`, `UPDATE byhand.requirement_cache SET source_id = 'kept'`)

	with := record("REQ-001", "Records shall be kept.")
	with.SourceID, with.Attributes = "V1.2.3", map[string]string{"level": "2", "priority": "High"}
	recs := []requirement.Record{with, record("REQ-002", "Logs shall be signed.")}
	for _, schema := range []string{"old", "byhand"} {
		for range 2 {
			if _, err := Publish(ctx, Options{URL: url, Schema: schema, JobID: "gobd", Records: recs, Now: now}); err != nil {
				t.Fatalf("%s: %v", schema, err)
			}
		}
		var versions []int
		_, conn := connect(t, url)
		r, err := conn.Query(ctx, `SELECT version FROM `+schema+`.creator_migrations ORDER BY version`)
		if err == nil {
			versions, err = pgx.CollectRows(r, pgx.RowTo[int])
		}
		if err != nil || fmt.Sprint(versions) != "[1 2 3]" {
			t.Fatalf("%s: migrations %v, %v", schema, versions, err)
		}
		type sourceRow struct {
			Job, ID    string
			SourceID   *string
			Attributes map[string]string
			Level      *string
		}
		r, err = conn.Query(ctx, `SELECT job_id, requirement_id, source_id, attributes, attributes->>'level'
			FROM `+schema+`.requirement_cache ORDER BY job_id, requirement_id`)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(r, pgx.RowToStructByPos[sourceRow])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].SourceID == nil || *got[0].SourceID != "V1.2.3" || got[0].Level == nil || *got[0].Level != "2" ||
			!reflect.DeepEqual(got[0].Attributes, with.Attributes) || got[1].SourceID != nil || got[1].Attributes != nil || got[2].Job != "older" || got[2].Attributes != nil {
			t.Fatalf("%s: rows %+v", schema, got)
		}
		if kept := got[2].SourceID; (schema == "byhand") != (kept != nil && *kept == "kept") {
			t.Errorf("%s: the older row's source_id is %v", schema, kept)
		}
	}
	// A changed attribute is a changed row.
	with.Attributes["level"] = "3"
	res, err := Publish(ctx, Options{URL: url, Schema: "old", JobID: "gobd", Records: []requirement.Record{with, recs[1]}, Now: now})
	if err != nil || res.Updated != 1 || res.Unchanged != 1 {
		t.Fatalf("publish of a changed attribute: %+v, %v", res, err)
	}
}

// TestPasswordsStayOutOfMessages: unescaped special characters, a 1–2
// character password and an IPv6 host (issue 30, point 11).
func TestPasswordsStayOutOfMessages(t *testing.T) {
	for _, c := range []struct{ url, password string }{
		{"postgres://creator:p@ss:w/rd@localhost:5432/db", "p@ss:w/rd"},
		{"postgres://creator:p@ss:w/rd@[::1]:5432/db", "p@ss:w/rd"},
		{"postgres://creator:s3cr:t@localhost:notaport/db", "s3cr:t"},
	} {
		_, err := ParseURL(c.url)
		if err == nil {
			t.Fatalf("%s parsed", c.url)
		}
		for _, part := range []string{c.password, "ss:", "w/rd", "s3cr"} {
			if strings.Contains(err.Error(), part) {
				t.Errorf("the error for %s holds %q: %v", c.url, part, err)
			}
		}
		if !strings.Contains(err.Error(), "percent-encoded") {
			t.Errorf("the error for %s does not say how to write the password: %v", c.url, err)
		}
	}
	for _, c := range []struct{ url, password, want string }{
		{"postgres://creator:x@[::1]:5433/db?sslmode=disable", "x", "postgres://creator@[::1]:5433/db"},
		{"postgres://creator:ab@127.0.0.1/db", "ab", "postgres://creator@127.0.0.1:5432/db"},
		{"postgres://creator:p%40ss%3Aw%2Frd@[2001:db8::1]:6543/db", "p@ss:w/rd", "postgres://creator@[2001:db8::1]:6543/db"},
	} {
		cfg, err := ParseURL(c.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := Redact(cfg); got != c.want {
			t.Errorf("Redact(%s) = %s, want %s", c.url, got, c.want)
		}
		// A message that repeats the URL, as given and escaped.
		e := fmt.Errorf("failed to connect to `%s` (password=%s): server said a: %s", c.url, c.password, "x marks the spot")
		got := HidePassword(e, c.url).Error()
		if strings.Contains(got, ":"+c.password+"@") || strings.Contains(got, "password="+c.password+")") ||
			strings.Contains(got, "p%40ss") {
			t.Errorf("HidePassword kept the password %q: %s", c.password, got)
		}
		if !strings.Contains(got, "server said a: x marks the spot") {
			t.Errorf("HidePassword garbled the message for the password %q: %s", c.password, got)
		}
	}
}

// tRoleWithoutCreateOnTheDatabase: a role with rights on an existing
// schema but not CREATE on the database publishes to it, and is told what
// is missing for a schema that does not exist (issue 30, point 10).
func tRoleWithoutCreateOnTheDatabase(t *testing.T, db *pgtest.Server) {
	ctx := context.Background()
	exec(t, db.URL(db.Password),
		`CREATE ROLE publisher LOGIN PASSWORD 'publisher-secret'`,
		`REVOKE ALL ON DATABASE `+db.Database+` FROM PUBLIC`,
		`GRANT CONNECT, TEMPORARY ON DATABASE `+db.Database+` TO publisher`,
		`CREATE SCHEMA reqs`,
		`GRANT USAGE, CREATE ON SCHEMA reqs TO publisher`)
	as := *db
	as.User = "publisher"
	url := as.URL("publisher-secret")
	job := newJob(t, workspace.StatusCompleted, record("REQ-001", "Records shall be kept."))
	if res, err := Job(ctx, job, JobOptions{URL: url, Schema: "reqs", Now: now}); err != nil || res.Inserted != 1 {
		t.Fatalf("publishing to a schema the role may use: %+v, %v", res, err)
	}
	if res, err := Job(ctx, job, JobOptions{URL: url, Schema: "reqs", Now: now}); err != nil || res.Unchanged != 1 {
		t.Fatalf("publishing again: %+v, %v", res, err)
	}
	_, err := Job(ctx, job, JobOptions{URL: url, Schema: "missing", Now: now})
	if err == nil || !strings.Contains(err.Error(), `the role publisher lacks CREATE on the database `+db.Database) ||
		!strings.Contains(err.Error(), `CREATE SCHEMA "missing"; GRANT USAGE, CREATE ON SCHEMA "missing" TO "publisher"`) {
		t.Fatalf("publishing to a schema the role may not create: %v", err)
	}
}

// Frameworks reach the text[] column as written, whatever characters they
// hold: quotes, backslashes, commas, braces, a word that reads as NULL.
func tFrameworksAsWritten(t *testing.T, db *pgtest.Server) {
	url := db.URL(db.Password)
	odd := []string{`ISO "27001"`, `C:\\path`, "a,b", "{x}", "NULL", "", " spaced ", "Ümlaut"}
	rec := record("REQ-001", "Records shall be kept.")
	rec.Frameworks = odd
	none := record("REQ-002", "Logs shall be signed.")
	none.Frameworks = nil
	if _, err := Publish(context.Background(), Options{URL: url, JobID: "gobd", Records: []requirement.Record{rec, none}, Now: now}); err != nil {
		t.Fatal(err)
	}
	got := rows(t, url, "public")
	if len(got) != 2 || !slices.Equal(got[0].Frameworks, odd) || got[1].Frameworks == nil || len(got[1].Frameworks) != 0 {
		t.Fatalf("frameworks: %+v", got)
	}
}

// A table that loses a column after it was migrated is refused on the
// next publish, which finds the migrations up to date, as on the first.
func tTableChangedAfterMigrating(t *testing.T, db *pgtest.Server) {
	url := db.URL(db.Password)
	ctx := context.Background()
	recs := []requirement.Record{record("REQ-001", "Records shall be kept.")}
	if _, err := Publish(ctx, Options{URL: url, JobID: "gobd", Records: recs, Now: now}); err != nil {
		t.Fatal(err)
	}
	exec(t, url, `ALTER TABLE requirement_cache DROP COLUMN quote`)
	_, err := Publish(ctx, Options{URL: url, JobID: "gobd", Records: recs, Now: now})
	if err == nil || !strings.Contains(err.Error(), `"public"."requirement_cache" exists with a schema publish cannot write (no column quote)`) {
		t.Fatalf("a table without a column publish writes: %v", err)
	}
}
