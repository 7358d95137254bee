package main

import (
	"io"
	"os"
)

// IOStreams are the streams a command uses; tests replace them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // results and --json
	ErrOut io.Writer // progress, logs and errors
	// ErrTTY is true when ErrOut is a terminal (for a live progress line).
	ErrTTY bool
}

func systemStreams() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrTTY: isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
