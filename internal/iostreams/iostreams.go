// Package iostreams are the streams a command reads and writes, and what
// it knows of the terminal behind them; tests give their own.
package iostreams

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// IOStreams are the streams a command uses; tests replace them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // results and --json
	ErrOut io.Writer // progress, logs and errors
	// ErrTTY is true when ErrOut is a terminal (for a live progress line).
	ErrTTY bool
	// ErrWidth is the terminal's width in columns; nil or 0 means 80.
	ErrWidth func() int
}

// System are the process's own streams.
func System() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ErrTTY: isTerminal(os.Stderr),
		ErrWidth: func() int { return terminalWidth(os.Stderr) }}
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalWidth asks the terminal for its width, then $COLUMNS.
func terminalWidth(f *os.File) int {
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
		return int(ws.Col)
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
