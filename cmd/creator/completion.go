package main

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/spf13/cobra"
)

// bashWordsFallback defines, when the bash-completion package is not
// loaded, the one function of it that cobra's bash script calls: a minimal
// _get_comp_words_by_ref that reads the words from COMP_WORDS. Without it
// `source <(creator completion bash)` completes nothing on a system
// without bash-completion (a minimal container, macOS's own bash).
//
//go:embed bash_fallback.sh
var bashWordsFallback string

// withBashFallback makes `creator completion bash` print cobra's script
// after bashWordsFallback.
func withBashFallback(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	bash, _, err := root.Find([]string{"completion", "bash"})
	if err != nil || bash.Name() != "bash" {
		return
	}
	bash.Run, bash.RunE = nil, func(cmd *cobra.Command, args []string) error {
		noDesc, _ := cmd.Flags().GetBool("no-descriptions")
		var script bytes.Buffer
		if err := root.GenBashCompletionV2(&script, !noDesc); err != nil {
			return err
		}
		_, err := fmt.Fprint(cmd.OutOrStdout(), bashWordsFallback+script.String())
		return err
	}
}
