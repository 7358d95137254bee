package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"creator/internal/coverage"
	"creator/internal/job"

	"creator/internal/badfiles"
	"creator/internal/fakellm"
	"creator/internal/llm"
	"creator/internal/requirement"
	"creator/internal/telemetry"
	"creator/internal/transcript"
	"creator/workspace"
)

// runLimited runs creator as a separate process and kills it after limit:
// a hang is a failure, not a stuck test.
func runLimited(t *testing.T, limit time.Duration, args ...string) (code int, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(cleanEnv(), mainEnv+"=1")
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("creator %s did not end within %s:\n%s", strings.Join(args, " "), limit, out)
	}
	if strings.Contains(string(out), "panic:") || strings.Contains(string(out), "goroutine ") {
		t.Fatalf("creator %s panicked:\n%s", strings.Join(args, " "), out)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// cleanEnv is the environment without model settings, so the built-in
// model runs.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !slices.Contains(modelEnv, k) {
			env = append(env, kv)
		}
	}
	return env
}

// listTree lists every path under dir, for checking that nothing appeared
// where it should not.
func listTree(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = true
		}
		return nil
	})
	return out
}

// Every document of the hostile corpus is refused with a clear error before
// a job exists, or runs to a normal end; none panics, hangs or writes
// outside its job.
func TestHostileDocuments(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as a separate process")
	}
	base := t.TempDir()
	docs := filepath.Join(base, "docs")
	os.MkdirAll(docs, 0o755)
	files := badfiles.Files()
	for _, f := range files {
		os.WriteFile(filepath.Join(docs, f.Name), f.Data, 0o644)
	}
	// A huge sparse file: too large to read, refused at once.
	huge, _ := os.Create(filepath.Join(docs, "huge.txt"))
	huge.Truncate(300 << 20)
	huge.Close()
	files = append(files, badfiles.File{Name: "huge.txt", Refused: true, Error: "documents over"})

	root := filepath.Join(base, "ws")
	before := listTree(t, base)
	for _, f := range files {
		t.Run(f.Name, func(t *testing.T) {
			id := strings.NewReplacer(".", "-").Replace(f.Name)
			code, out := runLimited(t, 60*time.Second, "run", "--workspace", root, "--job", id, "--quiet", filepath.Join(docs, f.Name))
			jobDir := filepath.Join(root, "job_"+id)
			if f.Refused {
				if code != exitFailure || !strings.Contains(out, f.Error) || !strings.Contains(out, "no job was created") {
					t.Fatalf("exit %d, want 1 with %q:\n%s", code, f.Error, out)
				}
				if _, err := os.Stat(jobDir); err == nil {
					t.Fatal("a job was created for a refused document")
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			if _, err := os.Stat(filepath.Join(jobDir, "output", "requirements.json")); err != nil {
				t.Fatal(err)
			}
		})
	}
	// Nothing appeared outside the jobs: not next to the documents, not in
	// the workspace root beside the job folders, not where the injected
	// text asked for it.
	after := listTree(t, base)
	for p := range after {
		if before[p] || p == "ws" || strings.HasPrefix(p, filepath.Join("ws", "job_")) {
			continue
		}
		t.Errorf("%s appeared outside the jobs", p)
	}
	for _, p := range []string{"/tmp/creator-escape.txt", filepath.Join(root, "escaped.txt"), filepath.Join(base, "escaped.txt")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}

// A model that tries to leave the workspace or break the job's own files is
// refused call by call with a tool error, the job goes on to complete, and
// nothing outside the job — nor its input, plan or machine state — changes.
func TestHostileToolCalls(t *testing.T) {
	t.Parallel()
	c := func(name string, a map[string]any) llm.ToolCall {
		data, _ := json.Marshal(a)
		return llm.ToolCall{Name: name, Arguments: string(data)}
	}
	longPath := "notes/" + strings.Repeat("deep/", 300) + "x.md"
	hostile := []struct {
		call llm.ToolCall
		want string // in the error
	}{
		{c("read_file", map[string]any{"path": "../outside/secret.txt"}), "leaves the workspace"},
		{c("read_file", map[string]any{"path": "/etc/passwd"}), "absolute"},
		{c("read_file", map[string]any{"path": "escape/secret.txt"}), "outside"},
		{c("read_file", map[string]any{"path": "notes/secret-link"}), "outside"},
		{c("list_files", map[string]any{"path": ".."}), "leaves the workspace"},
		{c("write_file", map[string]any{"path": "escape/planted.txt", "content": "x"}), "outside"},
		{c("write_file", map[string]any{"path": "notes/a\u0000b.md", "content": "x"}), "NUL"},
		{c("write_file", map[string]any{"path": `notes\..\..\..\outside\win.txt`, "content": "x"}), "separate folders with '/'"},
		{c("write_file", map[string]any{"path": "C:/Windows/x.txt", "content": "x"}), "is absolute"},
		{c("write_file", map[string]any{"path": longPath, "content": "x"}), "long"},
		{c("write_file", map[string]any{"path": ".agent/job.json", "content": "{}"}), ".agent"},
		{c("write_file", map[string]any{"path": "input/policy.txt", "content": "changed"}), "input"},
		{c("write_file", map[string]any{"path": "plan.json", "content": "{}"}), "plan"},
		{c("write_file", map[string]any{"path": "notes/huge.md", "content": strings.Repeat("x", 6<<20)}), "one write is limited to"},
		{c("write_file", map[string]any{"path": "notes/binary.md", "content": "ELF\u0000\u0001\u0002"}), "NUL"},
		{c("create_folder", map[string]any{"path": "../outside/new"}), "leaves the workspace"},
		{c("delete_file", map[string]any{"path": "input"}), "input"},
		{c("delete_file", map[string]any{"path": "input/policy.txt"}), "input"},
		{c("delete_file", map[string]any{"path": "../outside/secret.txt"}), "leaves the workspace"},
		{c("edit_file", map[string]any{"path": "../outside/secret.txt", "old_text": "secret", "new_text": "gone"}), "leaves the workspace"},
		{c("search_files", map[string]any{"query": "secret", "path": "../outside"}), "leaves the workspace"},
	}
	benign := map[string][]llm.ToolCall{
		"read_file":     {c("read_file", map[string]any{"path": "instructions.md", "limit": 1})},
		"list_files":    {c("list_files", map[string]any{})},
		"write_file":    {c("write_file", map[string]any{"path": "notes/ok.md", "content": "fine\n"})},
		"create_folder": {c("create_folder", map[string]any{"path": "notes/sub"})},
		"delete_file":   {c("write_file", map[string]any{"path": "notes/tmp.md", "content": "x"}), c("delete_file", map[string]any{"path": "notes/tmp.md"})},
		"edit_file":     {c("write_file", map[string]any{"path": "notes/ok.md", "content": "fine\n"}), c("edit_file", map[string]any{"path": "notes/ok.md", "old_text": "fine", "new_text": "good"})},
		"search_files":  {c("search_files", map[string]any{"query": "fine"})},
	}
	// Each hostile call is followed by a harmless one of the same tool, as a
	// model would go on after an error.
	var steps [][]llm.ToolCall
	for _, h := range hostile {
		steps = append(steps, append([]llm.ToolCall{h.call}, benign[h.call.Name]...))
	}
	steps = append(steps, fakellm.SmallJob(testDoc, testQuote)...)
	e := newJobEnv(t, fakellm.Script(steps...))

	// Outside the job: a folder with a secret, and links into it that the
	// job folder will hold.
	outside := filepath.Join(filepath.Dir(e.root), "outside")
	os.MkdirAll(outside, 0o755)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	e.srv.OnRequest(func(r fakellm.Request) {
		if r.N == 1 {
			os.Symlink(outside, filepath.Join(e.jobDir("h"), "escape"))
			os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(e.jobDir("h"), "notes", "secret-link"))
		}
	})
	outsideBefore := listTree(t, outside)
	code, _, stderr := e.run("--job", "h", "--max-steps", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}

	results := map[string]string{}
	for _, r := range e.srv.Requests() {
		for _, m := range r.Messages {
			if m.Role == llm.RoleTool {
				results[m.ToolCallID] = m.Content
			}
		}
	}
	for i, h := range hostile {
		got := results[fmt.Sprintf("s%d_1", i+1)]
		if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, h.want) {
			t.Errorf("%s %.80s: %q, want an error with %q", h.call.Name, h.call.Arguments, got, h.want)
		}
		for k := range benign[h.call.Name] {
			if ok := results[fmt.Sprintf("s%d_%d", i+1, k+2)]; strings.HasPrefix(ok, "error:") {
				t.Errorf("a harmless call after %s failed: %s", h.call.Name, ok)
			}
		}
	}
	// Nothing outside changed; the input, plan and machine state are intact.
	if after := listTree(t, outside); len(after) != len(outsideBefore) {
		t.Errorf("the folder outside the job changed: %v", after)
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "secret" {
		t.Error("the file outside the job changed")
	}
	if !strings.Contains(e.read("h", "input/policy.txt"), testQuote) || e.info("h").Status != "completed" ||
		!strings.Contains(e.read("h", "plan.json"), `"status": "completed"`) {
		t.Error("the job's input, job.json or plan.json was damaged")
	}
	if _, err := os.Stat(filepath.Join(e.jobDir("h"), "C:")); err == nil {
		t.Error("a Windows drive path became a folder in the job")
	}
}

// A real job (the built-in model on RFC 9000, served over HTTP) completes with
// the same output while the server fails 15% of the requests in every way
// it can; a server failing every request stops it, resumable, and it
// completes once the server works.
func TestModelFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("whole jobs")
	}
	doc := corpusPath(t, "rfc9000.txt")
	_, want := readRequirements(t, runBuiltin(t, doc, "ref"))

	var mu sync.Mutex
	rate := 0.15
	var root string
	model := builtinOverHTTP(&root)
	var stats *fakellm.FaultStats
	var handler fakellm.Handler
	setRate := func(r float64) {
		mu.Lock()
		defer mu.Unlock()
		rate = r
		handler, stats = fakellm.Faults(rate, 42, model)
	}
	setRate(0.15)
	e := newJobEnv(t, func(r fakellm.Request) fakellm.Reply {
		mu.Lock()
		h := handler
		mu.Unlock()
		return h(r)
	})
	root = e.root
	args := func(cmd string, extra ...string) []string {
		return append(e.args(cmd, "--request-timeout", "1s", "--max-steps", "1000"), extra...)
	}

	code, stdout, stderr := cli(t, args("run", "--job", "f15", "--verbose", "--quiet=false", doc)...)
	if code != 0 {
		t.Fatalf("at 15%% faults: exit %d:\n%s", code, tail(stderr, 2000))
	}
	t.Logf("15%%: %d faults in %d requests: %v", stats.Total(), stats.Calls, stats.Counts)
	for _, kind := range fakellm.FaultKinds {
		if stats.Counts[kind] == 0 {
			t.Errorf("no %q fault was injected", kind)
		}
	}
	// Every requirement is one of the reference run's, none twice, none
	// missing: a call garbled in transit is not run, and the model makes it
	// again.
	var ref, got []requirement.Record
	json.Unmarshal(want, &ref)
	json.Unmarshal([]byte(e.read("f15", "output/requirements.json")), &got)
	left := map[string]int{} // quotes of the reference, as often as they occur
	for _, r := range ref {
		left[r.Citations[0].Quote+"\x00"+r.Text]++
	}
	for _, r := range got {
		k := r.Citations[0].Quote + "\x00" + r.Text
		if left[k] == 0 {
			t.Errorf("%s is not a requirement of the reference run, or is there once too often: %.80q", r.ID, r.Text)
		}
		left[k]--
	}
	garbled := stats.Counts["arguments not JSON"] + stats.Counts["unknown tool"]
	if missing := len(ref) - len(got); missing != 0 {
		t.Errorf("%d of %d requirements missing; %d calls were garbled", missing, len(ref), garbled)
	}
	t.Logf("15%%: %d of %d requirements (%d calls garbled)", len(got), len(ref), garbled)
	e.assertNoKey("f15", stdout, stderr)

	// A server that fails every request stops the job, resumable, once the
	// retry window is over. (At 100% of every kind the job goes on: each
	// call is answered in the end, garbled or not, and garbled calls are
	// made again.)
	mu.Lock()
	handler, _ = fakellm.FaultsOf(1, 42, []string{"429", "500", "503", "cut-off body", "no choices"}, model)
	mu.Unlock()
	code, _, stderr = cli(t, args("run", "--job", "f100", "--retry-for", "1m", doc)...)
	if code != exitIncomplete || !strings.Contains(stderr, "continue with: creator resume --job f100") {
		t.Fatalf("at 100%% faults: exit %d:\n%s", code, tail(stderr, 2000))
	}
	setRate(0)
	if code, _, stderr := cli(t, args("resume", "--job", "f100")...); code != 0 {
		t.Fatalf("resume once the server works: exit %d:\n%s", code, tail(stderr, 2000))
	}
	if got := e.read("f100", "output/requirements.json"); got != string(want) {
		t.Error("the resumed job's output differs from a run without faults")
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// A job killed with SIGKILL at random moments — during model calls, tool
// writes, transcript appends, extraction, chunking, finalize — and resumed
// each time ends with the output of a run that was never killed, with no
// torn file on the way. CI makes 6 kills (and 5 more during the fan-out,
// TestKillAtRandomMomentsDuringFanOut); make stress makes
// CREATOR_STRESS_KILLS=100 and prints how many jobs matched.
// CREATOR_STRESS_KEEP=DIR keeps the folders of jobs that went wrong.
func TestKillAtRandomMoments(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as separate processes")
	}
	kills := envCount("CREATOR_STRESS_KILLS", 6)
	rng := stressRNG(t)
	doc := corpusPath(t, "GoBD.pdf")
	start := time.Now()
	refDir := runBuiltin(t, doc, "ref")
	span := time.Since(start) + 300*time.Millisecond // a process starts more slowly
	killAndResume(t, doc, nil, kills, refDir, func(string) <-chan time.Time {
		return time.After(time.Duration(rng.Int64N(int64(span))))
	})
}

