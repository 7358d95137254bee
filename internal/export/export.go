// Package export writes a job's requirements in the formats other tools
// read: JSON (the record list), CSV, Markdown for people, and ReqIF 1.2
// for requirements management tools (DOORS, Polarion, Jama), and Cypher
// statements for graph databases (Neo4j).
package export

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/markdown"
	"creator/internal/output"
	"creator/internal/requirement"
	"creator/workspace"
)

// Formats are the names --format accepts.
var Formats = []string{"json", "csv", "xlsx", "md", "reqif", "cypher", "oscal"}

// Source is what an export is made of: the job's records in output order,
// and the chunk manifest that places them in the document's sections.
type Source struct {
	JobID     string
	Documents []string
	Records   []requirement.Record
	Manifest  document.Manifest
	// Chunks holds the text of the cited chunks by id, to find the section
	// a quote stands in when a chunk spans several.
	Chunks  map[string]string
	Time    time.Time // of the export, for the ReqIF header and LAST-CHANGE
	Version string    // of creator
	// Inputs are the job's source documents as it recorded them (name,
	// size, SHA-256); Modified is when the job last changed.
	Inputs   []workspace.Input
	Modified time.Time
}

// SectionsOf returns the heading path of the place a record's first
// citation quotes.
func (s Source) SectionsOf(r requirement.Record) []string {
	if len(r.Citations) == 0 {
		return nil
	}
	return s.SectionOf(r.Citations[0])
}

// SectionOf returns the heading path of the place a citation quotes: the
// chunk's heading, or the last section starting in the chunk before the
// quote.
func (s Source) SectionOf(cit requirement.Citation) []string {
	c, ok := s.Manifest.Find(cit.Chunk)
	if !ok {
		return nil
	}
	body := s.Chunks[c.ID]
	quoteAt, _, found := requirement.Find(body, cit.Quote)
	if !found {
		quoteAt = -1
	}
	return SectionAt(c, body, quoteAt)
}

// SectionAt returns the heading path of byte offset at of a chunk's body
// (document.ManifestChunk.SectionAt).
func SectionAt(c document.ManifestChunk, body string, at int) []string {
	return c.SectionAt(body, at)
}

// Render writes src in a format.
func Render(format string, src Source) ([]byte, error) {
	switch format {
	case "json":
		return output.JSON(src.Records)
	case "csv":
		return output.CSV(src.Records)
	case "xlsx":
		return XLSX(src)
	case "md":
		return Markdown(src), nil
	case "reqif":
		return ReqIFBytes(src)
	case "cypher":
		return Cypher(src), nil
	case "oscal":
		return OSCAL(src)
	}
	return nil, fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
}

// Approved keeps the records a reviewer accepted, with or without edits,
// and says how many were left out.
func Approved(recs []requirement.Record) (kept []requirement.Record, left requirement.Tally) {
	var out []requirement.Record
	for _, r := range recs {
		if r.Approved() {
			kept = append(kept, r)
		} else {
			out = append(out, r)
		}
	}
	return kept, requirement.TallyOf(out)
}

// fileTypes are each format's file extension and media type: the name
// and Content-Type of a download of it.
var fileTypes = map[string]struct{ ext, mediaType string }{
	"json":       {".json", "application/json; charset=utf-8"},
	"csv":        {".csv", "text/csv; charset=utf-8"},
	"xlsx":       {".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"},
	"md":         {".md", "text/markdown; charset=utf-8"},
	"reqif":      {".reqif", "application/xml; charset=utf-8"},
	"cypher":     {".cypher", "text/plain; charset=utf-8"},
	"oscal":      {".oscal.json", "application/json; charset=utf-8"},
	"audit-json": {".json", "application/json; charset=utf-8"},
	"audit-csv":  {".csv", "text/csv; charset=utf-8"},
}

// FileType is the file extension and media type of a format of
// AllFormats; ok is false for another.
func FileType(format string) (ext, mediaType string, ok bool) {
	t, ok := fileTypes[format]
	return t.ext, t.mediaType, ok
}

