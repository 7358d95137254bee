package jsonl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type rec struct {
	N int    `json:"n"`
	S string `json:"s,omitempty"`
}

// The one rule of every log: a torn last line is left out, whatever it
// holds, and a complete line that is not a record is damage.
func TestTornLastLine(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		data string
		want int
		err  string
	}{
		"whole":               {"{\"n\":1}\n{\"n\":2}\n", 2, ""},
		"torn mid-record":     {"{\"n\":1}\n{\"n\":2}\n{\"n\":3,\"s\":\"ab", 2, ""},
		"torn before newline": {"{\"n\":1}\n{\"n\":2}", 1, ""},
		"blank lines":         {"\n{\"n\":1}\n\n  \n", 1, ""},
		"damage inside":       {"{\"n\":1}\nnot json\n{\"n\":3}\n", 0, "events.jsonl line 2 is damaged"},
		"damaged last line":   {"{\"n\":1}\n{\"n\"\n", 0, "events.jsonl line 2 is damaged"},
		"empty":               {"", 0, ""},
	} {
		got, err := Parse[rec]("events.jsonl", []byte(c.data))
		switch {
		case c.err == "" && (err != nil || len(got) != c.want):
			t.Errorf("%s: %d records, %v; want %d", name, len(got), err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", name, err, c.err)
		}
	}
}

// A line longer than the reader's buffer is read whole.
func TestLongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300<<10)
	got, err := Parse[rec]("t.jsonl", []byte("{\"n\":1,\"s\":\""+long+"\"}\n{\"n\":2}\n"))
	if err != nil || len(got) != 2 || got[0].S != long {
		t.Fatalf("%d records, %v", len(got), err)
	}
}

func TestLastAndComplete(t *testing.T) {
	t.Parallel()
	data := []byte("{\"n\":1}\n{\"n\":2,\"s\":\"x\"}\nbroken\n{\"n\":4}\n{\"n\":5")
	if got := string(Complete(data)); !strings.HasSuffix(got, "{\"n\":4}\n") {
		t.Errorf("Complete = %q", got)
	}
	if v, ok := Last[rec](data, nil); !ok || v.N != 4 {
		t.Errorf("Last = %+v %v", v, ok)
	}
	if v, ok := Last(data, func(r rec) bool { return r.S != "" }); !ok || v.N != 2 {
		t.Errorf("Last with a condition = %+v %v", v, ok)
	}
	if _, ok := Last[rec]([]byte("{\"n\":1"), nil); ok {
		t.Error("a torn record was taken")
	}
	line, err := Line(rec{N: 7})
	if err != nil || string(line) != "{\"n\":7}\n" {
		t.Errorf("Line = %q %v", line, err)
	}
}

// A torn record is cut off before the next append, also one longer than
// the block read back at a time; a whole log stays as it is.
func TestCutTornTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, c := range map[string]struct{ data, want string }{
		"whole":      {"{\"a\":1}\n", "{\"a\":1}\n"},
		"torn":       {"{\"a\":1}\n{\"b\":", "{\"a\":1}\n"},
		"long torn":  {"{\"a\":1}\n{\"b\":\"" + strings.Repeat("y", 200_000), "{\"a\":1}\n"},
		"no newline": {"{\"b\":2", ""},
		"empty":      {"", ""},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		os.WriteFile(p, []byte(c.data), 0o644)
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		err = CutTornTail(f)
		f.Close()
		if data, _ := os.ReadFile(p); err != nil || string(data) != c.want {
			t.Errorf("%s: %q, %v; want %q", name, data, err, c.want)
		}
	}
}
