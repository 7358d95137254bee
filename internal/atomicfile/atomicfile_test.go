package atomicfile

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestWriteCreatesAndReplaces(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "a", "b", "file.txt")
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()

	n, err := WriteIn(root, "a/b/file.txt", strings.NewReader("first"), 0o644)
	if err != nil || n != 5 {
		t.Fatalf("WriteIn = %d, %v", n, err)
	}
	if err := Write(target, []byte("second"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(target)
	if string(got) != "second" {
		t.Fatalf("content = %q", got)
	}
	assertNoTemps(t, filepath.Dir(target))
}

// A crash after the temporary file is written but before the rename must
// leave the old file untouched.
func TestCrashBeforeRenameKeepsOldFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "plan.json")
	if err := Write(target, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	crash := errors.New("simulated crash")
	var sawTemp bool
	w := writer{beforeRename: func(tmp string) error {
		// The complete new content exists only under the temporary name.
		data, err := os.ReadFile(filepath.Join(dir, tmp))
		sawTemp = err == nil && string(data) == "new content"
		return crash
	}}

	if err := w.write(target, []byte("new content"), 0o644); !errors.Is(err, crash) {
		t.Fatalf("Write error = %v, want the simulated crash", err)
	}
	if !sawTemp {
		t.Fatal("the new content was not complete in the temporary file before the rename")
	}
	got, _ := os.ReadFile(target)
	if string(got) != "old content" {
		t.Fatalf("target = %q after a crash before rename, want the old content", got)
	}
	assertNoTemps(t, dir)
}

// ReplaceIn replaces as WriteIn does, the content whole under the
// temporary name before the rename, and leaves the old file on a crash
// before it.
func TestReplaceInKeepsTheContentWhole(t *testing.T) {
	t.Parallel()
	dir, root := tempRoot(t)
	if n, err := ReplaceIn(root, "r/final.json", strings.NewReader("first"), 0o644); err != nil || n != 5 {
		t.Fatalf("ReplaceIn = %d, %v", n, err)
	}
	crash := errors.New("simulated crash")
	var sawTemp bool
	w := writer{folderUnsynced: true, beforeRename: func(tmp string) error {
		data, err := root.ReadFile(tmp)
		sawTemp = err == nil && string(data) == "second"
		return crash
	}}
	if _, err := w.writeIn(root, "r/final.json", strings.NewReader("second"), 0o644); !errors.Is(err, crash) || !sawTemp {
		t.Fatalf("crash before the rename: %v, temporary file whole: %v", err, sawTemp)
	}
	if got, _ := root.ReadFile("r/final.json"); string(got) != "first" {
		t.Fatalf("after a crash before the rename: %q", got)
	}
	if _, err := ReplaceIn(root, "r/final.json", strings.NewReader("third"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := root.ReadFile("r/final.json"); string(got) != "third" {
		t.Fatalf("content %q", got)
	}
	assertNoTemps(t, filepath.Join(dir, "r"))
}

// A prepared file leaves the target as it is until its commit; an abort
// leaves nothing behind.
func TestPrepareInCommitsOrAborts(t *testing.T) {
	t.Parallel()
	dir, root := tempRoot(t)
	if _, err := WriteIn(root, "f.json", strings.NewReader("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PrepareIn(root, "f.json", strings.NewReader("dropped"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := root.ReadFile("f.json"); string(got) != "old" {
		t.Errorf("before the commit: %q", got)
	}
	p.Abort()
	assertNoTemps(t, dir)
	if p, err = PrepareIn(root, "f.json", strings.NewReader("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := root.ReadFile(p.tmp); err != nil || string(data) != "new" {
		t.Errorf("the prepared file: %q %v", data, err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := root.ReadFile("f.json"); string(got) != "new" {
		t.Errorf("after the commit: %q", got)
	}
	assertNoTemps(t, dir)
}

const writerEnv = "ATOMICFILE_TEST_WRITER"

// TestMain lets the test binary act as a writer process that the kill test
// can stop with SIGKILL at any moment.
func TestMain(m *testing.M) {
	if target := os.Getenv(writerEnv); target != "" {
		runWriter(target)
		return
	}
	os.Exit(m.Run())
}

// versions are large enough that a write spans many system calls.
func version(i int) []byte {
	return bytes.Repeat([]byte{byte('a' + i%26)}, 2<<20)
}

func runWriter(target string) {
	for i := 0; ; i++ {
		if err := Write(target, version(i), 0o644); err != nil {
			os.Exit(3)
		}
	}
}

func TestKilledWriterLeavesWholeFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "data.bin")
	if err := Write(target, version(0), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for round := range 12 {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), writerEnv+"="+target)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(5+rand.IntN(60)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()

		data, err := os.ReadFile(target)
		if err != nil {
			t.Fatalf("round %d: target unreadable after kill: %v", round, err)
		}
		if len(data) != 2<<20 || !bytes.Equal(data, bytes.Repeat(data[:1], len(data))) {
			t.Fatalf("round %d: target torn after kill: %d bytes, starts %q", round, len(data), data[:min(8, len(data))])
		}
	}
}

// tempRoot is a new temporary folder, opened as a root.
func tempRoot(t *testing.T) (string, *os.Root) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return dir, root
}

func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if IsTemp(e.Name()) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// An output path that is not a regular file is written into, never
// replaced: a FIFO stays a FIFO, a link stays a link and its target gets
// the data, and /dev/null stays the device it is.
func TestWriteIntoSpecialFilesAndLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	got := make(chan []byte)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		var b bytes.Buffer
		b.ReadFrom(f)
		got <- b.Bytes()
	}()
	if err := Write(fifo, []byte("through the pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data := <-got; string(data) != "through the pipe" {
		t.Fatalf("read from the FIFO: %q", data)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v, %v", fi.Mode(), err)
	}

	target := filepath.Join(dir, "real.txt")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.txt")
	os.Symlink("real.txt", link)
	dangling := filepath.Join(dir, "dangling.txt")
	os.Symlink("later.txt", dangling)
	for _, p := range []string{link, dangling} {
		if err := Write(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Lstat(p); fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link", p)
		}
	}
	for _, p := range []string{target, filepath.Join(dir, "later.txt")} {
		if data, _ := os.ReadFile(p); string(data) != "new" {
			t.Fatalf("%s holds %q", p, data)
		}
	}

	if err := Write(os.DevNull, []byte("nothing"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v, %v", os.DevNull, fi.Mode(), err)
	}
	if err := Write(dir, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("writing to a folder: %v", err)
	}
}
