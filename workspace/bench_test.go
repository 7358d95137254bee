package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Every tool call resolves at least one path; this is its cost.
func BenchmarkResolve(b *testing.B) {
	j := newJob(b)
	os.MkdirAll(filepath.Join(j.Dir, "requirements", "req_001"), 0o755)
	symlink(b, j, "requirements", "reqs")
	b.ResetTimer()
	for b.Loop() {
		if _, err := j.Resolve("reqs/req_001/final.json", Write); err != nil {
			b.Fatal(err)
		}
	}
}

// A chunk-sized atomic write, fsyncs included.
func BenchmarkWriteFile(b *testing.B) {
	j := newJob(b)
	data := bytes.Repeat([]byte("The operator must keep records.\n"), 200) // 6.4 KB
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := j.WriteFile("chunks/chunk_001.md", data); err != nil {
			b.Fatal(err)
		}
	}
}
