// Package templates holds the agent's prompts: the guide copied into every
// new job as instructions.md, and the system prompt.
package templates

import _ "embed"

// Instructions is the agent's guide, copied to instructions.md in each job.
//
//go:embed instructions.md
var Instructions []byte

// SystemPrompt is the agent's system prompt. It is the same at every step of
// every job, so servers can cache the prompt prefix.
//
//go:embed system.md
var SystemPrompt string
