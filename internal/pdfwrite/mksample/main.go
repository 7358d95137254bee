// Command mksample typesets the project's sample policy (Markdown) as a PDF
// with a running header and page numbers: testdata/sample/retention-policy.pdf.
//
//	go run ./internal/pdfwrite/mksample testdata/sample/retention-policy.md testdata/sample/retention-policy.pdf
package main

import (
	"fmt"
	"os"
	"strings"

	"creator/internal/pdfwrite"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mksample SOURCE.md OUT.pdf")
		os.Exit(2)
	}
	src, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	doc := &pdfwrite.Document{
		Title:    "Records Retention and Data Protection Policy",
		Compress: true,
		Pages: pdfwrite.Layout{
			Header: "Northwind Logistics — Policy FIN-07",
			Footer: "Page %d",
			Size:   11,
		}.Pages(Blocks(string(src))),
	}
	if err := os.WriteFile(os.Args[2], doc.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
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
