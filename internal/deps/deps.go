//go:build tools

// Package deps pins, in go.mod, modules chosen for parts of the program that
// do not import them yet: bleve v2.5.7 for the workspace search index (v2.6
// needs modules the proxy does not serve), tiktoken-go with its offline BPE
// loader for token counting, and ledongthuc/pdf for PDF text. The build tag
// keeps it out of every build.
package deps

import (
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/ledongthuc/pdf"
	_ "github.com/pkoukk/tiktoken-go"
	_ "github.com/pkoukk/tiktoken-go-loader"
)
