package workspace

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// newJob creates a job with one input document in a fresh root.
func newJob(t testing.TB) *Job {
	t.Helper()
	root := t.TempDir()
	doc := filepath.Join(t.TempDir(), "policy.txt")
	if err := os.WriteFile(doc, []byte("The operator must keep records for ten years.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := Create(filepath.Join(root, "ws"), CreateOptions{ID: "t1", Inputs: []string{doc}, Instructions: []byte("# How to work\n")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// outside makes a folder next to the job (outside it) holding secret.txt.
func outside(t testing.TB, j *Job) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(filepath.Dir(j.Dir)), "outside")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func symlink(t testing.TB, j *Job, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(j.Dir, name)); err != nil {
		t.Fatal(err)
	}
}

func TestCreateLaysOutTheJob(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	for _, f := range []string{"instructions.md", ".agent/job.json", "input/policy.txt"} {
		if _, err := os.Stat(filepath.Join(j.Dir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	for _, d := range folders {
		if fi, err := os.Stat(filepath.Join(j.Dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("missing folder %s", d)
		}
	}
	info, err := j.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.ID != "t1" || info.Status != StatusCreated || len(info.Inputs) != 1 {
		t.Fatalf("job.json = %+v", info)
	}
	in := info.Inputs[0]
	if in.Name != "policy.txt" || in.Bytes != 46 || len(in.SHA256) != 64 || !filepath.IsAbs(in.Source) {
		t.Fatalf("input record = %+v", in)
	}
	// No half-built folders remain next to the job.
	entries, _ := os.ReadDir(filepath.Dir(j.Dir))
	if len(entries) != 1 {
		t.Fatalf("root holds %d entries, want only the job folder", len(entries))
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	doc := filepath.Join(root, "a.txt")
	os.WriteFile(doc, []byte("xyz"), 0o644)
	other := filepath.Join(root, "sub")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "a.txt"), []byte("y"), 0o644)

	cases := []struct {
		name string
		opts CreateOptions
		want string
	}{
		{"bad id", CreateOptions{ID: "a/b", Inputs: []string{doc}}, "invalid job id"},
		{"id too long", CreateOptions{ID: strings.Repeat("x", 65), Inputs: []string{doc}}, "invalid job id"},
		{"id like a flag", CreateOptions{ID: "--verbose", Inputs: []string{doc}}, "not starting with '-'"},
		{"no input", CreateOptions{ID: "x"}, "no input document"},
		{"missing input", CreateOptions{ID: "x", Inputs: []string{filepath.Join(root, "nope.pdf")}}, "does not exist"},
		{"folder as input", CreateOptions{ID: "x", Inputs: []string{other}}, "not a regular file"},
		{"same name twice", CreateOptions{ID: "x", Inputs: []string{doc, filepath.Join(other, "a.txt")}}, "two input documents are named a.txt"},
		{"over the size limit", CreateOptions{ID: "x", Inputs: []string{doc}, MaxInputBytes: 1}, "is 3 bytes; the limit is 1 byte"},
		{"default size limit", CreateOptions{ID: "x", Inputs: []string{doc}}, ""},
		{"an invisible character", CreateOptions{ID: "x", Inputs: []string{named(t, root, "a\u200b.txt")}}, "cannot be used; rename the file"},
		{"only spaces", CreateOptions{ID: "x", Inputs: []string{named(t, root, "   ")}}, "cannot be used; rename the file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "ws")
			j, err := Create(ws, c.opts)
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				j.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
			if ids, _ := List(ws); len(ids) != 0 {
				t.Fatalf("a refused job left folders: %v", ids)
			}
		})
	}
}

func TestCreateRefusesExistingID(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	root := filepath.Dir(j.Dir)
	_, err := Create(root, CreateOptions{ID: "t1", Inputs: []string{filepath.Join(j.Dir, "input", "policy.txt")}})
	if !errors.Is(err, ErrJobExists) || !strings.Contains(err.Error(), "creator resume --job t1") {
		t.Fatalf("error = %v", err)
	}
}

func TestOpenAndList(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	root := filepath.Dir(j.Dir)
	if _, err := Open(root, "nope"); !errors.Is(err, ErrNoJob) {
		t.Fatalf("Open(nope) = %v, want ErrNoJob", err)
	}
	doc := filepath.Join(j.Dir, "input", "policy.txt")
	j2, err := Create(root, CreateOptions{Inputs: []string{doc}, Now: func() time.Time { return time.Now().Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if err := ValidateID(j2.ID); err != nil {
		t.Fatalf("generated id %q is invalid: %v", j2.ID, err)
	}
	os.MkdirAll(filepath.Join(root, "not-a-job"), 0o755)
	ids, err := List(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "t1" || ids[1] != j2.ID {
		t.Fatalf("List = %v, want [t1 %s]", ids, j2.ID)
	}
	if ids, err := List(filepath.Join(root, "missing")); err != nil || len(ids) != 0 {
		t.Fatalf("List of a missing root = %v, %v", ids, err)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	out := outside(t, j)
	os.MkdirAll(filepath.Join(j.Dir, "notes", "deep"), 0o755)
	os.WriteFile(filepath.Join(j.Dir, "notes", "a.md"), []byte("a"), 0o644)
	symlink(t, j, out, "abs-out")                          // absolute, outside
	symlink(t, j, "../../outside", "rel-out")              // relative, outside
	symlink(t, j, "notes", "notes-link")                   // relative, inside
	symlink(t, j, filepath.Join(j.Dir, "notes"), "abs-in") // absolute, inside
	symlink(t, j, ".agent", "agent-link")                  // leads into protected state
	symlink(t, j, "loop-b", "loop-a")
	symlink(t, j, "loop-a", "loop-b")
	symlink(t, j, "../../outside/new.txt", "notes/dangling-out") // dangling, outside
	symlink(t, j, "a.md", "notes/a-link")

	cases := []struct {
		path   string
		access Access
		want   string // resolved path, or "" when refused
		errHas string
	}{
		{"notes/a.md", Read, "notes/a.md", ""},
		{"./notes//a.md", Read, "notes/a.md", ""},
		{"notes/deep/../a.md", Write, "notes/a.md", ""},
		{"new/folder/file.md", Write, "new/folder/file.md", ""},
		{".", Read, ".", ""},
		{"", Read, "", "is empty"},
		{"../x", Read, "", "leaves the workspace"},
		{"notes/../../x", Write, "", "leaves the workspace"},
		{"..", Read, "", "leaves the workspace"},
		{"/etc/passwd", Read, "", "is absolute"},
		{`C:\Windows\x`, Read, "", `contains '\'`},
		{"C:/Windows/x", Read, "", "is absolute"},
		{`notes\a.md`, Read, "", `contains '\'`},
		{"~/x", Read, "", "home folder"},
		{"a\x00b", Read, "", "NUL byte"},
		{"a\nb", Write, "", "control character"},
		{strings.Repeat("a/", 600), Read, "", "limited to 1024 bytes"},
		{strings.Repeat("n", 256), Write, "", "longer than 255 bytes"},
		{"abs-out/secret.txt", Read, "", "leads outside the workspace through the symbolic link 'abs-out'"},
		{"rel-out/secret.txt", Read, "", "leads outside the workspace"},
		{"rel-out/new.txt", Write, "", "leads outside the workspace"},
		{"rel-out", Read, "", "leads outside the workspace"},
		{"notes/dangling-out", Write, "", "leads outside the workspace"},
		{"notes-link/a.md", Read, "notes/a.md", ""},
		{"abs-in/a.md", Write, "notes/a.md", ""},
		{"notes/a-link", Read, "notes/a.md", ""},
		{"loop-a/x", Read, "", "too many levels of symbolic links"},
		{"notes/a.md/x", Read, "", "which is a file, not a folder"},
		{".agent/job.json", Read, ".agent/job.json", ""},
		{".agent/job.json", Write, "", "is inside .agent/"},
		{".agent/evil", Write, "", "is inside .agent/"},
		{".AGENT/evil", Write, "", "is inside .agent/"},
		{"agent-link/job.json", Write, "", "it leads to '.agent/job.json'"},
		{"input/policy.txt", Read, "input/policy.txt", ""},
		{"input/policy.txt", Write, "", "is inside input/"},
		{"input/new.txt", Write, "", "is inside input/"},
		{"input", Delete, "", "is inside input/"},
		{"plan.json", Read, "plan.json", ""},
		{"plan.json", Write, "", "is managed by the planning tools"},
		{"plan.json", Delete, "", "is managed by the planning tools"},
		{"progress.md", Write, "", "the job's log"},
		{".", Write, "", "the job folder itself"},
		{"notes/..", Delete, "", "the job folder itself"},
		{"abs-out", Delete, "abs-out", ""}, // removes the link itself
		{"agent-link", Delete, "agent-link", ""},
	}
	for _, c := range cases {
		got, err := j.Resolve(c.path, c.access)
		if c.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("Resolve(%q, %d) = %q, %v; want error containing %q", c.path, c.access, got, err, c.errHas)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q, %d) = %q, %v; want %q", c.path, c.access, got, err, c.want)
		}
	}
}

func TestLockRemovesCrashLeftovers(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	// A crash between writing a temporary file and renaming it leaves the
	// temporary file; taking the lock cleans it up.
	leftover := filepath.Join(j.Dir, "notes", ".a.md.creator-tmp-0123")
	os.WriteFile(leftover, []byte("half"), 0o644)
	if err := j.Lock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temporary file survived Lock: %v", err)
	}
	if pid, held := j.Holder(); !held || pid != os.Getpid() {
		t.Fatalf("Holder = %d, %v", pid, held)
	}
	if err := j.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, held := j.Holder(); held {
		t.Fatal("lock still held after Unlock")
	}
}

const lockHelperEnv = "WORKSPACE_TEST_LOCK_HOLDER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(lockHelperEnv); spec != "" {
		holdLock(spec)
		return
	}
	os.Exit(m.Run())
}

// holdLock is the second process of the lock tests: it takes the
// lock (recording a review's address when the spec names one), says so,
// and keeps it until its stdin closes.
func holdLock(spec string) {
	parts := strings.SplitN(spec, "|", 3)
	root, id := parts[0], parts[1]
	j, err := Open(root, id)
	if err != nil {
		os.Exit(3)
	}
	if err := j.Lock(); err != nil {
		os.Exit(4)
	}
	if len(parts) == 3 {
		if err := j.RecordReview(parts[2]); err != nil {
			os.Exit(5)
		}
	}
	os.Stdout.WriteString("locked\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	j.Close()
}

func TestSecondProcessIsRefused(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	root := filepath.Dir(j.Dir)
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+root+"|"+j.ID)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("holder said %q, %v", line, err)
	}

	if pid, held := j.Holder(); !held || pid != cmd.Process.Pid {
		t.Fatalf("Holder = %d, %v; want %d, true", pid, held, cmd.Process.Pid)
	}
	// Refused at once: without a pause between tries, which a clock
	// could not tell from a busy machine.
	pauses := 0
	j.Locker.pause = func(time.Duration) { pauses++ }
	err = j.Lock()
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != cmd.Process.Pid {
		t.Fatalf("Lock while another process holds it = %v; want LockedError naming pid %d", err, cmd.Process.Pid)
	}
	if !strings.Contains(err.Error(), "in use by another creator process (pid") {
		t.Fatalf("message = %q", err)
	}
	if pauses != 0 {
		t.Fatalf("Lock paused %d times before refusing", pauses)
	}
	j.Locker.pause = nil

	stdin.Close() // the holder exits and releases the lock
	if err := cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	if err := j.Lock(); err != nil {
		t.Fatalf("Lock after the holder exited: %v", err)
	}
}

func TestUpdateInfo(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	info, err := j.UpdateInfo(func(i *Info) { i.Status = StatusRunning; i.Usage.Steps = 3 })
	if err != nil {
		t.Fatal(err)
	}
	again, _ := j.Info()
	if again.Status != StatusRunning || again.Usage.Steps != 3 || !again.UpdatedAt.Equal(info.UpdatedAt) {
		t.Fatalf("job.json after update = %+v", again)
	}
}

func TestResolveRoot(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string, container, writable bool) Environment {
		return Environment{
			Getenv:      func(k string) string { return vars[k] },
			InContainer: func() bool { return container },
			Writable:    func(string) bool { return writable },
		}
	}
	cwd, _ := os.Getwd()
	cases := []struct {
		flag string
		env  Environment
		want string
	}{
		{"/data/jobs", env(map[string]string{RootEnv: "/env"}, true, true), "/data/jobs"},
		{"", env(map[string]string{RootEnv: "/env"}, true, true), "/env"},
		{"", env(nil, true, true), "/workspace"},
		{"", env(nil, true, false), filepath.Join(cwd, "workspace")},
		{"", env(nil, false, true), filepath.Join(cwd, "workspace")},
		{"rel", env(nil, false, false), filepath.Join(cwd, "rel")},
	}
	for _, c := range cases {
		got, err := ResolveRoot(c.flag, c.env)
		if err != nil || got != c.want {
			t.Errorf("ResolveRoot(%q) = %q, %v; want %q", c.flag, got, err, c.want)
		}
	}
}

type recorder struct{ events []string }

func (r *recorder) FileChanged(rel string) { r.events = append(r.events, "changed "+rel) }
func (r *recorder) FileRemoved(rel string) { r.events = append(r.events, "removed "+rel) }

func TestWatcherHearsEveryChange(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	r := &recorder{}
	j.Watch(r)
	if _, err := j.WriteFile("notes/./a.md", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := j.WriteFile("../x", []byte("x")); err == nil {
		t.Fatal("a refused write succeeded")
	}
	j.WriteInternal("plan.json", []byte("{}"))
	j.AppendInternal("progress.md", []byte("- done\n"))
	if _, _, err := j.Remove("notes/a.md"); err != nil {
		t.Fatal(err)
	}
	j.Watch(nil)
	j.WriteInternal("plan.json", []byte("{}"))
	want := "changed notes/a.md|changed plan.json|changed progress.md|removed notes/a.md"
	if got := strings.Join(r.events, "|"); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
}

// While Quiesce runs, no file of the job changes through the Job: each
// kind of change waits for it, and goes on after.
func TestQuiesceHoldsEveryChange(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	if _, err := j.WriteFile("notes/old.md", []byte("old")); err != nil {
		t.Fatal(err)
	}
	log, err := j.OpenLog(".agent/test.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	changes := map[string]func() error{
		"WriteFile":      func() error { _, err := j.WriteFile("notes/a.md", []byte("a")); return err },
		"Remove":         func() error { _, _, err := j.Remove("notes/old.md"); return err },
		"WriteInternal":  func() error { return j.WriteInternal(".agent/x.json", []byte("{}")) },
		"AppendInternal": func() error { return j.AppendInternal(".agent/y.jsonl", []byte("{}\n")) },
		"a log's Write":  func() error { _, err := log.Write([]byte("{}\n")); return err },
		"a commit": func() error {
			p, err := j.PrepareFile("notes/b.md", []byte("b"))
			if err == nil {
				_, err = p.Commit()
			}
			return err
		},
	}
	for name, change := range changes {
		done := make(chan error, 1)
		err := j.Quiesce(func() error {
			go func() { done <- change() }()
			select {
			case err := <-done:
				return fmt.Errorf("%s went through while the job was held (%v)", name, err)
			case <-time.After(50 * time.Millisecond):
				return nil
			}
		})
		if err != nil {
			t.Error(err)
			continue
		}
		if err := <-done; err != nil {
			t.Errorf("%s after the hold: %v", name, err)
		}
	}
}

// The watcher hears of a change outside the gate: a checkpoint's Quiesce
// never waits for the index's work on a change.
func TestWatcherIsToldOutsideTheGate(t *testing.T) {
	t.Parallel()
	j := newJob(t)
	w := &heldWatcher{told: make(chan string, 1), release: make(chan struct{})}
	j.Watch(w)
	done := make(chan error, 1)
	go func() { _, err := j.WriteFile("notes/a.md", []byte("a")); done <- err }()
	if rel := <-w.told; rel != "notes/a.md" {
		t.Fatalf("told of %q", rel)
	}
	// The watcher holds its call; a Quiesce must still go through.
	quiesced := make(chan error, 1)
	go func() { quiesced <- j.Quiesce(func() error { return nil }) }()
	select {
	case err := <-quiesced:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Quiesce waited for the watcher")
	}
	close(w.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// heldWatcher says which file changed, then holds the call until released.
type heldWatcher struct {
	told    chan string
	release chan struct{}
}

func (w *heldWatcher) FileChanged(rel string) { w.told <- rel; <-w.release }
func (w *heldWatcher) FileRemoved(string)     {}

// named writes a small document named name in dir.
func named(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("Backups must be encrypted.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A document's name is taken without spaces at its ends: the name the
// agent and the Markdown it writes use.
func TestInputNameTrimmed(t *testing.T) {
	t.Parallel()
	doc := named(t, t.TempDir(), "  policy.md ")
	j, err := Create(filepath.Join(t.TempDir(), "ws"), CreateOptions{ID: "x", Inputs: []string{doc}})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	info, err := j.Info()
	if err != nil || len(info.Inputs) != 1 || info.Inputs[0].Name != "policy.md" {
		t.Fatalf("inputs %+v, %v", info.Inputs, err)
	}
	if _, err := os.Stat(filepath.Join(j.Dir, "input", "policy.md")); err != nil {
		t.Error(err)
	}
}
