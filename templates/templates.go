// Package templates holds the agent's prompts: the guide copied into every
// new job as instructions.md, the system prompt, and the system prompt of
// the sub-agents.
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

// SubagentPrompt is the system prompt of a sub-agent that analyses one
// chunk (analyze_chunks). It is the same for every chunk of every job, so
// a server caches it once for all of them.
//
//go:embed subagent.md
var SubagentPrompt string
