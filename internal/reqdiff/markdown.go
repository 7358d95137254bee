package reqdiff

import (
	"bytes"
	"fmt"
	"strings"

	"creator/internal/humanize"
)

// Markdown renders a comparison for people: a count line, then the added,
// removed and changed requirements, each under its id and section; a
// changed one lists its changes and both quotes.
func Markdown(r Result) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Requirements of job %s compared with job %s\n\n", r.NewJob, r.OldJob)
	fmt.Fprintf(&b, "%d added, %d removed, %d changed, %d unchanged.\n", len(r.Added), len(r.Removed), len(r.Changed), r.Unchanged)
	for _, part := range []struct {
		title string
		items []Item
	}{{"Added", r.Added}, {"Removed", r.Removed}} {
		if len(part.items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n", part.title)
		for _, it := range part.items {
			fmt.Fprintf(&b, "\n### %s%s\n\n", it.ID, inSection(it.Section))
			fmt.Fprintf(&b, "**%s** · %s priority · %s\n\n%s\n\n", it.Type, it.Priority, strings.ReplaceAll(it.Category, "_", "-"), humanize.OneLine(it.Text))
			writeQuotes(&b, "", it)
		}
	}
	if len(r.Changed) > 0 {
		b.WriteString("\n## Changed\n")
	}
	for _, p := range r.Changed {
		fmt.Fprintf(&b, "\n### %s → %s%s\n\n", p.Old.ID, p.New.ID, inSection(p.New.Section))
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "- %s: %s\n", c.Field, describe(c))
		}
		b.WriteString("\n")
		writeQuotes(&b, "Old: ", p.Old)
		b.WriteString(">\n")
		writeQuotes(&b, "New: ", p.New)
	}
	return b.Bytes()
}

func inSection(s string) string {
	if s == "" {
		return ""
	}
	return " · " + s
}

// writeQuotes writes the quotes of an item as one block quote.
func writeQuotes(b *bytes.Buffer, label string, it Item) {
	for i, c := range it.Citations {
		if i > 0 {
			b.WriteString(">\n")
		}
		fmt.Fprintf(b, "> %s%s\n", label, humanize.OneLine(c.Quote))
	}
}

// describe says one change in words: "ten" → "eight", + "annually",
// − "annually".
func describe(c Change) string {
	switch {
	case c.Old == "":
		return fmt.Sprintf("+ %q", c.New)
	case c.New == "":
		return fmt.Sprintf("− %q", c.Old)
	}
	return fmt.Sprintf("%q → %q", c.Old, c.New)
}
