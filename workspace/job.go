// Package workspace manages job folders: creating and opening them, the
// sandboxed file access of the agent's tools, atomic writes, the job lock and
// the job's machine state in .agent/job.json.
package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"creator/internal/atomicfile"
	"creator/internal/humanize"
	"creator/internal/jsonl"
	"creator/internal/secret"
)

// Status is the state of a job as recorded in job.json.
type Status string

const (
	StatusCreated     Status = "created"
	StatusRunning     Status = "running"
	StatusCompleted   Status = "completed"
	StatusFailed      Status = "failed"
	StatusInterrupted Status = "interrupted"
	// StatusStopped means a limit (steps, tokens, cost) stopped the job; it can be resumed.
	StatusStopped Status = "stopped"
)

// Input is a source document copied into input/.
type Input struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Assignment is what the first message of a job's conversation states, as
// data: the job and the names of its source documents in input/.
type Assignment struct {
	Job    string   `json:"job"`
	Inputs []string `json:"inputs"`
}

// Settings are the run settings the job was started with.
type Settings struct {
	MaxSteps        int     `json:"max_steps,omitempty"`
	MaxTokens       int64   `json:"max_tokens,omitempty"`
	ContextWindow   int     `json:"context_window,omitempty"`
	SummarizeAt     int     `json:"summarize_at,omitempty"`
	KeepToolResults int     `json:"keep_tool_results,omitempty"`
	Tokenizer       string  `json:"tokenizer,omitempty"`
	MaxCost         float64 `json:"max_cost,omitempty"`  // US dollars
	PriceIn         float64 `json:"price_in,omitempty"`  // US dollars per million prompt tokens
	PriceOut        float64 `json:"price_out,omitempty"` // … per million completion tokens
	BaseURL         string  `json:"base_url,omitempty"`
	// MinCoverage is the share of chunks that must be covered before the
	// job can complete (0: all of them).
	MinCoverage float64 `json:"min_coverage,omitempty"`
	// AllTools sends every tool definition with every request.
	AllTools bool `json:"all_tools,omitempty"`
	// EmbedModel and EmbedBaseURL are the embedding model of semantic
	// search and its server (empty: the model server).
	EmbedModel   string `json:"embed_model,omitempty"`
	EmbedBaseURL string `json:"embed_base_url,omitempty"`
	// SendReasoning sends the model's reasoning text back to the server;
	// the client may have learned it from the server's errors.
	SendReasoning bool `json:"send_reasoning,omitempty"`
	// Parallel is how many sub-agents analyse chunks at once
	// (analyze_chunks); 0 leaves every chunk to the main agent. A job
	// recorded without it ran before sub-agents existed: 0.
	Parallel *int `json:"parallel,omitempty"`
	// MaxText is the most text a document may give, in bytes (0: the
	// default, 32 MB).
	MaxText int64 `json:"max_text,omitempty"`
}

// Usage counts what the job has consumed so far.
type Usage struct {
	Steps            int   `json:"steps"`
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	// CostUSD is what the job cost so far, when the model's price is known.
	CostUSD     *float64 `json:"cost_usd,omitempty"`
	Compactions int      `json:"compactions,omitempty"`
}

