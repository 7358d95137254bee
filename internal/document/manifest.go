package document

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ManifestFile is where the chunk list is kept in a job.
const ManifestFile = "chunks/manifest.json"

// Manifest is the content of chunks/manifest.json: the chunks of every
// document of the job, in order.
type Manifest struct {
	Chunks []ManifestChunk `json:"chunks"`
}

// SectionSeparator stands between the headings of a section path in a
// chunk's Heading and Sections: "3 Records > 3.1 Invoices".
const SectionSeparator = " > "

// ManifestChunk describes one chunk file.
type ManifestChunk struct {
	ID        string   `json:"id"`
	File      string   `json:"file"`     // chunks/chunk_007.md
	Document  string   `json:"document"` // the source document's name, as cited: GoBD.pdf
	Source    string   `json:"source"`   // the extracted text it was cut from: input/GoBD.txt
	Heading   string   `json:"heading"`
	Sections  []string `json:"sections,omitempty"`
	FirstPage int      `json:"first_page,omitempty"`
	LastPage  int      `json:"last_page,omitempty"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Tokens    int      `json:"tokens"`
	// TableHeader is the header of the table the chunk starts in the
	// middle of; the chunk file repeats it over the chunk's text.
	TableHeader string `json:"table_header,omitempty"`
}

// ParseManifest reads chunks/manifest.json.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s is not valid JSON: %v", ManifestFile, err)
	}
	return m, nil
}

// Find returns the chunk with the given id.
func (m Manifest) Find(id string) (ManifestChunk, bool) {
	for _, c := range m.Chunks {
		if c.ID == id {
			return c, true
		}
	}
	return ManifestChunk{}, false
}

// chunkNumberRE reads a chunk named by its number: "chunk_003", "chunk 3", "3".
var chunkNumberRE = regexp.MustCompile(`^(?:chunk[ _-]?)?0*(\d+)$`)

// Lookup finds the chunk a model names: by its id, or the same chunk
// given as a file name or path ("chunk_003.md", "chunks/chunk_003.md"), in
// another case, or by its number ("3", "chunk 3").
func (m Manifest) Lookup(given string) (ManifestChunk, bool) {
	if c, ok := m.Find(given); ok {
		return c, true
	}
	s := strings.ToLower(strings.TrimSpace(given))
	s = strings.TrimPrefix(s, "./")
	s = strings.TrimPrefix(s, "chunks/")
	s = strings.TrimSuffix(s, ".md")
	g := chunkNumberRE.FindStringSubmatch(s)
	if g == nil {
		return ManifestChunk{}, false
	}
	for _, c := range m.Chunks {
		if n := chunkNumberRE.FindStringSubmatch(c.ID); n != nil && n[1] == g[1] {
			return c, true
		}
	}
	return ManifestChunk{}, false
}

// Pages renders a page range: "p. 4", "pp. 4–6", or "" for unpaged text.
func (c ManifestChunk) Pages() string {
	switch {
	case c.FirstPage == 0:
		return ""
	case c.LastPage <= c.FirstPage:
		return fmt.Sprintf("p. %d", c.FirstPage)
	}
	return fmt.Sprintf("pp. %d-%d", c.FirstPage, c.LastPage)
}

// ChunkFile renders a chunk file: one header line naming the chunk, its
// document, pages and section, a blank line, then the text. A chunk that
// starts in the middle of a table has the table's header over its text.
//
//	[chunk_007 | GoBD.pdf | pp. 12-14 | 3. Allgemeine Anforderungen > 3.2 …]
func ChunkFile(c ManifestChunk, text string) string {
	if c.TableHeader != "" {
		text = c.TableHeader + "\n" + text
	}
	parts := []string{c.ID, c.Document}
	if p := c.Pages(); p != "" {
		parts = append(parts, p)
	}
	if c.Heading != "" {
		parts = append(parts, c.Heading)
	}
	return "[" + strings.Join(parts, " | ") + "]\n\n" + text
}

// ChunkBody returns the text of a chunk file without its header line.
func ChunkBody(file string) string {
	if strings.HasPrefix(file, "[chunk_") {
		if i := strings.Index(file, "]\n"); i >= 0 {
			return strings.TrimPrefix(file[i+2:], "\n")
		}
	}
	return file
}

// SectionAt returns the heading path of byte offset at of the chunk's
// body: the chunk's heading, or the last of its sections whose heading
// line stands before at. A negative at (a quote not found) gives the
// chunk's heading.
func (c ManifestChunk) SectionAt(body string, at int) []string {
	path := SplitSectionPath(c.Heading)
	if at < 0 {
		return path
	}
	pos := 0
	for _, sec := range c.Sections {
		p := SplitSectionPath(sec)
		if len(p) == 0 {
			continue
		}
		start := headingLine(body, pos, p[len(p)-1])
		if start < 0 {
			continue
		}
		if start > at {
			break
		}
		path, pos = p, start+1
		if nl := strings.IndexByte(body[start:], '\n'); nl >= 0 {
			pos = start + nl + 1 // the next heading is on a later line
		}
	}
	return path
}

// SplitSectionPath splits a section path ("3 Records > 3.1 Invoices").
func SplitSectionPath(h string) []string {
	var path []string
	for _, part := range strings.Split(h, SectionSeparator) {
		if part = strings.TrimSpace(part); part != "" {
			path = append(path, part)
		}
	}
	return path
}

// headingLine finds, from byte from on (the start of a line), the line of
// text that is the heading titled title as a section path names it
// (HeadingTitle: Markdown hashes and extra spaces left out, a long title
// shortened), and returns its offset or -1. A body line that only begins
// with the title's words is no match.
func headingLine(text string, from int, title string) int {
	for from < len(text) {
		end := strings.IndexByte(text[from:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += from
		}
		if HeadingTitle(text[from:end]) == title {
			return from
		}
		from = end + 1
	}
	return -1
}
