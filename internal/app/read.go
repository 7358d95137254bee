package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"creator/internal/evaluate"
	"creator/internal/export"
	"creator/internal/humanize"
	"creator/internal/job"
	"creator/internal/jobview"
	"creator/internal/output"
	"creator/internal/publish"
	"creator/internal/reqdiff"
	"creator/internal/requirement"
	"creator/internal/usage"
)

// Status is a job's view, after the publishes a killed publish left
// pending were settled where the database allows.
type Status struct {
	View jobview.View
	// Unsettled are the pending publishes this database could not settle;
	// SettleErr says why none could be tried.
	Unsettled []job.PendingPublication
	SettleErr error
}

// Warnings are what to say beside the view: why no pending publish could
// be settled, and each one not known to have committed with how to
// settle it.
func (st Status) Warnings() []string {
	var out []string
	if st.SettleErr != nil {
		out = append(out, st.SettleErr.Error())
	}
	for _, p := range st.Unsettled {
		out = append(out, fmt.Sprintf("the publish of %s to %s is not known to have committed: "+
			"'creator publish --job %s' to that database settles it (or status with $%s set to it)",
			p.Time.UTC().Format(time.RFC3339), p.Database, st.View.ID, DatabaseEnv))
	}
	return out
}

// Status reads the job id in detail. databaseURL settles the pending
// publishes that were written to it.
func (w Workspace) Status(ctx context.Context, id, databaseURL string) (Status, error) {
	var st Status
	if err := CheckJobID(id); err != nil {
		return st, err
	}
	if _, err := w.pull(ctx, id); err != nil {
		return st, err
	}
	j, err := job.Open(w.Root, id)
	if err != nil {
		return st, err
	}
	st.Unsettled, st.SettleErr = publish.Settle(ctx, j, databaseURL)
	if w.Store != nil && st.SettleErr == nil && j.Lock() == nil {
		// What settling recorded goes to the bucket, unless the job
		// runs here (its own checkpoints send it).
		st.SettleErr = w.save(ctx, j)
	}
	j.Close()
	v, err := job.OpenView(w.Root, id)
	if err != nil {
		return st, err
	}
	defer v.Close()
	st.View = jobview.Of(v, true)
	return st, nil
}

// List reads every job of the workspace; one that cannot be read is
// listed as broken, with the reason.
func (w Workspace) List(ctx context.Context) ([]jobview.View, error) {
	ids, err := w.IDs(ctx)
	if err != nil {
		return nil, err
	}
	views := make([]jobview.View, 0, len(ids))
	for _, id := range ids {
		j, err := w.OpenView(ctx, id)
		if err != nil {
			views = append(views, jobview.View{ID: id, State: "broken", Error: err.Error(), Inputs: []jobview.Input{}})
			continue
		}
		views = append(views, jobview.Of(j, false))
		j.Close()
	}
	return views, nil
}

// ExportOptions say what to export of a job and how.
type ExportOptions struct {
	Job string
	// Format is the format asked for; FormatGiven says it was asked for,
	// else the format follows Output's extension.
	Format      string
	FormatGiven bool
	Output      string
	// ReviewedOnly exports only the requirements a reviewer accepted.
	ReviewedOnly bool
}

// Exported is an export: its bytes, what they hold ("12 requirements")
// and in which format; Left are the requirements ReviewedOnly left out.
type Exported struct {
	Data   []byte
	What   string
	Format string
	Left   requirement.Tally
}

// ExportFormat is the format an export is written in: the one given,
// else the one Output's extension names; a mismatch is refused.
func (o ExportOptions) ExportFormat() (string, error) {
	format := o.Format
	byName, known := export.FormatOf(o.Output)
	ext := strings.ToLower(filepath.Ext(o.Output))
	switch {
	case !o.FormatGiven && known:
		format = byName
	case !o.FormatGiven && ext != "" && o.Output != "-":
		return "", usage.Errorf("-o %s: no format is written as %s; use one of the extensions .json, .csv, .xlsx, .md, .reqif, .cypher, .oscal.json, or give --format", o.Output, ext)
	case o.FormatGiven && known && byName != strings.TrimPrefix(format, "audit-"):
		return "", usage.Errorf("-o %s is named as %s, not %s: name the file for its format, or drop --format", o.Output, byName, format)
	}
	if !slices.Contains(export.AllFormats, format) {
		return "", usage.Errorf("unknown format %q: use %s", format, strings.Join(export.AllFormats, ", "))
	}
	if slices.Contains(export.AuditFormats, format) && o.ReviewedOnly {
		return "", usage.Errorf("--reviewed-only is for the requirements; --format %s writes the review log, every change of every requirement", format)
	}
	return format, nil
}