// Info is the content of .agent/job.json.
type Info struct {
	ID         string     `json:"id"`
	Inputs     []Input    `json:"inputs"`
	Model      string     `json:"model,omitempty"`
	Settings   Settings   `json:"settings"`
	Status     Status     `json:"status"`
	StopReason string     `json:"stop_reason,omitempty"`
	Usage      Usage      `json:"usage"`
	Version    string     `json:"creator_version,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	UpdatedAt  time.Time  `json:"updated_at"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// InputNames are the names of the job's input files, in order; nil when
// there are none.
func (i Info) InputNames() []string {
	var names []string
	for _, in := range i.Inputs {
		names = append(names, in.Name)
	}
	return names
}

// Paths of the job's own files, relative to the job folder.
const (
	InstructionsFile = "instructions.md"
	PlanFile         = "plan.json"
	ProgressFile     = "progress.md"
	InfoFile         = ".agent/job.json"
	lockFile         = ".agent/lock"
)

// folders are created with every job so that `ls` shows the layout at once.
var folders = []string{"input", "chunks", "candidates", "requirements", "output", "notes", ".agent", ".agent/results"}

// Defaults for the limits.
const (
	DefaultMaxWriteBytes = 5 << 20
	DefaultMaxInputBytes = 200 << 20
)

// Job is an open job folder. Its parts are kept apart so that each user
// gets only what it needs: the agent's tools the sandboxed Files, the
// program its own Internal files, job.json through State, and the Locker.
type Job struct {
	ID string
	// Dir is the absolute path of the job folder, symbolic links resolved.
	Dir string

	*Files
	*Internal
	*State
	*Locker

	root     *os.Root
	changes  *changes
	redactor *secret.Redactor
}

// Files is the job folder as the agent's tools see it: every path is
// checked by Resolve, protected areas cannot be changed, and every error is
// a sentence the model can act on.
type Files struct {
	// Dir is the absolute path of the job folder.
	Dir string
	// MaxWriteBytes bounds one write by a tool.
	MaxWriteBytes int64

	root     *os.Root
	changes  *changes
	redactor *secret.Redactor
}

// Internal is the program's own access to the job's files, without the
// tools' protections: plan.json, .agent/…, the extracted text.
type Internal struct {
	root     *os.Root
	changes  *changes
	redactor *secret.Redactor
	whole    wholeLogs
}

// State is the job's record, .agent/job.json.
type State struct {
	id       string
	internal *Internal
	now      func() time.Time
	mu       sync.Mutex
}

// Watcher hears about every change made to the job's files through the Job
// (tools and the program alike), so that the search index stays current
// without rescanning. Paths are relative to the job folder.
type Watcher interface {
	FileChanged(rel string)
	FileRemoved(rel string)
}

// changes hands the changes of Files and Internal to the watcher, and
// gates them: every change of a file holds the gate shared, Quiesce holds
// it alone.
type changes struct {
	mu      sync.RWMutex
	watcher Watcher
	gate    sync.RWMutex
}

// Quiesce runs fn while no file of the job changes through the Job: what
// fn sees of the folder is one moment of it, a state the job could have
// been killed in (each change is whole: a file replaced, a record
// appended, a file removed). A checkpoint of the folder reads it so.
func (j *Job) Quiesce(fn func() error) error {
	j.changes.gate.Lock()
	defer j.changes.gate.Unlock()
	return fn()
}

// changing holds the gate shared for one change; the returned function
// lets it go.
func (c *changes) changing() func() {
	c.gate.RLock()
	return c.gate.RUnlock
}

// during runs fn, a change of the job's files, with the gate held; the
// watcher is told after, outside it, so that a checkpoint's Quiesce never
// waits for the index's work on a change.
func (c *changes) during(fn func() error) error {
	defer c.changing()()
	return fn()
}

func (c *changes) current() Watcher {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.watcher
}

func (c *changes) changed(rel string) {
	if w := c.current(); w != nil {
		w.FileChanged(rel)
	}
}

func (c *changes) removed(rel string) {
	if w := c.current(); w != nil {
		w.FileRemoved(rel)
	}
}

// Watch makes w hear about changes from now on; nil stops it.
func (j *Job) Watch(w Watcher) {
	j.changes.mu.Lock()
	j.changes.watcher = w
	j.changes.mu.Unlock()
}

// FS is the job folder as a file system, for readers such as the search
// index; it cannot reach outside the folder.
func (s *Files) FS() fs.FS { return s.root.FS() }

// ErrNoJob is returned by Open when the job folder does not exist.
var ErrNoJob = errors.New("no such job")

// ErrJobExists is returned by Create when the id is taken.
var ErrJobExists = errors.New("job exists")

// jobError is an error with a full sentence for people that still matches
// one of the sentinel errors above with errors.Is.
type jobError struct {
	kind error
	msg  string
}

func (e *jobError) Error() string        { return e.msg }
func (e *jobError) Is(target error) bool { return target == e.kind }

func errorOf(kind error, format string, a ...any) error {
	return &jobError{kind: kind, msg: fmt.Sprintf(format, a...)}
}

// CreateOptions describe a new job.
type CreateOptions struct {
	ID            string   // generated when empty
	Inputs        []string // paths of the source documents
	Instructions  []byte   // content of instructions.md
	Model         string
	Settings      Settings
	Version       string
	MaxInputBytes int64 // default DefaultMaxInputBytes
	Now           func() time.Time
}

// Create makes a new job folder under root and opens it. The folder is built
// under a temporary name and renamed into place, so a failed or interrupted
// creation never leaves a half-made job behind.
func Create(root string, opts CreateOptions) (*Job, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	id := opts.ID
	if id == "" {
		id = NewID(now())
	} else if err := ValidateID(id); err != nil {
		return nil, err
	}
	if len(opts.Inputs) == 0 {
		return nil, errors.New("no input document given")
	}
	maxInput := opts.MaxInputBytes
	if maxInput <= 0 {
		maxInput = DefaultMaxInputBytes
	}
	names, err := checkInputs(opts.Inputs, maxInput)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the workspace root: %w", err)
	}
	final := filepath.Join(root, dirName(id))
	if _, err := os.Lstat(final); err == nil {
		return nil, errorOf(ErrJobExists, "job '%s' already exists in %s; continue it with `creator resume --job %s` or choose another id", id, root, id)
	}
	tmpDir, err := os.MkdirTemp(root, "."+dirName(id)+".creating-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmpDir) // a no-op once renamed into place

	if err := populate(tmpDir, id, names, opts, now()); err != nil {
		return nil, err
	}
	if err := os.Rename(tmpDir, final); err != nil {
		if _, serr := os.Lstat(final); serr == nil {
			return nil, errorOf(ErrJobExists, "job '%s' already exists in %s", id, root)
		}
		return nil, err
	}
	rootDir, err := os.OpenRoot(root)
	if err == nil {
		err = atomicfile.SyncDir(rootDir, ".")
		rootDir.Close()
	}
	if err != nil {
		return nil, err
	}
	return open(root, id, now)
}

// checkInputs validates the source documents and returns their names in input/.
func checkInputs(paths []string, maxBytes int64) ([]string, error) {
	seen := map[string]string{}
	var names []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("input document %s does not exist", p)
			}
			return nil, fmt.Errorf("cannot read input document: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("input %s is not a regular file", p)
		}
		if fi.Size() > maxBytes {
			return nil, fmt.Errorf("input document %s is %s; the limit is %s", p, humanize.Bytes(fi.Size()), humanize.Bytes(maxBytes))
		}
		// The job knows a document by its name without spaces at either
		// end: a name the agent, a Markdown heading and a table cell all
		// write alike. Control and invisible formatting characters would
		// not survive them; such a name is refused.
		name := strings.TrimSpace(filepath.Base(p))
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 || strings.HasPrefix(name, ".") {
			return nil, fmt.Errorf("input document name %q cannot be used; rename the file", filepath.Base(p))
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("two input documents are named %s (%s and %s); rename one", name, prev, p)
		}
		seen[name] = p
		names = append(names, name)
	}
	return names, nil
}

