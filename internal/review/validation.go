package review

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"creator/internal/markdown"
	"creator/internal/reqstore"
	"creator/internal/requirement"
	"creator/workspace"
)

// The review's part of validation.md lies between these lines, so that
// what else the file holds (the agent's own notes) is kept.
const (
	blockStart = "<!-- review: written by creator review; edits here are replaced -->"
	blockEnd   = "<!-- end of review -->"
)

// writeValidation writes r's review into its validation.md, when the
// file does not say it already; a requirement without a review (back to
// pending) loses its block.
func (s *Service) writeValidation(r requirement.Record) error {
	file, ok := reqstore.FileOf(r.ID, "validation.md")
	if !ok {
		return fmt.Errorf("%q is not a requirement id", r.ID)
	}
	old, err := s.cfg.Files.ReadInternal(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if r.Review == nil && err != nil {
		return nil // nothing to take back
	}
	block := ""
	if r.Review != nil {
		block = validationBlock(r)
	}
	next := withBlock(string(old), block)
	if next == string(old) {
		return nil
	}
	write := s.cfg.Files.WriteFile
	if r, ok := s.cfg.Files.(replacer); ok {
		// Whole once it has its name; a power cut that undoes the rename
		// leaves the file before the decision, which Sync writes again.
		write = r.ReplaceFile
	}
	_, err = write(file, []byte(next))
	return err
}

// replacer is the file access that can replace a file without flushing
// its folder to disk (workspace.Files.ReplaceFile).
type replacer interface {
	ReplaceFile(rel string, data []byte) (workspace.WriteResult, error)
}

// withBlock puts block in place of the review block of doc, or above the
// rest of it.
func withBlock(doc, block string) string {
	if i := strings.Index(doc, blockStart); i >= 0 {
		if j := strings.Index(doc[i:], blockEnd); j >= 0 {
			rest := strings.TrimPrefix(doc[i+j+len(blockEnd):], "\n")
			if block == "" {
				rest = strings.TrimPrefix(rest, "\n") // the blank line withBlock put after it
			}
			return doc[:i] + block + rest
		}
	}
	if doc == "" || block == "" {
		return block + doc
	}
	return block + "\n" + doc
}

// validationBlock renders a review for people:
//
//	# Review of REQ-003
//
//	- Decision: rejected
//	- Reason: repeats REQ-002
//	- Reviewed: 2026-11-23T10:00:00Z by alice
func validationBlock(r requirement.Record) string {
	rv := r.Review
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n# Review of %s\n\n- Decision: %s\n", blockStart, r.ID, rv.Status)
	if rv.Note != "" {
		label := "Note"
		if rv.Status == requirement.Rejected {
			label = "Reason"
		}
		fmt.Fprintf(&b, "- %s: %s\n", label, markdown.Text(rv.Note))
	}
	who := ""
	if rv.By != "" {
		who = " by " + markdown.Text(rv.By)
	}
	fmt.Fprintf(&b, "- Reviewed: %s%s\n", rv.At, who)
	if len(rv.Changes) > 0 {
		b.WriteString("\n## Changes\n\n| field | extracted | now |\n|---|---|---|\n")
		for _, name := range Editable {
			if c, ok := rv.Changes[name]; ok {
				fmt.Fprintf(&b, "| %s | %s | %s |\n", name, cell(c.From), cell(c.To))
			}
		}
	}
	b.WriteString(blockEnd + "\n")
	return b.String()
}

// cell is a value in the changes table; like the note it is escaped, so
// that a reviewer's text is shown as written and can never close the
// review's block (its marker lines are HTML comments).
func cell(s string) string { return markdown.Text(s) }
