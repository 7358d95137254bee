// Package remote keeps job folders in a bucket: S3 and what speaks its
// protocol (MinIO, Garage, Ceph), Google Cloud Storage, Azure Blob
// Storage, or a folder through file://. A job on a bucket runs in a local
// cache folder with the usual layout, and is checkpointed: the files that
// changed since the last checkpoint go up in one pack object, then one
// manifest object names every file of the folder, by hash, and the packs
// that hold it. The manifest is written last, so a checkpoint exists
// whole or not at all; each carries a generation, written only if no
// checkpoint of that generation exists, so a process that another one
// took the job from can never overwrite the newer checkpoint.
//
// In the bucket, under the URL's path:
//
//	jobs/<id>/manifests/<16 digits>.json   one per checkpoint, the newest first in a listing
//	jobs/<id>/packs/<generation>-<writer>  the content a checkpoint sent
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // azblob://
	_ "gocloud.dev/blob/fileblob"  // file://
	_ "gocloud.dev/blob/gcsblob"   // gs://
	_ "gocloud.dev/blob/memblob"   // mem://, for tests
	_ "gocloud.dev/blob/s3blob"    // s3://
	"gocloud.dev/gcerrors"
)

// Schemes are the URL schemes of the buckets a workspace can be on.
var Schemes = []string{"s3", "gs", "azblob", "file", "mem"}

// IsURL reports whether a workspace root is a bucket's URL rather than a
// local folder.
func IsURL(root string) bool {
	scheme, _, ok := strings.Cut(root, "://")
	if !ok {
		return false
	}
	for _, s := range Schemes {
		if scheme == s {
			return true
		}
	}
	return false
}

// Store is a bucket that holds job folders.
type Store struct {
	bucket *blob.Bucket
	// URL names the bucket, without credentials.
	URL string
}

// Open opens the bucket of a workspace URL: s3://bucket/prefix?region=…
// (endpoint=… for MinIO and the like), gs://bucket/prefix,
// azblob://container/prefix, file:///path. The path below the bucket is a
// prefix every key of the workspace is under. Credentials come from the
// cloud SDKs' usual environment (AWS_ACCESS_KEY_ID …,
// GOOGLE_APPLICATION_CREDENTIALS, AZURE_STORAGE_ACCOUNT …).
func Open(ctx context.Context, raw string) (*Store, error) {
	u, err := url.Parse(raw)
	if err != nil || !IsURL(raw) {
		return nil, fmt.Errorf("workspace %q is not a bucket URL (%s://…)", raw, strings.Join(Schemes, "://, "))
	}
	safe := *u
	safe.User = nil
	prefix := ""
	if u.Scheme != "file" {
		prefix = strings.Trim(u.Path, "/")
		u.Path = ""
	}
	b, err := blob.OpenBucket(ctx, u.String())
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", safe.String(), err)
	}
	if prefix != "" {
		b = blob.PrefixedBucket(b, prefix+"/")
	}
	return &Store{bucket: b, URL: safe.String()}, nil
}

// New is a store on an open bucket (tests, and callers that make their
// own client).
func New(b *blob.Bucket, name string) *Store { return &Store{bucket: b, URL: name} }

// Close closes the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// maxGeneration bounds generations, so that a manifest's key can be the
// generation counted down: the newest sorts first.
const maxGeneration = 1e16 - 1

func jobPrefix(id string) string       { return "jobs/" + id + "/" }
func manifestsPrefix(id string) string { return jobPrefix(id) + "manifests/" }
func packKey(id, name string) string   { return jobPrefix(id) + "packs/" + name }
func manifestKey(id string, g int64) string {
	return fmt.Sprintf("%s%016d.json", manifestsPrefix(id), int64(maxGeneration)-g)
}