func populate(dir, id string, names []string, opts CreateOptions, now time.Time) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, f := range folders {
		if err := root.Mkdir(f, 0o755); err != nil {
			return err
		}
	}
	info := Info{
		ID:        id,
		Model:     opts.Model,
		Settings:  opts.Settings,
		Status:    StatusCreated,
		Version:   opts.Version,
		CreatedAt: now.UTC(),
		UpdatedAt: now.UTC(),
	}
	for i, src := range opts.Inputs {
		in, err := copyInput(root, src, names[i])
		if err != nil {
			return err
		}
		info.Inputs = append(info.Inputs, in)
	}
	if _, err := atomicfile.WriteIn(root, InstructionsFile, bytes.NewReader(opts.Instructions), 0o644); err != nil {
		return err
	}
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	_, err = atomicfile.WriteIn(root, InfoFile, bytes.NewReader(append(data, '\n')), 0o644)
	return err
}

func copyInput(root *os.Root, src, name string) (Input, error) {
	f, err := os.Open(src)
	if err != nil {
		return Input{}, fmt.Errorf("cannot read input document: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := atomicfile.WriteIn(root, path.Join("input", name), io.TeeReader(f, h), 0o444)
	if err != nil {
		return Input{}, fmt.Errorf("cannot copy %s into the job: %w", src, err)
	}
	abs, _ := filepath.Abs(src)
	return Input{Name: name, Source: abs, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Open opens an existing job under root.
func Open(root, id string) (*Job, error) { return open(root, id, time.Now) }

func open(root, id string, now func() time.Time) (*Job, error) {
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, dirName(id))
	real, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errorOf(ErrNoJob, "no job '%s' in %s; `creator list` shows the jobs there", id, root)
	}
	if err != nil {
		return nil, err
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("cannot open job '%s': %w", id, err)
	}
	ch, red := &changes{}, &secret.Redactor{}
	internal := &Internal{root: r, changes: ch, redactor: red}
	j := &Job{ID: id, Dir: real, root: r, changes: ch, redactor: red,
		Files:    &Files{Dir: real, MaxWriteBytes: DefaultMaxWriteBytes, root: r, changes: ch, redactor: red},
		Internal: internal,
		State:    &State{id: id, internal: internal, now: now},
	}
	j.Locker = &Locker{id: id, dir: real, root: r, onLock: j.removeTemps}
	return j, nil
}

// List returns the ids of the jobs under root, oldest first by id order of
// creation time where job.json is readable, else by id.
func List(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type item struct {
		id      string
		created time.Time
	}
	var items []item
	for _, e := range entries {
		id, ok := strings.CutPrefix(e.Name(), "job_")
		if !ok || ValidateID(id) != nil {
			continue
		}
		if fi, err := os.Stat(filepath.Join(root, e.Name())); err != nil || !fi.IsDir() {
			continue
		}
		it := item{id: id}
		if data, err := os.ReadFile(filepath.Join(root, e.Name(), filepath.FromSlash(InfoFile))); err == nil {
			var info Info
			if json.Unmarshal(data, &info) == nil {
				it.created = info.CreatedAt
			}
		}
		items = append(items, it)
	}
	sort.SliceStable(items, func(a, b int) bool {
		if !items[a].created.Equal(items[b].created) {
			return items[a].created.Before(items[b].created)
		}
		return items[a].id < items[b].id
	})
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	return ids, nil
}

// Close releases the lock, if held, and the job folder.
func (j *Job) Close() error {
	err := j.Unlock()
	if cerr := j.root.Close(); err == nil {
		err = cerr
	}
	return err
}

// Info reads .agent/job.json.
func (s *State) Info() (Info, error) {
	var info Info
	data, err := s.internal.ReadInternal(InfoFile)
	if err != nil {
		return info, fmt.Errorf("job '%s' has no readable %s: %w", s.id, InfoFile, err)
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("job '%s': %s is not valid JSON: %w", s.id, InfoFile, err)
	}
	return info, nil
}

// UpdateInfo changes job.json in one read-modify-write step.
func (s *State) UpdateInfo(change func(*Info)) (Info, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	info, err := s.Info()
	if err != nil {
		return info, err
	}
	change(&info)
	info.UpdatedAt = s.now().UTC()
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return info, err
	}
	return info, s.internal.WriteInternal(InfoFile, append(data, '\n'))
}

// ReadInternal reads a file of the job without the tools' protections; for
// the program's own files.
func (in *Internal) ReadInternal(rel string) ([]byte, error) {
	return in.root.ReadFile(rel)
}

// WriteInternal atomically replaces a file of the job without the tools'
// protections; for the program's own files (plan.json, .agent/…, extracted text).
func (in *Internal) WriteInternal(rel string, data []byte) error {
	if err := in.changes.during(func() error {
		_, err := atomicfile.WriteIn(in.root, rel, bytes.NewReader(redact(in.redactor, rel, data)), 0o644)
		return err
	}); err != nil {
		return err
	}
	in.changes.changed(rel)
	return nil
}

// RemoveInternal deletes a file of the job without the tools'
// protections; one already gone is not an error.
func (in *Internal) RemoveInternal(rel string) error {
	if err := in.changes.during(func() error {
		if err := in.root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}); err != nil {
		return err
	}
	in.changes.removed(rel)
	return nil
}

// AppendInternal appends to a log file of the job and flushes it to disk.
func (in *Internal) AppendInternal(rel string, data []byte) error {
	if err := in.changes.during(func() error { return in.appendLocked(rel, data) }); err != nil {
		return err
	}
	in.changes.changed(rel)
	return nil
}

// appendLocked is AppendInternal's work, the gate held.
func (in *Internal) appendLocked(rel string, data []byte) error {
	if dir := path.Dir(rel); dir != "." {
		if err := in.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := in.root.OpenFile(rel, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	isLog := strings.HasSuffix(rel, ".jsonl")
	if isLog && !in.whole.checked(rel) {
		// A log of JSON lines (a transcript): a record a kill tore is
		// cut off before the next one is appended; once per process.
		err = jsonl.CutTornTail(f)
	}
	if err == nil {
		data = redact(in.redactor, rel, data)
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if isLog {
		in.whole.wrote(rel, data, err)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// removeTemps deletes temporary files left by a crash during a write.
func (j *Job) removeTemps() {
	_ = fs.WalkDir(j.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if atomicfile.IsTemp(d.Name()) && !d.IsDir() {
			_ = j.root.Remove(p)
		}
		return nil
	})
}
