package iostreams

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Output goes to Out without a path or with "-", else to the file, whole;
// a file that cannot be written is named.
func TestWriteOutput(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := &IOStreams{Out: &out}
	for _, path := range []string{"", "-"} {
		out.Reset()
		if toFile, err := s.WriteOutput(path, []byte("text")); toFile || err != nil || out.String() != "text" {
			t.Errorf("%q: to file %v, %v, out %q", path, toFile, err, out.String())
		}
	}
	out.Reset()
	file := filepath.Join(t.TempDir(), "a.txt")
	if toFile, err := s.WriteOutput(file, []byte("text")); !toFile || err != nil || out.Len() != 0 {
		t.Errorf("file: to file %v, %v, out %q", toFile, err, out.String())
	}
	if data, _ := os.ReadFile(file); string(data) != "text" {
		t.Errorf("file holds %q", data)
	}
	if _, err := s.WriteOutput(filepath.Join(file, "under-a-file"), []byte("x")); err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Errorf("unwritable: %v", err)
	}
	out.Reset()
	if err := s.WriteJSON(map[string]int{"a": 1}); err != nil || out.String() != "{\n  \"a\": 1\n}\n" {
		t.Errorf("json %q, %v", out.String(), err)
	}
}
