package export

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"creator/internal/document"
	"creator/internal/output"
	"creator/internal/requirement"
)

// The graph model of the Cypher export (one statement per line):
//
//	(:Document {name})
//	(:Section {document, path, title})-[:IN]->(:Document) or (:Section)
//	(:Requirement {job, id, title, text, type, category, priority,
//	               frameworks, confidence, rationale, review_status,
//	               review_note, source_id, attributes})
//	(:Requirement)-[:CITES {chunk, quote, page}]->(:Section) or (:Document)
//
// Every node and relationship is MERGEd on a stable key (the document's
// name; document and section path; job and requirement id; chunk and
// quote) and its other properties SET, so loading the same export twice
// leaves the graph as the first load made it. A load adds and updates; it
// never deletes what an earlier export of the job had and this one lacks.
// A property holds no map, so a requirement's attributes are one JSON
// object in a string ('{}' when none), as in the CSV export; source_id is
// '' when the document gives the requirement no id.

// cypherIndexes speed up the MERGEs on the keys; IF NOT EXISTS makes them
// idempotent too.
var cypherIndexes = []string{
	"CREATE INDEX creator_document IF NOT EXISTS FOR (n:Document) ON (n.name);",
	"CREATE INDEX creator_section IF NOT EXISTS FOR (n:Section) ON (n.document, n.path);",
	"CREATE INDEX creator_requirement IF NOT EXISTS FOR (n:Requirement) ON (n.job, n.id);",
}

// Cypher renders src as Cypher statements that load it into a graph
// database (Neo4j: cypher-shell -f FILE): documents, their sections,
// requirements and the citations between them.
func Cypher(src Source) []byte {
	var b bytes.Buffer
	line := func(format string, args ...any) {
		fmt.Fprintf(&b, format, args...)
		b.WriteString(";\n")
	}
	for _, s := range cypherIndexes {
		b.WriteString(s + "\n")
	}
	for _, d := range src.graphDocuments() {
		line("MERGE (d:Document {name: %s})", cypherString(d))
	}
	for _, s := range src.graphSections() {
		parent := documentNode("p", s.document)
		if len(s.path) > 1 {
			parent = sectionNode("p", s.document, s.path[:len(s.path)-1])
		}
		line("MERGE %s MERGE %s SET s.title = %s MERGE (s)-[:IN]->(p)",
			parent, sectionNode("s", s.document, s.path), cypherString(s.path[len(s.path)-1]))
	}
	for _, r := range src.Records {
		line("MERGE %s SET %s", requirementNode("r", src.JobID, r.ID), requirementProperties("r", r))
	}
	for _, r := range src.Records {
		for _, cit := range r.Citations {
			target := documentNode("t", cit.Document)
			if path := src.SectionOf(cit); len(path) > 0 {
				target = sectionNode("t", src.documentOfChunk(cit), path)
			}
			page := ""
			if cit.Page > 0 {
				page = " SET c.page = " + strconv.Itoa(cit.Page)
			}
			line("MERGE %s MERGE %s MERGE (r)-[c:CITES {chunk: %s, quote: %s}]->(t)%s",
				requirementNode("r", src.JobID, r.ID), target, cypherString(cit.Chunk), cypherString(cit.Quote), page)
		}
	}
	return b.Bytes()
}

func documentNode(v, name string) string {
	return fmt.Sprintf("(%s:Document {name: %s})", v, cypherString(name))
}

func sectionNode(v, doc string, path []string) string {
	return fmt.Sprintf("(%s:Section {document: %s, path: %s})", v, cypherString(doc), cypherString(strings.Join(path, document.SectionSeparator)))
}

func requirementNode(v, job, id string) string {
	return fmt.Sprintf("(%s:Requirement {job: %s, id: %s})", v, cypherString(job), cypherString(id))
}

// requirementProperties is the SET list of a requirement's fields other
// than its key.
func requirementProperties(v string, r requirement.Record) string {
	frameworks := make([]string, len(r.Frameworks))
	for i, f := range r.Frameworks {
		frameworks[i] = cypherString(f)
	}
	props := []struct{ name, value string }{
		{"title", cypherString(r.Title)},
		{"text", cypherString(r.Text)},
		{"type", cypherString(r.Type)},
		{"category", cypherString(r.Category)},
		{"priority", cypherString(r.Priority)},
		{"frameworks", "[" + strings.Join(frameworks, ", ") + "]"},
		{"confidence", cypherFloat(r.Confidence)},
		{"rationale", cypherString(r.Rationale)},
		{"review_status", cypherString(r.ReviewStatus())},
		{"review_note", cypherString(r.ReviewNote())},
		{"source_id", cypherString(r.SourceID)},
		{"attributes", cypherString(output.AttributesJSON(r.Attributes))},
	}
	parts := make([]string, len(props))
	for i, p := range props {
		parts[i] = v + "." + p.name + " = " + p.value
	}
	return strings.Join(parts, ", ")
}

// cypherFloat writes f so that Cypher reads a float, also for whole
// numbers (1 would be an integer).
func cypherFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// cypherString is s as a single-quoted Cypher string literal: backslash
// and quote escaped, a newline as \n, other control characters and line
// separators as \uXXXX, so a statement stays on one line; other non-ASCII
// stays UTF-8 (bytes that are not UTF-8 become U+FFFD).
func cypherString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// graphDocuments are the documents of the export: those of the records,
// then those only the manifest names.
func (s Source) graphDocuments() []string {
	docs := slices.Clone(s.Documents)
	add := func(d string) {
		if d != "" && !slices.Contains(docs, d) {
			docs = append(docs, d)
		}
	}
	for _, r := range s.Records {
		for _, c := range r.Citations {
			add(c.Document)
		}
	}
	for _, c := range s.Manifest.Chunks {
		add(c.Document)
	}
	return docs
}

type graphSection struct {
	document string
	path     []string
}

// graphSections are the sections the manifest names, each after its
// parent, in the order of the document.
func (s Source) graphSections() []graphSection {
	var out []graphSection
	seen := map[string]bool{}
	for _, c := range s.Manifest.Chunks {
		for _, h := range append([]string{c.Heading}, c.Sections...) {
			path := document.SplitSectionPath(h)
			for i := range path {
				key := c.Document + "\x00" + strings.Join(path[:i+1], "\x00")
				if !seen[key] {
					seen[key] = true
					out = append(out, graphSection{c.Document, path[:i+1]})
				}
			}
		}
	}
	return out
}

// documentOfChunk is the document a cited chunk belongs to, by the
// manifest, which also names its sections.
func (s Source) documentOfChunk(cit requirement.Citation) string {
	if c, ok := s.Manifest.Find(cit.Chunk); ok && c.Document != "" {
		return c.Document
	}
	return cit.Document
}
