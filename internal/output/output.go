// Package output builds the job's result files from the saved
// requirements: output/requirements.json, output/summary.md and
// output/requirements.csv.
package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"creator/internal/markdown"
	"creator/internal/requirement"
)

// Result files, relative to the job folder.
const (
	RequirementsFile = "output/requirements.json"
	SummaryFile      = "output/summary.md"
	CSVFile          = "output/requirements.csv"
)

// Validate checks the content of output/requirements.json against the
// requirement schema.
func Validate(data []byte) error {
	if err := requirement.ValidateList(data); err != nil {
		return fmt.Errorf("%s: %v", RequirementsFile, err)
	}
	return nil
}

// ReadValid reads a job's output/requirements.json with read and checks
// it against the requirement schema; id names the job in the errors.
func ReadValid(id string, read func(string) ([]byte, error)) ([]byte, error) {
	data, err := read(RequirementsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("job '%s' has no %s yet: it is written when the job completes or stops at a budget; continue the job with 'creator resume --job %s'",
			id, RequirementsFile, id)
	}
	if err != nil {
		return nil, err
	}
	if err := Validate(data); err != nil {
		return nil, fmt.Errorf("job '%s': %s is not valid: %w", id, RequirementsFile, err)
	}
	return data, nil
}

// JSON renders the requirements as output/requirements.json.
func JSON(recs []requirement.Record) ([]byte, error) {
	if recs == nil {
		recs = []requirement.Record{}
	}
	return requirement.Marshal(recs)
}

// Coverage is what summary.md says of how the documents were worked
// through: chunks read in full, cited, declared empty, and those not
// covered with what they miss.
type Coverage struct {
	Chunks, Covered, Read, Cited int
	Uncovered                    []string // "chunk_004 (lines 10-40 not read)"
	Empty                        []EmptyChunk
}

// EmptyChunk is a chunk declared to hold no requirement.
type EmptyChunk struct {
	Chunk, Reason string
}

// maxUncoveredListed bounds the uncovered chunks summary.md names.
const maxUncoveredListed = 20

