package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"creator/internal/batch"
	"creator/internal/pdfcrypt"
	"creator/internal/pgtest"
	"creator/internal/queue"
	"creator/internal/settings"
	"creator/internal/usage"
	"creator/workspace"
)

const sampleMarkdown = "../../testdata/sample/retention-policy.md"

func testEnv(vars map[string]string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }, Now: time.Now, Version: "test"}
}

// --reviewers refuses at once a name the review would refuse on every
// change: one with a character no one sees (a control, format or
// separator character: bidirectional overrides and marks, zero-width
// characters, line separators), or over 100 characters.
func TestReviewerNames(t *testing.T) {
	t.Parallel()
	if names, err := ReviewerNames([]string{" alice", "bob", "alice"}); err != nil || strings.Join(names, ",") != "alice,bob" {
		t.Errorf("names %q, %v", names, err)
	}
	for _, bad := range []string{"", "al\x00ice", "bob\x7f", "eve\u202Egnp.exe", "mal\u2066lory",
		"al\u200Bice", "alice\u200F", "\u061Calice", "ali\u2028ce", "ali\u2029ce", "bo\u00ADb", "\uFEFFbob", "bob\u2060", strings.Repeat("a", 101)} {
		var ue *usage.Error
		if _, err := ReviewerNames([]string{"alice", bad}); !errors.As(err, &ue) {
			t.Errorf("%+q: %v, want a usage error", bad, err)
		}
	}
}

