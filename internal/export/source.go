package export

import (
	"encoding/json"
	"fmt"
	"slices"

	"creator/internal/document"
	"creator/internal/output"
)

// Load reads what an export of a job needs from its files: the validated
// output/requirements.json and the sections its requirements stand in.
func Load(id string, read func(string) ([]byte, error)) (Source, error) {
	data, err := output.ReadValid(id, read)
	if err != nil {
		return Source{}, err
	}
	return sourceOf(id, data, read)
}

// sourceOf reads what an export of a job needs: its records (data, the
// content of output/requirements.json) and, when there is one, the chunk
// manifest that gives their sections; read reads a file of the job.
func sourceOf(id string, data []byte, read func(string) ([]byte, error)) (Source, error) {
	src := Source{JobID: id}
	if err := json.Unmarshal(data, &src.Records); err != nil {
		return src, fmt.Errorf("%s: %w", output.RequirementsFile, err)
	}
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