// FormatOf guesses a format from a file name's extension, the longest
// that names one first (x.oscal.json is an OSCAL catalog).
func FormatOf(name string) (string, bool) {
	lower := strings.ToLower(name)
	for _, e := range []struct{ ext, format string }{
		{".oscal.json", "oscal"}, {".json", "json"}, {".csv", "csv"}, {".xlsx", "xlsx"}, {".md", "md"}, {".markdown", "md"},
		{".reqif", "reqif"}, {".xml", "reqif"}, {".cypher", "cypher"}, {".cql", "cypher"},
	} {
		if strings.HasSuffix(lower, e.ext) {
			return e.format, true
		}
	}
	return "", false
}

// Markdown renders the requirements for people: grouped by the section of
// the source they come from, each with its type, priority, text, citations
// and rationale.
func Markdown(src Source) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Requirements of %s\n\n", markdown.Text(strings.Join(src.Documents, ", ")))
	parts := requirement.TypeCounts(src.Records)
	fmt.Fprintf(&b, "%s", humanize.Plural(len(src.Records), "requirement"))
	if len(parts) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintf(&b, ". Job %s, exported %s.\n", markdown.Text(src.JobID), src.Time.UTC().Format("2006-01-02 15:04 UTC"))
	lastDoc, lastSection := "", "\x00"
	for _, r := range src.Records {
		doc := r.Citations[0].Document
		section := strings.Join(src.SectionsOf(r), " › ")
		if len(src.Documents) > 1 && doc != lastDoc {
			fmt.Fprintf(&b, "\n## %s\n", markdown.Text(doc))
			lastDoc, lastSection = doc, "\x00"
		}
		if section != lastSection {
			lastSection = section
			if section == "" {
				section = "(no section)"
			}
			fmt.Fprintf(&b, "\n### %s\n", markdown.Text(section))
		}
		fmt.Fprintf(&b, "\n#### %s — %s\n\n", markdown.Text(r.ID), markdown.Text(r.Title))
		if r.SourceID != "" || len(r.Attributes) > 0 {
			var ids []string
			if r.SourceID != "" {
				ids = append(ids, "**"+markdown.Text(r.SourceID)+"**")
			}
			for _, k := range slices.Sorted(maps.Keys(r.Attributes)) {
				ids = append(ids, markdown.Text(k)+": "+markdown.Text(r.Attributes[k]))
			}
			fmt.Fprintf(&b, "Source: %s\n\n", strings.Join(ids, " · "))
		}
		meta := []string{"**" + markdown.Text(r.Type) + "**", markdown.Text(r.Priority) + " priority", markdown.Text(strings.ReplaceAll(r.Category, "_", "-"))}
		if len(r.Frameworks) > 0 {
			meta = append(meta, "frameworks: "+markdown.Text(strings.Join(r.Frameworks, ", ")))
		}
		meta = append(meta, fmt.Sprintf("confidence %.2f", r.Confidence))
		if rv := r.Review; rv != nil {
			meta = append(meta, "review: "+markdown.Text(rv.Status))
		}
		fmt.Fprintf(&b, "%s\n\n%s\n\n", strings.Join(meta, " · "), markdown.Text(r.Text))
		for _, c := range r.Citations {
			where := c.Document
			if c.Page > 0 {
				where += fmt.Sprintf(", p. %d", c.Page)
			}
			fmt.Fprintf(&b, "> %s\n>\n> — %s (%s)\n\n", markdown.Text(c.Quote), markdown.Text(where), markdown.Text(c.Chunk))
		}
		if r.Rationale != "" {
			fmt.Fprintf(&b, "Why: %s\n", markdown.Text(r.Rationale))
		}
		if rv := r.Review; rv != nil && rv.Note != "" {
			label := "Review note"
			if rv.Status == requirement.Rejected {
				label = "Rejected because"
			}
			fmt.Fprintf(&b, "\n%s: %s\n", label, markdown.Text(rv.Note))
		}
	}
	return b.Bytes()
}
