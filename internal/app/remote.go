package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"creator/internal/job"
	"creator/internal/remote"
	"creator/workspace"
)

// CacheEnv is where the local copies of the jobs of a bucket workspace
// are kept when set; else the user's cache folder.
const CacheEnv = "CREATOR_CACHE_DIR"

// OpenWorkspace resolves the workspace root of flag (else
// $CREATOR_WORKSPACE …): a local folder, or a bucket's URL, whose jobs
// run in a local cache folder (CacheDir) and are checkpointed to it.
func OpenWorkspace(ctx context.Context, flag string, env Env) (Workspace, error) {
	given := flag
	if given == "" {
		given = env.Getenv(workspace.RootEnv)
	}
	if !remote.IsURL(given) {
		root, err := ResolveRoot(flag, env.Getenv)
		return Workspace{Root: root, Env: env}, err
	}
	store, err := remote.Open(ctx, given)
	if err != nil {
		return Workspace{}, err
	}
	cache, err := CacheDir(given, env.Getenv)
	if err != nil {
		store.Close()
		return Workspace{}, err
	}
	return Workspace{Root: cache, Env: env, Store: store}, nil
}

// unsafeName are the characters a cache folder's name does without.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// CacheDir is the local folder of a bucket workspace's jobs:
// $CREATOR_CACHE_DIR, else the user's cache folder, then a name made of
// the bucket's URL (its credentials left out) and a hash of all of it,
// so that two endpoints with the same bucket name do not share one.
func CacheDir(bucketURL string, getenv func(string) string) (string, error) {
	base := getenv(CacheEnv)
	if base == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		base = filepath.Join(dir, "creator", "workspaces")
	}
	u, err := url.Parse(bucketURL)
	if err != nil {
		return "", err
	}
	u.User = nil
	sum := sha256.Sum256([]byte(u.String()))
	name := strings.Trim(unsafeName.ReplaceAllString(u.Scheme+"-"+u.Host+"-"+u.Path, "-"), "-")
	if len(name) > 60 {
		name = name[:60]
	}
	return filepath.Abs(filepath.Join(base, name+"-"+hex.EncodeToString(sum[:4])))
}

// Where names the workspace for people: the bucket's URL and the cache
// folder its jobs run in, or the local folder.
func (w Workspace) Where() string {
	if w.Store == nil {
		return w.Root
	}
	return w.Store.URL + " (cached in " + w.Root + ")"
}

// Close lets the bucket go.
func (w Workspace) Close() error {
	if w.Store == nil {
		return nil
	}
	return w.Store.Close()
}

// mirror is the mirror of job id in the cache; nil on a local workspace.
func (w Workspace) mirror(id string) *remote.Mirror {
	if w.Store == nil {
		return nil
	}
	return w.Store.MirrorOf(id, filepath.Join(w.Root, "job_"+id), w.Env.Now)
}

// pull brings the cache's copy of job id to its newest checkpoint, unless
// a process of this machine works on it now (its copy is the newest
// there is). A job the bucket has no checkpoint of, nor this machine a
// copy still to be sent, is no job.
func (w Workspace) pull(ctx context.Context, id string) (*remote.Mirror, error) {
	m := w.mirror(id)
	if m == nil {
		return nil, nil
	}
	if err := CheckJobID(id); err != nil {
		return nil, err
	}
	if busy(w.Root, id) {
		return m, nil
	}
	found, err := m.Pull(ctx)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("no job '%s' in %s; `creator list` shows the jobs there: %w", id, w.Store.URL, workspace.ErrNoJob)
	}
	return m, nil
}

// busy reports whether a process of this machine holds the job's lock.
func busy(root, id string) bool {
	j, err := workspace.Open(root, id)
	if err != nil {
		return false
	}
	defer j.Close()
	_, held := j.Holder()
	return held
}

// save checkpoints a job changed outside a run (a publication, a
// settlement): its local copy, kept as this machine left it, is sent.
func (w Workspace) save(ctx context.Context, j *job.Job) error {
	if w.Store == nil {
		return nil
	}
	m := w.mirror(j.ID)
	if _, err := m.Pull(ctx); err != nil {
		return err
	}
	return m.Checkpoint(ctx, j.Workspace())
}

// Save checkpoints job id as this machine has it: after a queued job's
// publication is recorded. Nothing on a local workspace.
func (w Workspace) Save(ctx context.Context, id string) error {
	if w.Store == nil {
		return nil
	}
	j, err := job.Open(w.Root, id)
	if err != nil {
		return err
	}
	defer j.Close()
	if err := j.Lock(); err != nil {
		return err
	}
	return w.save(ctx, j)
}

// Pull copies job id's newest checkpoint into dir (default: the cache
// folder it runs in) and returns the folder.
func (w Workspace) Pull(ctx context.Context, id, dir string) (string, error) {
	if w.Store == nil {
		return "", errors.New("the workspace is a local folder: its jobs are there already")
	}
	if err := CheckJobID(id); err != nil {
		return "", err
	}
	if dir == "" {
		m, err := w.pull(ctx, id)
		if err != nil {
			return "", err
		}
		return m.Dir, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	m := w.Store.MirrorOf(id, abs, w.Env.Now)
	m.Plain = true
	found, err := m.Pull(ctx)
	if err == nil && !found {
		err = fmt.Errorf("no job '%s' in %s: %w", id, w.Store.URL, workspace.ErrNoJob)
	}
	return abs, err
}

// IDs are the jobs of the workspace: the bucket's, or the root's.
func (w Workspace) IDs(ctx context.Context) ([]string, error) {
	if w.Store == nil {
		return workspace.List(w.Root)
	}
	return w.Store.Jobs(ctx)
}
