package export

import (
	"slices"
	"time"

	"creator/internal/document"
	"creator/internal/job"
	"creator/internal/requirement"
)

// Load reads what an export of a job needs from its files: the validated
// output/requirements.json with the review decisions on its requirements
// (job.View.Output) and the sections its requirements stand in.
func Load(j *job.View) (Source, error) {
	recs, err := j.Output()
	if err != nil {
		return Source{}, err
	}
	return sourceOf(j.ID, recs, j.ReadFile)
}

// ForJob reads a job's export as 'creator export' writes it: Load, with
// the time and the creator version of the export, and the job's input
// names as its documents when no requirement cites one.
func ForJob(j *job.View, at time.Time, version string) (Source, error) {
	src, err := Load(j)
	if err != nil {
		return src, err
	}
	src.Time, src.Version = at, version
	if info, err := j.Info(); err == nil {
		if len(src.Documents) == 0 {
			src.Documents = info.InputNames()
		}
		src.Inputs, src.Modified = info.Inputs, info.UpdatedAt
	}
	return src, nil
}

// SourceOf is what an export of recs, requirements of job j, needs to
// place them in their sections.
func SourceOf(j *job.View, recs []requirement.Record) (Source, error) {
	return sourceOf(j.ID, recs, j.ReadFile)
}

// sourceOf reads what an export of a job's records needs: the chunk
// manifest that gives their sections, when there is one; read reads a
// file of the job.
func sourceOf(id string, recs []requirement.Record, read func(string) ([]byte, error)) (Source, error) {
	src := Source{JobID: id, Records: recs}
	if m, err := read(document.ManifestFile); err == nil {
		if src.Manifest, err = document.ParseManifest(m); err != nil {
			return src, err
		}
	}
	src.Chunks = map[string]string{}
	for _, r := range src.Records {
		for _, cit := range r.Citations {
			c, ok := src.Manifest.Find(cit.Chunk)
			if _, done := src.Chunks[c.ID]; !ok || done {
				continue
			}
			if data, err := read(c.File); err == nil {
				src.Chunks[c.ID] = document.ChunkBody(string(data))
			}
		}
	}
	for _, r := range src.Records {
		for _, c := range r.Citations {
			if !slices.Contains(src.Documents, c.Document) {
				src.Documents = append(src.Documents, c.Document)
			}
		}
	}
	return src, nil
}
