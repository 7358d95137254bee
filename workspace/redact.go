package workspace

import (
	"io"
	"os"
	"path"
	"strings"

	"creator/internal/jsonl"
	"creator/internal/secret"
)

// Redact makes every later write under the job replace each secret (the
// model server's API key), and any Authorization value, with
// secret.Redacted: a server that echoes the key in an error message, or a
// model that repeats it, must not get it written to disk. The documents'
// own text (the copies in input/ and the chunks) is never changed: citations
// quote it. Secrets shorter than secret.MinLength are left alone.
func (j *Job) Redact(secrets ...string) { j.redactor.Set(secrets...) }

// redact returns what is written to rel.
func redact(r *secret.Redactor, rel string, data []byte) []byte {
	top, _, _ := strings.Cut(path.Clean(rel), "/")
	if top == "input" || top == "chunks" {
		return data
	}
	return r.Apply(data)
}

// OpenLog opens a log file of the job for appending (created when
// missing). What is written to it is redacted like every other write; it
// is not flushed to disk per write, for logs written often.
func (in *Internal) OpenLog(rel string) (io.WriteCloser, error) {
	if dir := path.Dir(rel); dir != "." {
		if err := in.root.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	f, err := in.root.OpenFile(rel, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := jsonl.CutTornTail(f); err != nil {
		f.Close()
		return nil, err
	}
	return &logFile{f: f, rel: rel, redactor: in.redactor, whole: &in.whole, changes: in.changes}, nil
}

type logFile struct {
	f        *os.File
	rel      string
	redactor *secret.Redactor
	whole    *wholeLogs
	changes  *changes
}

// Write appends one record whole (the gate held, so that a checkpoint
// never reads half of it).
func (l *logFile) Write(p []byte) (int, error) {
	defer l.changes.changing()()
	data := redact(l.redactor, l.rel, p)
	_, err := l.f.Write(data)
	l.whole.wrote(l.rel, data, err)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

func (l *logFile) Close() error { return l.f.Close() }