// Newest reads the job's newest checkpoint; ok is false when it has none.
// One listing of a single key and one read.
func (s *Store) Newest(ctx context.Context, id string) (m Manifest, ok bool, err error) {
	objs, _, err := s.bucket.ListPage(ctx, blob.FirstPageToken, 1, &blob.ListOptions{Prefix: manifestsPrefix(id)})
	if err != nil {
		return m, false, fmt.Errorf("%s: listing the checkpoints of job '%s': %w", s.URL, id, err)
	}
	if len(objs) == 0 {
		return m, false, nil
	}
	data, err := s.bucket.ReadAll(ctx, objs[0].Key)
	if err != nil {
		return m, false, fmt.Errorf("%s: reading %s: %w", s.URL, objs[0].Key, err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, false, fmt.Errorf("%s: %s is not a checkpoint: %w", s.URL, objs[0].Key, err)
	}
	if m.Version > ManifestVersion {
		return m, false, fmt.Errorf("%s: the checkpoint of job '%s' is of version %d, newer than this creator knows (%d): use a newer creator", s.URL, id, m.Version, ManifestVersion)
	}
	return m, true, nil
}

// Jobs are the ids of the jobs in the bucket.
func (s *Store) Jobs(ctx context.Context) ([]string, error) {
	var ids []string
	token := blob.FirstPageToken
	for {
		objs, next, err := s.bucket.ListPage(ctx, token, 1000, &blob.ListOptions{Prefix: "jobs/", Delimiter: "/"})
		if err != nil {
			return nil, fmt.Errorf("%s: listing the jobs: %w", s.URL, err)
		}
		for _, o := range objs {
			if o.IsDir {
				ids = append(ids, path.Base(strings.TrimSuffix(o.Key, "/")))
			}
		}
		if len(next) == 0 {
			return ids, nil
		}
		token = next
	}
}

// Delete removes every object of job id: its checkpoints and packs.
func (s *Store) Delete(ctx context.Context, id string) error {
	it := s.bucket.List(&blob.ListOptions{Prefix: jobPrefix(id)})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: listing job '%s': %w", s.URL, id, err)
		}
		if err := s.bucket.Delete(ctx, o.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("%s: removing %s: %w", s.URL, o.Key, err)
		}
	}
}

// ErrSuperseded is a checkpoint refused because another process wrote one
// of that generation first: the job was taken over, and this process must
// stop working on it.
var ErrSuperseded = errors.New("superseded")

// putManifest writes m as the checkpoint of its generation, only if none
// is there.
func (s *Store) putManifest(ctx context.Context, m Manifest) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	err = s.bucket.WriteAll(ctx, manifestKey(m.Job, m.Generation), data, &blob.WriterOptions{ContentType: "application/json", IfNotExist: true})
	if gcerrors.Code(err) == gcerrors.FailedPrecondition {
		return fmt.Errorf("%w: job '%s' has a checkpoint of generation %d written by another process", ErrSuperseded, m.Job, m.Generation)
	}
	if err != nil {
		return fmt.Errorf("%s: writing the checkpoint of job '%s': %w", s.URL, m.Job, err)
	}
	return nil
}

// packWriter starts the upload of a pack.
func (s *Store) packWriter(ctx context.Context, id, name string) (*blob.Writer, error) {
	return s.bucket.NewWriter(ctx, packKey(id, name), &blob.WriterOptions{ContentType: "application/octet-stream"})
}

// packReader reads a pack from its start.
func (s *Store) packReader(ctx context.Context, id, name string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, packKey(id, name), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: reading pack %s of job '%s': %w", s.URL, name, id, err)
	}
	return r, nil
}

// ManifestVersion is the version of the manifests this creator writes.
const ManifestVersion = 1

// Manifest is one checkpoint of a job folder: every file, by hash, and
// where its bytes are.
type Manifest struct {
	Version    int       `json:"version"`
	Job        string    `json:"job"`
	Generation int64     `json:"generation"`
	WrittenAt  time.Time `json:"written_at"`
	// Writer names the process that wrote it: host, pid and a random
	// part.
	Writer string   `json:"writer"`
	Dirs   []string `json:"dirs"`
	Files  []File   `json:"files"`
}

// File is a file of the folder.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Mode   uint32 `json:"mode"`
	SHA256 string `json:"sha256"`
	// Parts are its bytes in order: one for a file written whole, one
	// per checkpoint that found it grown for a log that is only appended
	// to.
	Parts []Part `json:"parts"`
}

// Part is a run of a file's bytes in a pack.
type Part struct {
	Pack   string `json:"pack"`
	Offset int64  `json:"offset"`
	Size   int64  `json:"size"`
}
