// Command creator extracts citation-backed requirements from documents with
// one self-directing agent that works inside a per-job folder on disk.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(mainRun())
}

// mainRun runs the command line with the process's arguments and streams,
// under a context that Ctrl-C and SIGTERM cancel.
func mainRun() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal cancels the context and the job winds down cleanly;
	// from then on signals have their default effect, so a second Ctrl-C
	// ends the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	return execute(ctx, os.Args[1:], systemFactory())
}

// execute runs one command line and returns the process exit code. It is
// the one place where errors become exit codes and messages.
func execute(ctx context.Context, args []string, f *factory) int {
	root := newRootCmd(f)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	return report(ctx, f.streams, err)
}
