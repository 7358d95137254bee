package settings

import (
	"strconv"
	"strings"
	"time"

	"creator/internal/humanize"
)

// Flag is a setting as a command line gives it: its name (the flag's
// without dashes), what --help says of it, and its field of a Settings.
type Flag struct {
	Name  string
	Usage string
	Value Value
}

// Flags are every setting of s as flags, each setting its field of s;
// a flag's default is the field's value when it is bound.
func Flags(s *Settings) []Flag {
	out := make([]Flag, len(fields))
	for i, f := range fields {
		out[i] = Flag{Name: f.name, Usage: f.usage, Value: Value{ptr: f.ptr(s), size: f.name == SetMaxText}}
	}
	return out
}

// Value is one field of a Settings as a flag sets and shows it (a
// pflag.Value). Numbers, durations and switches read as
// Go reads them; a size takes a unit (SizeValue).
type Value struct {
	ptr  any
	size bool
}

// SizeValue is a size in bytes as a flag gives it: a number with an
// optional unit, decimal (KB, MB, GB) or binary (KiB, MiB, GiB), as
// humanize prints them.
func SizeValue(n *int64) Value { return Value{ptr: n, size: true} }

func (v Value) String() string {
	switch p := v.ptr.(type) {
	case *string:
		return *p
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		if v.size {
			if *p == 0 {
				return ""
			}
			return strings.ReplaceAll(humanize.Bytes(*p), " ", "")
		}
		return strconv.FormatInt(*p, 10)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *bool:
		return strconv.FormatBool(*p)
	case *Duration:
		return time.Duration(*p).String()
	}
	return ""
}

func (v Value) Set(s string) error {
	if v.size {
		n, err := humanize.ParseBytes(s)
		if err == nil {
			*v.ptr.(*int64) = n
		}
		return err
	}
	return parseValue(v.ptr, s)
}

// Type names the kind of value --help shows after the flag; "bool" is a
// switch, given without a value (and has no IsBoolFlag, which would make
// pflag show every zero default).
func (v Value) Type() string {
	switch v.ptr.(type) {
	case *int:
		return "int"
	case *int64:
		if v.size {
			return "size"
		}
		return "int64"
	case *float64:
		return "float64"
	case *bool:
		return "bool"
	case *Duration:
		return "duration"
	}
	return "string"
}