// A queued job's runner opens a PDF with the worker's own
// CREATOR_PDF_PASSWORD: the queue never carries it.
func TestQueuedJobTakesThePDFPasswordFromTheWorker(t *testing.T) {
	t.Parallel()
	plain, err := os.ReadFile("../../testdata/sample/retention-policy.pdf")
	if err != nil {
		t.Fatal(err)
	}
	data, err := pdfcrypt.Encrypt(plain, pdfcrypt.AES256, "user-pass-7c1e", "owner-pass-51d0")
	if err != nil {
		t.Fatal(err)
	}
	doc := filepath.Join(t.TempDir(), "policy.pdf")
	if err := os.WriteFile(doc, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, vars := range []map[string]string{nil, {PDFPasswordEnv: "user-pass-7c1e"}} {
		jobs := Jobs{Workspace: Workspace{Root: t.TempDir(), Env: testEnv(vars)}}
		runner, err := jobs.Queued(settings.Settings{Model: "builtin", Given: []string{settings.SetModel}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = runner.Check(doc)
		switch {
		case vars == nil && (err == nil || !strings.Contains(err.Error(), "password")):
			t.Errorf("without the password: %v", err)
		case vars != nil && err != nil:
			t.Errorf("with the password: %v", err)
		}
	}
}

// A queued job takes its given settings over the worker's environment,
// the others from it; settings the worker cannot run are refused.
func TestQueuedSettings(t *testing.T) {
	t.Parallel()
	jobs := Jobs{Workspace: Workspace{Root: t.TempDir(), Env: testEnv(map[string]string{"CREATOR_MAX_STEPS": "77", "CREATOR_PARALLEL": "3"})}}
	r, err := jobs.Queued(settings.Settings{Model: "builtin", Parallel: 0, Given: []string{settings.SetModel, settings.SetParallel}})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.(Jobs).Settings; s.MaxSteps != 77 || s.Parallel != 0 {
		t.Errorf("queued settings over the worker's: %+v", s)
	}
	if _, err := jobs.Queued(settings.Settings{Model: "gpt-x", Given: []string{settings.SetModel}}); err == nil {
		t.Error("a model without a server was taken")
	}
}

// recordedArgs are a River job's arguments as an earlier creator wrote
// them.
type recordedArgs struct{ raw json.RawMessage }

func (recordedArgs) Kind() string                   { return queue.Kind }
func (a recordedArgs) MarshalJSON() ([]byte, error) { return a.raw, nil }

// A job queued by an earlier version (internal/queue/testdata) is run by
// this one with the settings it was queued with.
func TestQueuedJobsOfEarlierVersions(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	files, _ := filepath.Glob("../queue/testdata/args-*.json")
	if len(files) < 2 {
		t.Fatalf("recorded arguments: %v", files)
	}
	doc, err := os.ReadFile(sampleMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(doc)
	hash := hex.EncodeToString(sum[:])
	srv := pgtest.Start(t)
	for i, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			db := Database{URL: srv.URL(srv.Password)}
			if i > 0 {
				db.URL = srv.NewDatabase(t).URL(srv.Password)
			}
			ctx := context.Background()
			if _, _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			raw = []byte(strings.NewReplacer("@SHA256@", hash, "@SHA8@", hash[:8]).Replace(string(raw)))
			insertRecorded(t, db.URL, hash, doc, raw)

			root := t.TempDir()
			jobs := Jobs{Workspace: Workspace{Root: root, Env: testEnv(nil)}}
			wctx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				done <- jobs.Work(wctx, WorkOptions{Database: db, Concurrency: 1, Slice: time.Minute, Backoff: time.Second,
					Log: func(format string, args ...any) { t.Logf(format, args...) }})
			}()
			id := batch.IDOf("retention-policy.md", hash)
			deadline := time.Now().Add(time.Minute)
			for !completed(t, db) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			stop()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			w := Workspace{Root: root, Env: testEnv(nil)}
			st, err := w.Status(ctx, id, "")
			if err != nil {
				t.Fatal(err)
			}
			if st.View.State != string(workspace.StatusCompleted) || st.View.Requirements == 0 {
				t.Fatalf("job %s: %s, %d requirements", id, st.View.State, st.View.Requirements)
			}
			j, err := w.OpenView(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			info, err := j.Info()
			j.Close()
			if s := info.Settings; err != nil || s.MaxSteps != 300 || s.MinCoverage != 0.9 || s.MaxText != 2_000_000 || info.Model != "builtin" {
				t.Errorf("job.json settings %+v (model %s), %v", s, info.Model, err)
			}
		})
	}
}

// insertRecorded stores the document and inserts a River job with the
// recorded arguments, as the earlier creator did.
func insertRecorded(t *testing.T, url, hash string, doc, args []byte) {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	client, err := queue.Client(pool)
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO `+queue.DocumentsTable+` (sha256, name, bytes) VALUES ($1, $2, $3)`, hash, "retention-policy.md", doc); err != nil {
			return err
		}
		_, err := client.InsertTx(ctx, tx, recordedArgs{raw: args}, &river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// completed reports whether every job of the queue completed.
func completed(t *testing.T, db Database) bool {
	entries, err := db.Queue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.State != "completed" {
			return false
		}
	}
	return len(entries) > 0
}

// A document that cannot be used is refused at enqueue, with the reason,
// and never queued; one that needs a password is queued for the workers
// that hold it.
func TestEnqueueRefusesUnusable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	srv := pgtest.Start(t)
	db := Database{URL: srv.URL(srv.Password)}
	ctx := context.Background()
	// migrate says what it made: River's tables, the queue's and
	// requirement_cache.
	if m, _, err := db.Migrate(ctx); err != nil || len(m.River) == 0 || len(m.Creator) == 0 || len(m.Cache) == 0 {
		t.Fatalf("migrate: %+v, %v", m, err)
	}
	jobs := Jobs{Workspace: Workspace{Root: t.TempDir(), Env: testEnv(nil)}, Settings: settings.Defaults(func(string) string { return "" })}
	res, err := jobs.Enqueue(ctx, EnqueueOptions{Database: db, Paths: []string{sampleMarkdown, "../../testdata/bad/random-bytes.pdf", "../../testdata/bad/encrypted.pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Queued) != 2 || len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Reason, "not a PDF") {
		t.Fatalf("queued %+v, refused %+v", res.Queued, res.Refused)
	}
	entries, err := db.Queue(ctx)
	if err != nil || len(entries) != 2 {
		t.Fatalf("the queue holds %d jobs, %v", len(entries), err)
	}
	for _, e := range entries {
		if strings.Contains(e.Document, "random-bytes") {
			t.Errorf("the unusable document was queued: %+v", e)
		}
	}
}