// TestKillAtRandomMomentsDuringFanOut is TestKillAtRandomMoments with
// eight sub-agents at once (--parallel 8), killed while they run: each
// process is killed at a random one of the starts and ends of its
// sub-agents, a random part of the mean time between two of them (in an
// uninterrupted run of GoBD) later, so kills cut sub-agents short, land
// between a staged chunk and its commit, and in the middle of commits. CI
// makes 5 kills; make stress makes CREATOR_STRESS_KILLS.
func TestKillAtRandomMomentsDuringFanOut(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs creator as separate processes")
	}
	kills := envCount("CREATOR_STRESS_KILLS", 5)
	rng := stressRNG(t)
	doc := corpusPath(t, "GoBD.pdf")
	flags := []string{"--parallel", "8"}
	refDir := runBuiltin(t, doc, "ref", flags...)
	// The span of the fan-out: from the first sub-agent started to the
	// last one finished.
	var first, last time.Time
	for _, e := range readEvents(t, refDir) {
		switch e.Type {
		case telemetry.TypeSubagentStarted:
			if first.IsZero() {
				first = e.Time
			}
		case telemetry.TypeSubagentFinished:
			last = e.Time
		}
	}
	span := last.Sub(first)
	chunks := len(chunkOutcomes(t, refDir))
	if first.IsZero() || span <= 0 || chunks == 0 {
		t.Fatalf("the reference run shows no sub-agents at work (%v to %v, %d chunks)", first, last, chunks)
	}
	gap := span / time.Duration(2*chunks)
	t.Logf("the %d sub-agents of an uninterrupted run work for %v", chunks, span.Round(time.Millisecond))
	during := 0
	killAndResume(t, doc, flags, kills, refDir, func(dir string) <-chan time.Time {
		// The process is killed after the n-th start or end of a
		// sub-agent it logs, n drawn below the starts and ends of the
		// chunks still to do, and a random part of a mean gap between two
		// later: counted in events, not timed from the reference run,
		// whose pace a busy machine does not keep, the kill comes before
		// the last sub-agent ends.
		events := filepath.Join(dir, ".agent", "events.jsonl")
		count := func() int {
			data, _ := os.ReadFile(events)
			return bytes.Count(data, []byte(`"type":"`+telemetry.TypeSubagentStarted+`"`)) +
				bytes.Count(data, []byte(`"type":"`+telemetry.TypeSubagentFinished+`"`))
		}
		todo := chunks
		for _, o := range chunkOutcomes(t, dir) {
			if o.State == job.ChunkCommitted || o.State == job.ChunkCommitting || o.State == job.ChunkStaged {
				todo--
			}
		}
		if todo <= 0 {
			return nil // no sub-agent left to kill: the job completes
		}
		before, n, d := count(), 1+rng.IntN(2*todo-1), time.Duration(rng.Int64N(int64(gap)+1))
		fire := make(chan time.Time, 1)
		go func() {
			for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				if count() >= before+n {
					time.Sleep(d)
					fire <- time.Now()
					return
				}
			}
		}()
		return fire
	}, func(dir string) {
		// Killed during the fan-out: a chunk's outcome was not committed.
		for _, o := range chunkOutcomes(t, dir) {
			if o.State != job.ChunkCommitted {
				during++
				return
			}
		}
	})
	t.Logf("%d of %d kills left a chunk's work uncommitted", during, kills)
	if during*2 < kills {
		t.Errorf("only %d of %d kills came during the fan-out", during, kills)
	}
}

