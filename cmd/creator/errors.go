package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"creator/internal/iostreams"
	"creator/internal/jobrun"
	"creator/internal/usage"
)

// Exit codes, as docs/exit-codes.md documents them.
const (
	exitOK          = jobrun.ExitOK
	exitFailure     = jobrun.ExitFailure
	exitUsage       = jobrun.ExitUsage
	exitIncomplete  = jobrun.ExitIncomplete
	exitInterrupted = jobrun.ExitInterrupted
)

// exitError carries an explicit exit code, for outcomes such as "stopped
// at a limit" that are not failures of the program.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitCode maps the error a command returned to the process exit code.
func exitCode(ctx context.Context, err error) int {
	var ue *usage.Error
	var ee *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return exitUsage
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// report prints err, if any, and returns the exit code for it.
func report(ctx context.Context, streams *iostreams.IOStreams, err error) int {
	code := exitCode(ctx, err)
	if err == nil {
		return code
	}
	msg := err.Error()
	if code == exitInterrupted && errors.Is(err, context.Canceled) && msg == context.Canceled.Error() {
		msg = "interrupted"
	}
	fmt.Fprintf(streams.ErrOut, "creator: %s\n", msg)
	var ue *usage.Error
	if errors.As(err, &ue) && !strings.Contains(msg, "--help") {
		fmt.Fprintln(streams.ErrOut, "Run 'creator --help' for usage.")
	}
	return code
}
