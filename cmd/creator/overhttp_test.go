package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"creator/internal/job"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/fakellm"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
	"creator/internal/transcript"
	"creator/workspace"
)

// builtinOverHTTP is the built-in model answering behind the fake server
// for the jobs under *root. The client sends a message's text and never
// its data, which the built-in model reads; so that it answers as it does
// in process, each request gets the data its messages have in the job's
// transcript, and a summary request the turns it renders.
func builtinOverHTTP(root *string) fakellm.Handler {
	model := fakellm.Model(offlinemodel.New())
	return func(r fakellm.Request) fakellm.Reply {
		r.Messages = withJobData(*root, r)
		return model(r)
	}
}

// withJobData returns the messages of a request with the data of the job
// whose conversation they are, or as they are when no job's is.
func withJobData(root string, r fakellm.Request) []llm.Message {
	dirs, _ := filepath.Glob(filepath.Join(root, "*", ".agent"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, filepath.Base(transcript.File)))
		if err != nil {
			continue
		}
		recs, err := transcript.Parse(bytes.NewReader(data))
		if err != nil {
			continue
		}
		conv, _ := agent.Rebuild(recs)
		if r.System == compaction.SummaryPrompt {
			req, _, ok := summaryConfig(dir).SummaryRequest(conv.Messages)
			if ok && len(r.Messages) == 1 && req.Messages[0].Content == r.Messages[0].Content {
				return req.Messages
			}
			continue
		}
		if out, ok := withDataOf(conv.Messages, r.Messages); ok {
			return out
		}
	}
	// A sub-agent's conversation: its transcript's last attempt.
	subs, _ := filepath.Glob(filepath.Join(root, "*", filepath.FromSlash(job.SubagentDir), "*.jsonl"))
	for _, file := range subs {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		recs, err := transcript.Parse(bytes.NewReader(data))
		if err != nil {
			continue
		}
		for i := len(recs) - 1; i >= 0; i-- {
			if recs[i].Type == transcript.TypeResume {
				recs = recs[i+1:]
				break
			}
		}
		conv, _ := agent.Rebuild(recs)
		if out, ok := withDataOf(conv.Messages, r.Messages); ok {
			return out
		}
	}
	return r.Messages
}

// withDataOf gives the messages sent the data of conv's, when they are
// the same conversation.
func withDataOf(conv, sent []llm.Message) ([]llm.Message, bool) {
	if !sameConversation(conv, sent) {
		return nil, false
	}
	out := append([]llm.Message(nil), sent...)
	for i := range out {
		out[i].Data = conv[i].Data
	}
	return out, true
}

// sameConversation reports whether sent is the conversation as the client
// sends it: the same messages, tool names and data aside (and arguments,
// which a resume may repair without a record).
func sameConversation(conv, sent []llm.Message) bool {
	if len(conv) != len(sent) {
		return false
	}
	for i, m := range conv {
		if m.Role != sent[i].Role || m.Content != sent[i].Content || m.ToolCallID != sent[i].ToolCallID || len(m.ToolCalls) != len(sent[i].ToolCalls) {
			return false
		}
	}
	return true
}

// summaryConfig is the context management of the job whose .agent folder
// is dir, as it runs.
func summaryConfig(dir string) compaction.Config {
	var info workspace.Info
	if data, err := os.ReadFile(filepath.Join(dir, filepath.Base(workspace.InfoFile))); err == nil {
		json.Unmarshal(data, &info)
	}
	s := info.Settings
	return compaction.Config{ContextWindow: s.ContextWindow, SummarizeAt: s.SummarizeAt, KeepToolResults: s.KeepToolResults}.Resolved()
}
