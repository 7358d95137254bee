// Package usage is the error of a setting or an argument that cannot
// work: the command line's mistake (exit 2), said before anything is made.
// Every layer that checks what a person gave returns it, and the command
// line maps it to its exit code in one place.
package usage

import "fmt"

// Error is a setting or an argument that cannot work.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Errorf makes an Error.
func Errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}