// Summary renders output/summary.md: counts by type, category, priority
// and framework, the coverage when cov is given, and a table of the
// requirements with their sources. sections holds, by requirement id, the
// section path its first quote stands in ("3 Records › 3.1 Invoices"); the
// table has a section column when any requirement has one.
func Summary(recs []requirement.Record, documents []string, cov *Coverage, sections map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Requirements\n\n%d requirements from %s.\n", len(recs), cell(strings.Join(documents, ", ")))
	if cov != nil && len(recs) == 0 && cov.Chunks > 0 && cov.Covered == cov.Chunks {
		b.WriteString("\nNo requirements: every chunk was read in full and declared to hold none, for the reasons listed below.\n")
	}
	count := func(title string, key func(requirement.Record) []string, order []string) {
		n := map[string]int{}
		for _, r := range recs {
			for _, k := range key(r) {
				n[k]++
			}
		}
		if len(n) == 0 {
			return
		}
		keys := append([]string(nil), order...)
		var extra []string
		for k := range n {
			if !slices.Contains(order, k) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		keys = append(keys, extra...)
		fmt.Fprintf(&b, "\n## By %s\n\n| %s | count |\n|---|---:|\n", title, title)
		for _, k := range keys {
			if n[k] > 0 {
				fmt.Fprintf(&b, "| %s | %d |\n", cell(k), n[k])
			}
		}
	}
	count("type", func(r requirement.Record) []string { return []string{r.Type} }, requirement.Types)
	count("category", func(r requirement.Record) []string { return []string{r.Category} }, requirement.Categories)
	count("priority", func(r requirement.Record) []string { return []string{r.Priority} }, requirement.Priorities)
	count("framework", func(r requirement.Record) []string { return r.Frameworks }, nil)
	if cov != nil {
		writeCoverage(&b, *cov)
	}
	tally := requirement.TallyOf(recs)
	if tally.Reviewed > 0 {
		fmt.Fprintf(&b, "\n## Review\n\n%s.\n", tally)
	}
	if len(recs) > 0 {
		// The review column appears once a person has reviewed any
		// requirement: until then every one would say "pending". The
		// source id column, when the document gives any requirement an id.
		sourceIDs := slices.ContainsFunc(recs, func(r requirement.Record) bool { return r.SourceID != "" })
		head := []string{"id"}
		if sourceIDs {
			head = append(head, "source id")
		}
		withSections := slices.ContainsFunc(recs, func(r requirement.Record) bool { return sections[r.ID] != "" })
		head = append(head, "title", "type", "priority")
		if withSections {
			head = append(head, "section")
		}
		head = append(head, "source")
		if tally.Reviewed > 0 {
			head = append(head, "review")
		}
		fmt.Fprintf(&b, "\n## Requirements\n\n| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, r := range recs {
			fmt.Fprintf(&b, "| %s |", cell(r.ID))
			if sourceIDs {
				fmt.Fprintf(&b, " %s |", cell(r.SourceID))
			}
			fmt.Fprintf(&b, " %s | %s | %s |", cell(r.Title), cell(r.Type), cell(r.Priority))
			if withSections {
				fmt.Fprintf(&b, " %s |", cell(sections[r.ID]))
			}
			fmt.Fprintf(&b, " %s |", cell(Sources(r)))
			if tally.Reviewed > 0 {
				fmt.Fprintf(&b, " %s |", r.ReviewStatus())
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

func writeCoverage(b *bytes.Buffer, c Coverage) {
	fmt.Fprintf(b, "\n## Coverage\n\n%d of %d chunks covered: %d read in full, %d cited by a requirement, %d declared empty.\n",
		c.Covered, c.Chunks, c.Read, c.Cited, len(c.Empty))
	if n := len(c.Uncovered); n > 0 {
		shown := c.Uncovered[:min(n, maxUncoveredListed)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(", and %d more", n-len(shown))
		}
		fmt.Fprintf(b, "\nNot covered: %s%s.\n", strings.Join(shown, ", "), more)
	}
	if len(c.Empty) > 0 {
		b.WriteString("\n### Chunks declared empty\n\n| chunk | reason |\n|---|---|\n")
		for _, e := range c.Empty {
			fmt.Fprintf(b, "| %s | %s |\n", e.Chunk, cell(e.Reason))
		}
	}
}

// Sources names where a requirement comes from: "GoBD.pdf p. 14, 15".
func Sources(r requirement.Record) string {
	var parts []string
	byDoc := map[string][]string{}
	var docs []string
	for _, c := range r.Citations {
		if _, ok := byDoc[c.Document]; !ok {
			docs = append(docs, c.Document)
		}
		if c.Page > 0 {
			p := strconv.Itoa(c.Page)
			if !slices.Contains(byDoc[c.Document], p) {
				byDoc[c.Document] = append(byDoc[c.Document], p)
			}
		} else if byDoc[c.Document] == nil {
			byDoc[c.Document] = []string{}
		}
	}
	for _, d := range docs {
		if pages := byDoc[d]; len(pages) > 0 {
			parts = append(parts, d+" p. "+strings.Join(pages, ", "))
		} else {
			parts = append(parts, d)
		}
	}
	return strings.Join(parts, "; ")
}

// CSV renders output/requirements.csv, one row per requirement with a
// header; several citations are joined with " | " in their columns. The
// columns review and review_note are the review status (pending until a
// person decides) and the reviewer's note; the last two the document's id
// of the requirement and its columns, as a JSON object ({} when none).
// A cell a spreadsheet would take for a formula is written as text
// (SpreadsheetText).
func CSV(recs []requirement.Record) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(TableHeader())
	for _, r := range recs {
		row := TableRow(r)
		for i, c := range row {
			row[i] = SpreadsheetText(c)
		}
		w.Write(row)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// formulaStart are the first characters that make Excel, LibreOffice and
// Google Sheets read a cell as a formula (OWASP, CSV injection).
const formulaStart = "=+-@\t\r"

// plainNumber is a number as a spreadsheet reads one: -1, +2.5, 1e-3.
var plainNumber = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// SpreadsheetText neutralises a CSV cell a spreadsheet would run as a
// formula (=HYPERLINK(…), +cmd|…, @SUM(…), -2+3): one that begins with = +
// - @, a tab or a carriage return gets a single quote in front, which makes
// it text. A plain number (-1, +2.5) is no formula and stays as it is. So
// that the text can be read back exactly, a cell that begins with single
// quotes followed by one of those characters gets one quote more: a reader
// drops the first character of a cell that begins with ' and, after any
// further quotes, one of = + - @ tab carriage return (docs/export.md).
func SpreadsheetText(s string) string {
	rest := strings.TrimLeft(s, "'")
	if rest == "" || !strings.ContainsRune(formulaStart, rune(rest[0])) {
		return s
	}
	if len(rest) == len(s) && plainNumber.MatchString(s) {
		return s
	}
	return "'" + s
}

// TableHeader are the columns of a requirement as a table row (the CSV,
// the XLSX export).
func TableHeader() []string {
	return []string{"id", "title", "text", "type", "category", "priority", "frameworks", "documents", "chunks", "pages", "quotes", "confidence", "rationale", "review", "review_note",
		"source_id", "attributes"}
}

// TableRow is a requirement as a table row, its cells in TableHeader's
// order: several citations joined with " | ".
func TableRow(r requirement.Record) []string {
	var docs, chunks, pages, quotes []string
	for _, c := range r.Citations {
		docs = append(docs, c.Document)
		chunks = append(chunks, c.Chunk)
		page := ""
		if c.Page > 0 {
			page = strconv.Itoa(c.Page)
		}
		pages = append(pages, page)
		quotes = append(quotes, c.Quote)
	}
	return []string{r.ID, r.Title, r.Text, r.Type, r.Category, r.Priority, strings.Join(r.Frameworks, "; "),
		strings.Join(docs, " | "), strings.Join(chunks, " | "), strings.Join(pages, " | "), strings.Join(quotes, " | "),
		strconv.FormatFloat(r.Confidence, 'f', -1, 64), r.Rationale, r.ReviewStatus(), r.ReviewNote(), r.SourceID, AttributesJSON(r.Attributes)}
}

// AttributesJSON is a requirement's attributes as one JSON object, its
// names sorted; {} when it has none.
func AttributesJSON(attrs map[string]string) string {
	if len(attrs) == 0 {
		return "{}"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "R&D" stays as it is written
	_ = enc.Encode(attrs)    // a map of strings always encodes; names sorted
	return strings.TrimSuffix(b.String(), "\n")
}

// cell is text of the requirements, the documents or the model as it
// stands in summary.md: escaped, so it renders as written (markdown.Text).
func cell(s string) string { return markdown.Text(s) }
