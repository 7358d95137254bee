// Package templates holds the files copied into every new job.
package templates

import _ "embed"

// Instructions is the agent's guide, copied to instructions.md in each job.
//
//go:embed instructions.md
var Instructions []byte
