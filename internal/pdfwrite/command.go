package pdfwrite

import (
	"fmt"
	"os"
)

// Typeset makes a PDF's document from a source text.
type Typeset func(src string) *Document

// Command is the main of a tool that typesets a source file as a PDF
// ("mksample SOURCE.md OUT.pdf"): it returns the process's exit code.
func Command(name string, args []string, typeset Typeset) int {
	if len(args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s SOURCE OUT.pdf\n", name)
		return 2
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.WriteFile(args[1], typeset(string(src)).Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
