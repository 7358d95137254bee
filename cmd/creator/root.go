package main

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"creator/workspace"
)

// factory is what the commands take from the process: streams,
// environment and clock. Tests make their own, so they can run in parallel.
type factory struct {
	streams *IOStreams
	getenv  func(string) string
	now     func() time.Time
	// retryBaseDelay is the first wait between attempts at the model
	// server; redrawEvery spaces redraws of the live progress line.
	retryBaseDelay time.Duration
	redrawEvery    time.Duration
	// retrySleep waits between attempts at the model server; nil waits
	// for real.
	retrySleep func(ctx context.Context, d time.Duration) error
	// openURL shows a page in the web browser (review --open).
	openURL func(url string) error
}

// systemFactory is the process's own.
func systemFactory() *factory {
	return &factory{streams: systemStreams(), getenv: os.Getenv, now: time.Now, retryBaseDelay: time.Second, openURL: openInBrowser}
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	*factory
	workspace string // --workspace
}

// root resolves the folder that holds the jobs.
func (g *globalOptions) root() (string, error) {
	env := workspace.SystemEnvironment()
	env.Getenv = g.getenv
	return workspace.ResolveRoot(g.workspace, env)
}

func newRootCmd(f *factory) *cobra.Command {
	g := &globalOptions{factory: f}
	streams := f.streams
	cmd := &cobra.Command{
		Use:   "creator",
		Short: "Extract citation-backed requirements from documents",
		Long: `creator turns documents (regulations, standards, specifications, contracts)
into a list of atomic, testable requirements, each with a verbatim citation.

One agent works inside a job folder: it reads instructions.md, writes its own
plan, hands the chunks of the documents to sub-agents that analyse them in
parallel (--parallel), and writes every result to a file. Watch a job with cat and ls; an interrupted job resumes where it stopped.

Jobs live under the workspace root: --workspace, else $CREATOR_WORKSPACE,
else /workspace inside a container, else ./workspace.`,
		Example: `  creator run --job gobd GoBD.pdf
  creator status --job gobd
  creator resume --job gobd
  creator review --job gobd --open
  creator export --job gobd --format csv -o gobd.csv`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErrorf("unknown command %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmd.Help()
		},
	}
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	cmd.SetIn(streams.In)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// "creator foo --job x": the unknown command, not its flag, is the
		// mistake to name.
		if !c.HasParent() {
			if rest := c.Flags().Args(); len(rest) > 0 {
				return usageErrorf("unknown command %q", rest[0])
			}
		}
		return usageErrorf("%v (see '%s --help')", err, c.CommandPath())
	})
	cmd.PersistentFlags().StringVar(&g.workspace, "workspace", "", "folder that holds the jobs (env "+workspace.RootEnv+")")

	cmd.AddCommand(
		newRunCmd(g),
		newResumeCmd(g),
		newBatchCmd(g),
		newStatusCmd(g),
		newListCmd(g),
		newExportCmd(g),
		newReviewCmd(g),
		newPublishCmd(g),
		newMigrateCmd(g),
		newEnqueueCmd(g),
		newWorkerCmd(g),
		newQueueCmd(g),
		newExtractCmd(g),
		newEvalCmd(g),
		newDiffCmd(g),
		newVersionCmd(g),
	)
	withBashFallback(cmd)
	return cmd
}

// args wraps a cobra argument check so that its failure is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usageErrorf("%v (see 'creator %s --help')", err, cmd.Name())
		}
		return nil
	}
}

// checkJobID refuses a missing or malformed --job.
func checkJobID(id string) error {
	if id == "" {
		return usageErrorf("--job is required")
	}
	if err := workspace.ValidateID(id); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// completeJobs makes the shell complete --job with the ids of the jobs under
// the workspace root.
func completeJobs(cmd *cobra.Command, g *globalOptions) {
	_ = cmd.RegisterFlagCompletionFunc("job", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		root, err := g.root()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ids, _ := workspace.List(root)
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
}

// openInBrowser asks the desktop to open url in the web browser.
func openInBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
