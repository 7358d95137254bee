package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"creator/internal/secret"
)

// Every way the program and the agent's tools write under a job replaces
// the API key and Authorization values; the documents' own text is kept
// as it is, and a secret too short to be told from a word is left alone.
func TestRedactKeepsSecretsOutOfTheJob(t *testing.T) {
	t.Parallel()
	const key = "sk-live-0123456789abcdef"
	j := newJob(t)
	j.Redact(key, "abc", "  ")
	echo := "server said: Incorrect API key provided: " + key + "\nAuthorization: Bearer tok-998877665544\n" +
		`{"authorization": "Bearer tok-112233445566"} abc`
	if err := j.WriteInternal(".agent/x.json", []byte(echo)); err != nil {
		t.Fatal(err)
	}
	if err := j.AppendInternal("notes/errors.md", []byte(echo)); err != nil {
		t.Fatal(err)
	}
	if _, err := j.WriteFile("notes/model.md", []byte(echo)); err != nil {
		t.Fatal(err)
	}
	log, err := j.OpenLog(".agent/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if n, err := log.Write([]byte(echo)); err != nil || n != len(echo) {
		t.Fatalf("log write: %d, %v", n, err)
	}
	log.Close()
	for _, rel := range []string{".agent/x.json", "notes/errors.md", "notes/model.md", ".agent/events.jsonl"} {
		data, err := os.ReadFile(filepath.Join(j.Dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		got := string(data)
		for _, secret := range []string{key, "tok-998877665544", "tok-112233445566"} {
			if strings.Contains(got, secret) {
				t.Errorf("%s keeps %s:\n%s", rel, secret, got)
			}
		}
		if !strings.Contains(got, "provided: "+secret.Redacted) || !strings.Contains(got, "Bearer "+secret.Redacted) || !strings.HasSuffix(got, " abc") {
			t.Errorf("%s was not redacted as expected:\n%s", rel, got)
		}
	}
	// The document's text is what citations quote: never changed.
	for _, rel := range []string{"input/copy.txt", "chunks/chunk_001.md"} {
		if err := j.WriteInternal(rel, []byte(echo)); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(filepath.Join(j.Dir, rel)); string(data) != echo {
			t.Errorf("%s was changed:\n%s", rel, data)
		}
	}
}