// Export renders the job's requirements, or its review log (the audit
// formats).
func (w Workspace) Export(ctx context.Context, o ExportOptions) (Exported, error) {
	format, err := o.ExportFormat()
	if err != nil {
		return Exported{}, err
	}
	j, err := w.OpenView(ctx, o.Job)
	if err != nil {
		return Exported{}, err
	}
	defer j.Close()
	out := Exported{Format: format}
	if slices.Contains(export.AuditFormats, format) {
		var changes int
		out.Data, changes, err = export.AuditOf(j, format)
		out.What = humanize.Plural(changes, "change") + " of the review"
		return out, err
	}
	src, err := export.ForJob(j, w.Env.Now(), w.Env.Version)
	if err != nil {
		return out, err
	}
	if o.ReviewedOnly {
		src.Records, out.Left = export.Approved(src.Records)
	}
	out.Data, err = export.Render(format, src)
	out.What = fmt.Sprintf("%d requirements", len(src.Records))
	return out, err
}

// Eval compares the job's requirements with the gold list in the file
// gold.
func (w Workspace) Eval(ctx context.Context, id, gold string, o evaluate.Options) (evaluate.Result, error) {
	if gold == "" {
		return evaluate.Result{}, usage.Errorf("--gold is required")
	}
	j, err := w.OpenView(ctx, id)
	if err != nil {
		return evaluate.Result{}, err
	}
	defer j.Close()
	data, err := j.ReadFile(output.RequirementsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return evaluate.Result{}, fmt.Errorf("job '%s' has no %s yet; it is written when the job finishes (finalize_output)", j.ID, output.RequirementsFile)
	}
	if err != nil {
		return evaluate.Result{}, err
	}
	var reqs []requirement.Record
	if err := json.Unmarshal(data, &reqs); err != nil {
		return evaluate.Result{}, fmt.Errorf("%s of job '%s' is not valid: %v", output.RequirementsFile, j.ID, err)
	}
	raw, err := os.ReadFile(gold)
	if err != nil {
		return evaluate.Result{}, err
	}
	items, err := evaluate.ParseGold(raw)
	if err != nil {
		return evaluate.Result{}, err
	}
	return evaluate.EvaluateWith(reqs, items, o), nil
}

// Diff compares the requirements of two jobs; either may be a file, an
// OSCAL catalog (export.ReadOSCAL).
func (w Workspace) Diff(ctx context.Context, oldID, newID string) (reqdiff.Result, error) {
	old, err := w.source(ctx, oldID)
	new, err2 := w.source(ctx, newID)
	if err = errors.Join(err, err2); err != nil {
		return reqdiff.Result{}, err
	}
	return reqdiff.Compare(old, new), nil
}

// source reads a job's validated requirements and the sections they
// stand in.
func (w Workspace) source(ctx context.Context, id string) (export.Source, error) {
	if fi, err := os.Stat(id); err == nil && fi.Mode().IsRegular() {
		// An OSCAL catalog, as creator exported it or a tool edited it.
		data, err := os.ReadFile(id)
		if err != nil {
			return export.Source{}, err
		}
		src, err := export.ReadOSCAL(data)
		if err != nil {
			return src, fmt.Errorf("%s: %w", id, err)
		}
		return src, nil
	}
	j, err := w.OpenView(ctx, id)
	if err != nil {
		return export.Source{}, err
	}
	defer j.Close()
	return export.Load(j)
}

// Publish writes the job's requirements to the database of o.URL.
func (w Workspace) Publish(ctx context.Context, id string, o publish.JobOptions) (publish.Result, error) {
	if o.URL == "" {
		return publish.Result{}, usage.Errorf("give the database with --database URL or $CREATOR_DATABASE_URL")
	}
	j, err := w.OpenJob(ctx, id)
	if err != nil {
		return publish.Result{}, err
	}
	defer j.Close()
	o.Now = w.Env.Now()
	r, err := publish.Job(ctx, j, o)
	if err == nil && w.Store != nil && j.Lock() == nil {
		// The publication's record goes to the bucket, unless the job
		// runs here (its own checkpoints send it).
		if err := w.save(ctx, j); err != nil {
			return r, fmt.Errorf("published, but the record of the publication could not be sent to %s: %w", w.Store.URL, err)
		}
	}
	return r, err
}
