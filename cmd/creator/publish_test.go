package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/pgtest"
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
