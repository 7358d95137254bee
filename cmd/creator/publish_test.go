package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"creator/internal/job"
	"creator/internal/pgtest"
	"creator/internal/publish"
)

func TestPublish(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	dir := runBuiltin(t, sampleDoc, "sample")
	ws := filepath.Dir(dir)
	env := map[string]string{"CREATOR_DATABASE_URL": db.URL(db.Password)}

	code, stdout, stderr := cliWith(t, env, nil, "publish", "--workspace", ws, "--job", "sample")
	if code != exitOK || !strings.Contains(stderr, "published job 'sample' to postgres://creator@127.0.0.1:") ||
		!strings.Contains(stderr, "public.requirement_cache:") || !strings.Contains(stderr, " 0 changed, 0 unchanged, 0 removed") {
		t.Fatalf("publish: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = cli(t, "publish", "--workspace", ws, "--job", "sample", "--database", db.URL(db.Password), "--schema", "other")
	if code != exitOK || !strings.Contains(stderr, "other.requirement_cache") {
		t.Fatalf("publish --schema: exit %d\n%s", code, stderr)
	}
	code, _, stderr = cliWith(t, env, nil, "publish", "--workspace", ws, "--job", "sample")
	if code != exitOK || !strings.Contains(stderr, ": 0 new, 0 changed, ") {
		t.Fatalf("publish again: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = cli(t, "status", "--workspace", ws, "--job", "sample")
	if code != exitOK || !strings.Contains(stdout, "Published") {
		t.Fatalf("status after publish: exit %d\n%s%s", code, stdout, stderr)
	}

	events, _ := os.ReadFile(filepath.Join(dir, ".agent", "events.jsonl"))
	bad := db.URL("wrong-" + db.Password)
	unreachable := strings.Replace(db.URL(db.Password), fmt.Sprintf(":%d/", db.Port), ":1/", 1)
	for _, c := range []struct {
		url, stderr string
	}{
		{bad, "password authentication failed"},
		{unreachable, "cannot connect to postgres://creator@127.0.0.1:1"},
	} {
		code, stdout, stderr := cli(t, "publish", "--workspace", ws, "--job", "sample", "--database", c.url)
		if code != exitFailure || !strings.Contains(stderr, c.stderr) || strings.Contains(stdout+stderr, db.Password) {
			t.Errorf("publish to %s: exit %d\n%s%s", c.url, code, stdout, stderr)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ".agent", "events.jsonl")); string(after) != string(events) {
		t.Error("a failed publish was recorded in the job")
	}
	if code, _, stderr := cli(t, "publish", "--workspace", ws, "--job", "sample"); code != exitUsage ||
		!strings.Contains(stderr, "CREATOR_DATABASE_URL") {
		t.Errorf("publish without a database: exit %d\n%s", code, stderr)
	}
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if data, _ := os.ReadFile(p); err == nil && !fi.IsDir() && strings.Contains(string(data), db.Password) {
			t.Errorf("%s holds the password", p)
		}
		return nil
	})
}

// A publish whose process was killed between the database's COMMIT and
// the published event (JobTx committed, Record never called) gets its
// event from the next status that can ask the database, once; a status
// that cannot says so and records nothing; a later publish adds only its
// own.
func TestStatusSettlesAPublishKilledAfterCommit(t *testing.T) {
	t.Parallel()
	db := pgtest.Start(t)
	dir := runBuiltin(t, sampleDoc, "sample")
	ws := filepath.Dir(dir)
	url := db.URL(db.Password)
	env := map[string]string{"CREATOR_DATABASE_URL": url}

	j, err := job.Open(ws, "sample")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		_, err := publish.JobTx(ctx, tx, j, publish.JobOptions{Now: time.Now()})
		return err
	})
	conn.Close(ctx)
	j.Close()
	if err != nil {
		t.Fatal(err)
	}
	published := func() int {
		data, _ := os.ReadFile(filepath.Join(dir, ".agent", "events.jsonl"))
		return strings.Count(string(data), `"type":"published"`)
	}
	if n := published(); n != 0 {
		t.Fatalf("%d published events before settling", n)
	}
	code, stdout, stderr := cli(t, "status", "--workspace", ws, "--job", "sample")
	if code != exitOK || !strings.Contains(stderr, "is not known to have committed") || published() != 0 {
		t.Fatalf("status without the database: exit %d, %d events\n%s%s", code, published(), stdout, stderr)
	}
	for range 2 {
		code, stdout, stderr = cliWith(t, env, nil, "status", "--workspace", ws, "--job", "sample")
		if code != exitOK || strings.Contains(stderr, "not known") || !strings.Contains(stdout, "Published") || published() != 1 {
			t.Fatalf("status with the database: exit %d, %d events\n%s%s", code, published(), stdout, stderr)
		}
	}
	if code, _, stderr = cliWith(t, env, nil, "publish", "--workspace", ws, "--job", "sample"); code != exitOK || published() != 2 {
		t.Fatalf("publish after settling: exit %d, %d events\n%s", code, published(), stderr)
	}
}
