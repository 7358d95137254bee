package main

import (
	"fmt"
	"strconv"
	"strings"

	"creator/internal/humanize"
)

// byteSize is a flag of a size in bytes: a number with an optional unit,
// decimal (KB, MB, GB) or binary (KiB, MiB, GiB), as humanize prints them.
type byteSize struct{ n *int64 }

func (b byteSize) String() string {
	if b.n == nil || *b.n == 0 {
		return ""
	}
	return strings.ReplaceAll(humanize.Bytes(*b.n), " ", "")
}

func (b byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b.n = n
	return nil
}

func (byteSize) Type() string { return "size" }

var sizeUnits = []struct {
	suffix string
	factor float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"b", 1},
}

// parseSize reads "64MB", "1.5 GB", "500KiB" or a number of bytes.
func parseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	factor := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(t, u.suffix) {
			t, factor = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.factor
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a size such as 64MB, 1.5GB or 500000", s)
	}
	return int64(v * factor), nil
}

// envSize reads a size from the environment, else def.
func envSize(f *factory, name string, def int64) int64 {
	if n, err := parseSize(f.getenv(name)); err == nil {
		return n
	}
	return def
}
