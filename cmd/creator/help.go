package main

import (
	"embed"
	"strings"

	"github.com/spf13/cobra"

	"creator/internal/document"
)

// helpFiles hold each command's long help and examples as text, one file
// a command (help/<name>.txt): the long help, then "Examples:" and the
// examples, each line indented as --help prints it.
//
//go:embed help/*.txt
var helpFiles embed.FS

// describe gives cmd and its sub-commands their long help and examples
// from their help file; a command without one keeps what it has.
func describe(cmd *cobra.Command) {
	if data, err := helpFiles.ReadFile("help/" + cmd.Name() + ".txt"); err == nil {
		text := strings.ReplaceAll(string(data), "{{extensions}}", strings.Join(document.Extensions(), " "))
		long, examples, _ := strings.Cut(text, "Examples:\n")
		cmd.Long = strings.TrimSpace(long)
		cmd.Example = strings.TrimRight(examples, "\n")
	}
	for _, c := range cmd.Commands() {
		describe(c)
	}
}