// chunkOutcomes are the outcomes of the chunks the sub-agents of the job
// in dir worked on, as its folder holds them.
func chunkOutcomes(t *testing.T, dir string) []job.ChunkOutcome {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(job.SubagentDir), "*.outcome.json"))
	var out []job.ChunkOutcome
	for _, p := range paths {
		var o job.ChunkOutcome
		if data, err := os.ReadFile(p); err == nil && json.Unmarshal(data, &o) == nil {
			out = append(out, o)
		}
	}
	return out
}

// stressRNG is the random source of the kill tests: seeded from the clock,
// or from CREATOR_STRESS_SEED to repeat a run.
func stressRNG(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("CREATOR_STRESS_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (set CREATOR_STRESS_SEED to repeat)", seed)
	return rand.New(rand.NewPCG(seed, 1))
}

// killAndResume runs jobs on doc as separate processes, with flags, until
// kills processes have been killed with SIGKILL: each process is killed
// when the channel that killAt returns for its job folder fires (a nil
// channel never does), before it starts; a job that was killed is resumed
// until it completes. After every kill nothing may be torn (and afterKill,
// when given, looks at the job); every completed job must have the output
// and coverage of the uninterrupted run in refDir.
func killAndResume(t *testing.T, doc string, flags []string, kills int, refDir string, killAt func(dir string) <-chan time.Time, afterKill ...func(dir string)) {
	t.Helper()
	_, want := readRequirements(t, refDir)
	wantCoverage := coverageOf(t, refDir)
	root := filepath.Join(t.TempDir(), "ws")
	done, jobs, matched := 0, 0, 0
	for done < kills {
		jobs++
		id := fmt.Sprintf("k%d", jobs)
		dir := filepath.Join(root, "job_"+id)
		for attempt := 0; ; attempt++ {
			if attempt > 100 {
				t.Fatalf("job %s did not complete after 100 starts", id)
			}
			args := []string{"resume", "--workspace", root, "--job", id, "--quiet"}
			if _, err := os.Stat(dir); err != nil { // not created yet, or its creation was killed
				args = append([]string{"run", "--workspace", root, "--job", id, "--quiet"}, append(flags, doc)...)
			}
			var timer <-chan time.Time
			if done < kills {
				timer = killAt(dir)
			}
			exe, _ := os.Executable()
			cmd := exec.Command(exe, args...)
			cmd.Env = append(cleanEnv(), mainEnv+"=1")
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					keep(dir, nil)
					t.Fatalf("%s %s: %v\n%s", args[0], id, err, out.String())
				}
			case <-timer:
				cmd.Process.Signal(syscall.SIGKILL)
				<-exited
				done++
				checkNothingTorn(t, dir)
				for _, f := range afterKill {
					f(dir)
				}
				continue
			case <-time.After(2 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("%s %s hung", args[0], id)
			}
			break // completed
		}
		got, _ := os.ReadFile(filepath.Join(dir, "output", "requirements.json"))
		gotCoverage := coverageOf(t, dir)
		switch {
		case !bytes.Equal(got, want):
			t.Errorf("job %s: the output differs from an uninterrupted run's", id)
			keep(dir, want)
		case !reflect.DeepEqual(gotCoverage, wantCoverage):
			t.Errorf("job %s: coverage %+v, an uninterrupted run's %+v", id, gotCoverage, wantCoverage)
			keep(dir, want)
		default:
			matched++
		}
	}
	msg := fmt.Sprintf("%d kills over %d jobs: %d of %d outputs and coverages identical to an uninterrupted run", done, jobs, matched, jobs)
	t.Log(msg)
	if os.Getenv("CREATOR_STRESS_KILLS") != "" {
		fmt.Println(msg)
	}
}

