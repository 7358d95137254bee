package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/index"
)

// searchEnv is a job whose search index follows every write.
func searchEnv(t *testing.T) *env {
	t.Helper()
	e, _ := searchEnvWith(t, index.Options{})
	return e
}

// searchEnvWith is a job with the search tools over an index opened with
// opts, kept current by the job's change watcher.
func searchEnvWith(t *testing.T, opts index.Options) (*env, *index.Index) {
	t.Helper()
	e := newEnv(t)
	idx, err := index.OpenWith(context.Background(), e.job.Dir, e.job.FS(), opts)
	if err != nil {
		t.Fatal(err)
	}
	e.job.Watch(idx)
	t.Cleanup(func() {
		e.job.Watch(nil)
		idx.Close()
	})
	for _, tool := range SearchTools(e.job.Files, idx) {
		if err := e.reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return e, idx
}

func (e *env) search(t *testing.T, args map[string]any) string {
	t.Helper()
	data, _ := json.Marshal(args)
	out, err := e.call("search_files", string(data))
	if err != nil {
		t.Fatalf("search_files %s: %v", data, err)
	}
	return out
}

func (e *env) mustCall(t *testing.T, name string, args map[string]any) {
	t.Helper()
	data, _ := json.Marshal(args)
	if _, err := e.call(name, string(data)); err != nil {
		t.Fatalf("%s %s: %v", name, data, err)
	}
}

func TestSearchFollowsWritesEditsAndDeletes(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	e.mustCall(t, "write_file", map[string]any{"path": "notes/retention.md", "content": "# Notes\n\nThe archive keeps invoices.\nThe retention period is ten years for ledgers.\n"})
	out := e.search(t, map[string]any{"query": "retention period"})
	if !strings.HasPrefix(out, "notes/retention.md:4: The **retention** **period** is ten years") || !strings.Contains(out, "(score ") {
		t.Fatalf("after write_file:\n%s", out)
	}

	e.mustCall(t, "edit_file", map[string]any{"path": "notes/retention.md", "old_text": "retention period", "new_text": "storage duration"})
	if out := e.search(t, map[string]any{"query": "retention"}); !strings.HasPrefix(out, "no hits") {
		t.Errorf("the old text is still found after edit_file:\n%s", out)
	}
	if out := e.search(t, map[string]any{"query": "storage duration"}); !strings.HasPrefix(out, "notes/retention.md:4: The **storage** **duration**") {
		t.Errorf("the new text is not found after edit_file:\n%s", out)
	}

	e.mustCall(t, "delete_file", map[string]any{"path": "notes/retention.md"})
	if out := e.search(t, map[string]any{"query": "storage duration"}); !strings.HasPrefix(out, "no hits") {
		t.Errorf("found after delete_file:\n%s", out)
	}
	// A new file at the same path has only its own passages.
	e.mustCall(t, "write_file", map[string]any{"path": "notes/retention.md", "content": "short\n"})
	if out := e.search(t, map[string]any{"query": "ledgers"}); !strings.HasPrefix(out, "no hits") {
		t.Errorf("old passages survive a new file at the same path:\n%s", out)
	}
}

func TestSearchGermanFolding(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	e.mustCall(t, "write_file", map[string]any{"path": "chunks/chunk_001.md", "content": "Die Prüfung der Aufzeichnungen erfolgt jährlich.\nDie Unterlagen sind aufzubewahren; die Größe spielt keine Rolle.\n"})
	e.mustCall(t, "write_file", map[string]any{"path": "chunks/chunk_002.md", "content": "Unrelated text about keys.\n"})
	for _, q := range []string{"Prüfung", "Pruefung", "Prufung", "PRÜFUNG", "jaehrlich", "Groesse", "Größe", "Grosse", "Aufzeichnung"} {
		out := e.search(t, map[string]any{"query": q})
		if !strings.HasPrefix(out, "chunks/chunk_001.md:") || !strings.Contains(out, "**") {
			t.Errorf("%q:\n%s", q, out)
		}
	}
	// Decomposed umlauts (u + combining diaeresis), as some PDFs give them.
	e.mustCall(t, "write_file", map[string]any{"path": "notes/nfd.md", "content": "Die Pru\u0308fpflicht gilt.\n"})
	if out := e.search(t, map[string]any{"query": "Prüfpflicht", "path": "notes/"}); !strings.HasPrefix(out, "notes/nfd.md:1:") {
		t.Errorf("decomposed umlaut:\n%s", out)
	}
}

func TestSearchPhrasesPathsAndLimits(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	e.mustCall(t, "write_file", map[string]any{"path": "chunks/chunk_001.md", "content": "Records must be kept for ten years.\n"})
	e.mustCall(t, "write_file", map[string]any{"path": "chunks/chunk_002.md", "content": "For years the records were kept in ten boxes.\n"})
	e.mustCall(t, "write_file", map[string]any{"path": "notes/summary.md", "content": "Records: kept for ten years (chunk 1).\n"})

	out := e.search(t, map[string]any{"query": `"kept for ten years"`})
	if !strings.Contains(out, "chunks/chunk_001.md:1:") || !strings.Contains(out, "notes/summary.md:1:") || strings.Contains(out, "chunk_002") {
		t.Errorf("phrase:\n%s", out)
	}
	out = e.search(t, map[string]any{"query": `"kept for ten years"`, "path": "chunks/"})
	if !strings.HasPrefix(out, "chunks/chunk_001.md:1: Records must be **kept** **for** **ten** **years**.") || strings.Contains(out, "notes/") {
		t.Errorf("phrase in chunks/:\n%s", out)
	}
	out = e.search(t, map[string]any{"query": "records ten years", "path": "chunks/chunk_002.md"})
	if !strings.HasPrefix(out, "chunks/chunk_002.md:1:") || strings.Contains(out, "chunk_001") {
		t.Errorf("one file:\n%s", out)
	}
	// input/policy.txt holds the fourth.
	out = e.search(t, map[string]any{"query": "records", "limit": 1})
	if strings.Count(out, ":1: ") != 1 || !strings.Contains(out, "3 more matching passages") {
		t.Errorf("limit 1:\n%s", out)
	}
	// Words and a phrase: the phrase must match, the words rank.
	out = e.search(t, map[string]any{"query": `boxes "ten years"`})
	if strings.Contains(out, "chunk_002") {
		t.Errorf("a hit without the phrase:\n%s", out)
	}
	if out := e.search(t, map[string]any{"query": "records", "path": "chunks/chunk_00"}); strings.Count(out, "chunks/") != 2 {
		t.Errorf("name prefix:\n%s", out)
	}
}

func TestSearchRegex(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	e.mustCall(t, "write_file", map[string]any{"path": "chunks/chunk_001.md", "content": "AC-2 Account Management\nSee AC-17 and IA-5(1).\nNothing here.\n"})
	e.mustCall(t, "write_file", map[string]any{"path": "notes/ids.md", "content": "ac-2 is done\n"})
	out := e.search(t, map[string]any{"query": `\b[A-Z]{2}-\d+\b`, "regex": true})
	want := "chunks/chunk_001.md:1: **AC-2** Account Management\nchunks/chunk_001.md:2: See **AC-17** and **IA-5**(1).\nno further hits\n"
	if out != want {
		t.Errorf("regex:\n%s\nwant:\n%s", out, want)
	}
	out = e.search(t, map[string]any{"query": `(?i)ac-2\b`, "regex": true, "path": "notes"})
	if out != "notes/ids.md:1: **ac-2** is done\nno further hits\n" {
		t.Errorf("case-insensitive regex in notes:\n%s", out)
	}
	// The index's own files are never searched.
	if out := e.search(t, map[string]any{"query": "creator-index", "regex": true}); !strings.HasPrefix(out, "no line matches") {
		t.Errorf("regex reached .agent/:\n%s", out)
	}
}

func TestSearchErrors(t *testing.T) {
	t.Parallel()
	e := searchEnv(t)
	for args, want := range map[string]string{
		`{"query":""}`:                             "the query is empty",
		`{"query":"   "}`:                          "the query is empty",
		`{"query":"?!"}`:                           "has no words to search for",
		`{"query":"a(b","regex":true}`:             "invalid regular expression",
		`{"query":"x","path":"../etc"}`:            "leaves the workspace",
		`{"query":"x","path":".agent/index"}`:      "not searched",
		`{"query":"x","limit":-1}`:                 "limit cannot be negative",
		`{"query":"x","regex":"yes"}`:              "regex",
		`{"query":"x","path":"escape/secret.txt"}`: "outside",
	} {
		_, err := e.call("search_files", args)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", args, err, want)
		}
	}
	if out := e.search(t, map[string]any{"query": "records", "limit": 500}); !strings.Contains(out, "(limit is at most 50)") {
		t.Errorf("limit over 50:\n%s", out)
	}
}

func TestSearchWithoutIndexScans(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	os.WriteFile(filepath.Join(e.job.Dir, "notes", "a.md"), []byte("Protokollierung aller Zugriffe\n"), 0o644)
	for _, tool := range SearchTools(e.job.Files, index.ScanOnly{FS: e.job.FS(), Reason: os.ErrPermission}) {
		e.reg.Add(tool)
	}
	if out := e.search(t, map[string]any{"query": "Protokoll", "regex": true}); !strings.HasPrefix(out, "notes/a.md:1: **Protokoll**ierung") {
		t.Errorf("scan without index:\n%s", out)
	}
	if _, err := e.call("search_files", `{"query":"Protokollierung"}`); err == nil || !strings.Contains(err.Error(), "regex: true") {
		t.Errorf("ranked search without an index: %v", err)
	}
}
