package export

import (
	"slices"

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