// coverageOf measures the coverage of the job in dir.
func coverageOf(t *testing.T, dir string) coverage.Report {
	t.Helper()
	v, err := job.OpenView(filepath.Dir(dir), strings.TrimPrefix(filepath.Base(dir), "job_"))
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	r, err := v.Coverage()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// keep copies a job that went wrong, and the expected output, to the folder
// CREATOR_STRESS_KEEP names, for a person to look into.
func keep(dir string, want []byte) {
	d := os.Getenv("CREATOR_STRESS_KEEP")
	if d == "" {
		return
	}
	os.MkdirAll(d, 0o755)
	if want != nil {
		os.WriteFile(filepath.Join(d, "want.json"), want, 0o644)
	}
	exec.Command("cp", "-r", dir, d).Run()
}

// checkNothingTorn reads back every file a kill could have been writing:
// each JSON file parses, the transcript and events load, no requirement
// is there twice.
func checkNothingTorn(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		return // killed before the job existed
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".json") || strings.Contains(p, string(filepath.Separator)+"index"+string(filepath.Separator)) {
			return nil
		}
		data, _ := os.ReadFile(p)
		if !json.Valid(data) {
			t.Errorf("torn file after a kill: %s (%d bytes)", p, len(data))
		}
		return nil
	})
	job, err := workspace.Open(filepath.Dir(dir), strings.TrimPrefix(filepath.Base(dir), "job_"))
	if err != nil {
		t.Errorf("the job cannot be opened after a kill: %v", err)
		return
	}
	defer job.Close()
	if _, err := transcript.Load(job); err != nil {
		t.Errorf("the transcript cannot be read after a kill: %v", err)
	}
	if f, err := os.Open(filepath.Join(dir, ".agent", "events.jsonl")); err == nil {
		if _, err := telemetry.Read(f); err != nil {
			t.Errorf("events after a kill: %v", err)
		}
		f.Close()
	}
	quotes := map[string]string{}
	finals, _ := filepath.Glob(filepath.Join(dir, "requirements", "req_*", "final.json"))
	for _, p := range finals {
		var r requirement.Record
		data, _ := os.ReadFile(p)
		if json.Unmarshal(data, &r) != nil || len(r.Citations) == 0 {
			continue
		}
		// A document may say the same thing twice (GoBD on pages 31
		// and 33): a requirement saved twice stands in the same chunk.
		k := r.Text + "\x00" + r.Citations[0].Quote + "\x00" + r.Citations[0].Chunk
		if other, dup := quotes[k]; dup {
			t.Errorf("requirement saved twice after a kill: %s and %s", other, r.ID)
		}
		quotes[k] = r.ID
	}
}

