package main

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"
)

// bashWordsFallback defines, when the bash-completion package is not
// loaded, the one function of it that cobra's bash script calls: a minimal
// _get_comp_words_by_ref that reads the words from COMP_WORDS. Without it
// `source <(creator completion bash)` completes nothing on a system
// without bash-completion (a minimal container, macOS's own bash).
const bashWordsFallback = `# Without the bash-completion package: the one function of it this script needs.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
_get_comp_words_by_ref() {
    while [[ $# -gt 0 && $1 == -* ]]; do
        [[ $1 == -n || $1 == -i || $1 == -w ]] && shift
        shift
    done
    local v
    for v in "$@"; do
        case $v in
            cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
            prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
            words) words=("${COMP_WORDS[@]}") ;;
            cword) cword=$COMP_CWORD ;;
        esac
    done
}
fi

`

// withBashFallback makes `creator completion bash` print cobra's script
// after bashWordsFallback.
func withBashFallback(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		for _, sub := range c.Commands() {
			if sub.Name() != "bash" {
				continue
			}
			sub.RunE = func(cmd *cobra.Command, args []string) error {
				noDesc, _ := cmd.Flags().GetBool("no-descriptions")
				var script bytes.Buffer
				if err := root.GenBashCompletionV2(&script, !noDesc); err != nil {
					return err
				}
				_, err := fmt.Fprint(cmd.OutOrStdout(), bashWordsFallback+script.String())
				return err
			}
			sub.Run = nil
		}
	}
}
