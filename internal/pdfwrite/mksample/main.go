// Command mksample typesets the project's sample policy (Markdown) as a PDF
// with a running header and page numbers: testdata/sample/retention-policy.pdf.
//
//	go run ./internal/pdfwrite/mksample testdata/sample/retention-policy.md testdata/sample/retention-policy.pdf
package main

import (
	"os"
	"strings"

	"creator/internal/pdfwrite"
)

func main() {
	os.Exit(pdfwrite.Command("mksample", os.Args[1:], func(src string) *pdfwrite.Document {
		return &pdfwrite.Document{
			Title:    "Records Retention and Data Protection Policy",
			Compress: true,
			Pages: pdfwrite.Layout{
				Header: "Northwind Logistics — Policy FIN-07",
				Footer: "Page %d",
				Size:   11,
			}.Pages(Blocks(src)),
		}
	}))
}

// Blocks turns Markdown into headings and paragraphs: "#" lines are
// headings, other lines are joined into paragraphs at blank lines, and
// emphasis marks are dropped.
func Blocks(md string) []pdfwrite.Block {
	var out []pdfwrite.Block
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, pdfwrite.Block{Text: strings.Join(para, " ")})
			para = nil
		}
	}
	for _, line := range strings.Split(md, "\n") {
		line = strings.TrimSpace(strings.ReplaceAll(line, "*", ""))
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "#"):
			flush()
			out = append(out, pdfwrite.Block{Heading: true, Text: strings.TrimSpace(strings.TrimLeft(line, "#"))})
		default:
			para = append(para, line)
		}
	}
	flush()
	return out
}