// Two jobs run side by side in one process without interfering: each ends
// with the output it would have alone. Run with -race (make test does).
func TestParallelJobs(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "ws")
	docs := map[string]string{"a": "../../testdata/sample/retention-policy.pdf", "b": "../../testdata/bad/prompt-injection.txt"}
	var wg sync.WaitGroup
	codes := map[string]int{}
	var mu sync.Mutex
	for id, doc := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, stderr := cli(t, "run", "--workspace", root, "--job", id, "--quiet", doc)
			mu.Lock()
			codes[id] = code
			mu.Unlock()
			if code != 0 {
				t.Errorf("job %s: exit %d: %s", id, code, stderr)
			}
		}()
	}
	wg.Wait()
	// The same documents alone give the same outputs.
	for id, doc := range docs {
		alone := filepath.Join(t.TempDir(), "ws")
		if code, _, stderr := cli(t, "run", "--workspace", alone, "--job", id, "--quiet", doc); code != 0 {
			t.Fatalf("alone %s: exit %d: %s", id, code, stderr)
		}
		a, _ := os.ReadFile(filepath.Join(root, "job_"+id, "output", "requirements.json"))
		b, _ := os.ReadFile(filepath.Join(alone, "job_"+id, "output", "requirements.json"))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("job %s: the output side by side differs from the output alone", id)
		}
	}
}

// The API key from the environment reaches the server and nothing else: no
// file of the job, no line of output, even with --verbose.
func TestAPIKeyFromTheEnvironmentIsNeverWritten(t *testing.T) {
	t.Parallel()
	e := newJobEnv(t, smallJob())
	args := []string{"run", "--workspace", e.root, "--base-url", e.srv.URL(), "--model", "fake-model", "--verbose", "--job", "env", e.doc}
	code, stdout, stderr := cliWith(t, map[string]string{"OPENAI_API_KEY": testKey}, nil, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := e.srv.Requests()[0].Authorization; got != "Bearer "+testKey {
		t.Fatalf("the server got %q", got)
	}
	_, statusOut, _ := cli(t, "status", "--job", "env", "--json", "--workspace", e.root)
	e.assertNoKey("env", stdout, stderr, statusOut)
}

// readEvents reads the events of the job in dir.
func readEvents(t *testing.T, dir string) []telemetry.Event {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ".agent", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	events, err := telemetry.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return events
}
