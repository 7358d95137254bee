package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"creator/internal/app"
	"creator/internal/browser"
	"creator/internal/iostreams"
	"creator/internal/usage"
	"creator/workspace"
)

// factory is what the commands take from the process: streams,
// environment and clock. Tests make their own, so they can run in parallel.
type factory struct {
	streams *iostreams.IOStreams
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
	return &factory{streams: iostreams.System(), getenv: os.Getenv, now: time.Now, retryBaseDelay: time.Second, openURL: browser.Open}
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	*factory
	workspace string // --workspace
	// ws is the workspace --workspace names, once resolve has run.
	ws app.Workspace
}

// env is what the application takes from the process.
func (g *globalOptions) env() app.Env {
	return app.Env{Getenv: g.getenv, Now: g.now, RetryBaseDelay: g.retryBaseDelay, RetrySleep: g.retrySleep, Version: versionString(),
		Log: func(format string, args ...any) { fmt.Fprintf(g.streams.ErrOut, "creator: "+format+"\n", args...) }}
}

// resolve finds the folder that holds the jobs, before a command that
// works on jobs runs (its PreRunE).
func (g *globalOptions) resolve(cmd *cobra.Command, _ []string) error {
	var err error
	g.ws, err = app.OpenWorkspace(cmd.Context(), g.workspace, g.env())
	return err
}

func newRootCmd(f *factory) *cobra.Command {
	g := &globalOptions{factory: f}
	streams := f.streams
	cmd := &cobra.Command{
		Use:           "creator",
		Short:         "Extract citation-backed requirements from documents",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usage.Errorf("unknown command %q", args[0])
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
				return usage.Errorf("unknown command %q", rest[0])
			}
		}
		return usage.Errorf("%v (see '%s --help')", err, c.CommandPath())
	})
	cmd.PersistentFlags().StringVar(&g.workspace, "workspace", "", "folder that holds the jobs, or a bucket: s3://bucket/prefix, gs://…, azblob://…, file:///… (env "+workspace.RootEnv+")")

	cmd.AddCommand(
		newRunCmd(g, runRun),
		newResumeCmd(g, runResume),
		newBatchCmd(g, runBatch),
		newStatusCmd(g, runStatus),
		newListCmd(g, runList),
		newExportCmd(g, runExport),
		newReviewCmd(g, runReview),
		newPublishCmd(g, runPublish),
		newMigrateCmd(g, runMigrate),
		newEnqueueCmd(g, runEnqueue),
		newWorkerCmd(g, runWorker),
		newQueueCmd(g, runQueue),
		newExtractCmd(g, runExtract),
		newEvalCmd(g, runEval),
		newDiffCmd(g, runDiff),
		newPullCmd(g, runPull),
		newVersionCmd(g),
	)
	withBashFallback(cmd)
	describe(cmd)
	return cmd
}

// args wraps a cobra argument check so that its failure is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return usage.Errorf("%v (see 'creator %s --help')", err, cmd.Name())
		}
		return nil
	}
}

// atLeastOne refuses a command line without arguments, saying what to
// give.
func atLeastOne(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, a []string) error {
		if len(a) == 0 {
			return usage.Errorf("%s", what)
		}
		return nil
	}
}

// jobFlag adds --job, which the shell completes with the ids of the jobs
// under the workspace root.
func jobFlag(cmd *cobra.Command, g *globalOptions, id *string, help string) {
	cmd.Flags().StringVar(id, "job", "", help)
	_ = cmd.RegisterFlagCompletionFunc("job", func(c *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		w, err := app.OpenWorkspace(c.Context(), g.workspace, g.env())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer w.Close()
		ids, _ := w.IDs(c.Context())
		return ids, cobra.ShellCompDirectiveNoFileComp
	})
}
