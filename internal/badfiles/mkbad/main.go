// Command mkbad writes the hostile-document corpus into a folder:
//
//	go run ./internal/badfiles/mkbad testdata/bad
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"creator/internal/badfiles"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkbad FOLDER")
		os.Exit(2)
	}
	if err := os.MkdirAll(os.Args[1], 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, f := range badfiles.Files() {
		if err := os.WriteFile(filepath.Join(os.Args[1], f.Name), f.Data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
