package compaction

import (
	"context"
	"fmt"
	"strings"

	"creator/internal/agent"
	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/transcript"
	"creator/planner"
)

// SummaryPrompt is the system prompt of a summary request. A summary
// request carries no tools.
const SummaryPrompt = `You compress the working memory of an agent that extracts citation-backed requirements from documents inside a job folder. Summarise the conversation you are given for the agent itself, so that it can continue without it: the decisions taken, what was found, what is done, what is still open, and whatever the next steps need (file names, chunk ids, requirement ids, problems met and how they were solved). Do not copy file contents or quotes: the workspace holds them. Write at most 400 words of plain sentences and short lists.`

// Kinds of the messages compaction writes (llm.MessageData.Kind).
const (
	// KindSummary is the message that replaces the summarised turns; its
	// value is SummaryData.
	KindSummary = "summary"
	// KindTurns is the message of a summary request; its value is the
	// turns it renders, as []llm.Message without their data.
	KindTurns = "turns"
)

// SummaryData is the data of a summary message: the plan its brief shows.
type SummaryData struct {
	Plan []planner.Task `json:"plan,omitempty"`
}

// summaryIntro opens the message that replaces the summarised turns.
const summaryIntro = "Summary of the earlier conversation, written to keep the prompt short. The files in the workspace hold every result; the brief below is read from them."

// summarize is layer 3: everything but the first message and the most
// recent exchanges is replaced by a summary and the workspace brief.
func (m *Manager) summarize(ctx context.Context, conv *agent.Conversation, before int) error {
	msgs := conv.Messages
	req, cut, ok := m.cfg.SummaryRequest(msgs)
	if !ok {
		return nil // nothing old enough to summarise
	}
	old := msgs[1:cut]
	text, err := m.summaryText(ctx, req)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	var b strings.Builder
	b.WriteString(summaryIntro + "\n\n")
	if err != nil {
		fmt.Fprintf(&b, "(The summary could not be written: %v. Rely on the brief.)\n\n", err)
	} else {
		b.WriteString(strings.TrimSpace(text) + "\n\n")
	}
	brief := m.brief()
	b.WriteString(brief.Text)
	summary := llm.Message{Role: llm.RoleUser, Content: b.String(),
		Data: llm.MessageData{Kind: KindSummary, Value: llm.ValueOf(SummaryData{Plan: brief.Plan})}}
	next := []llm.Message{msgs[0], summary}
	next = append(next, msgs[cut:]...)
	if err := llm.Validate(next); err != nil {
		return fmt.Errorf("summarising would break the conversation: %w", err)
	}
	conv.Messages = next
	after := m.PromptTokens(conv)
	m.mu.Lock()
	m.stats.Summaries++
	m.mu.Unlock()
	note := fmt.Sprintf("summarised %d messages", len(old))
	if err != nil {
		note += "; the summary failed, the brief stands in for it"
	}
	return m.record(transcript.Record{Type: transcript.TypeCompaction, Kind: "summary", Messages: next,
		TokensBefore: before, TokensAfter: after, Note: note})
}

// SummaryRequest is the request for a summary of a conversation whose
// config is c (resolved): it covers everything but the first message and
// the last RecentSteps exchanges, which begin at cut. ok is false when
// nothing is old enough to summarise.
func (c Config) SummaryRequest(msgs []llm.Message) (req llm.Request, cut int, ok bool) {
	cut = c.cutPoint(msgs)
	if cut <= 1 {
		return llm.Request{}, cut, false
	}
	text, turns := c.render(msgs[1:cut])
	return llm.Request{System: SummaryPrompt, Messages: []llm.Message{{Role: llm.RoleUser, Content: text,
		Data: llm.MessageData{Kind: KindTurns, Value: llm.ValueOf(turns)}}}}, cut, true
}

// cutPoint is the index where the kept recent exchanges begin: the
// RecentSteps-th assistant message from the end. A tool call and its
// results are never separated, since the cut is before an assistant
// message.
func (c Config) cutPoint(msgs []llm.Message) int {
	seen := 0
	for i := len(msgs) - 1; i > 0; i-- {
		if msgs[i].Role == llm.RoleAssistant {
			seen++
			if seen == c.RecentSteps {
				return i
			}
		}
	}
	return 0
}

// summaryText asks the model for a summary, once more if the first attempt
// fails.
func (m *Manager) summaryText(ctx context.Context, req llm.Request) (string, error) {
	var err error
	for range 2 {
		var resp llm.Response
		resp, err = m.model.Complete(ctx, req)
		if err == nil && strings.TrimSpace(resp.Content) != "" {
			return resp.Content, nil
		}
		if err == nil {
			err = fmt.Errorf("the model answered with no text")
		}
		if ctx.Err() != nil {
			return "", err
		}
	}
	return "", err
}

// render writes the turns to summarise as plain text, results cut short,
// within half the context window; turns are the messages it renders,
// without their data.
func (c Config) render(old []llm.Message) (string, []llm.Message) {
	var parts []string
	for _, msg := range old {
		var b strings.Builder
		switch msg.Role {
		case llm.RoleUser:
			b.WriteString("user: " + humanize.Clip(msg.Content, 1500))
		case llm.RoleAssistant:
			if t := strings.TrimSpace(msg.Content); t != "" {
				b.WriteString("assistant: " + humanize.Clip(t, 1500) + "\n")
			}
			for _, c := range msg.ToolCalls {
				fmt.Fprintf(&b, "call %s %s\n", c.Name, humanize.Clip(c.Arguments, 300))
			}
		case llm.RoleTool:
			fmt.Fprintf(&b, "result of %s: %s", msg.ToolName, humanize.Clip(msg.Content, 300))
		}
		parts = append(parts, strings.TrimRight(b.String(), "\n"))
	}
	// Keep the latest turns when everything would not fit.
	budget := c.ContextWindow / 2 * 4 // characters
	total := 0
	start := len(parts)
	for start > 0 && total+len(parts[start-1]) < budget {
		start--
		total += len(parts[start])
	}
	head := "The conversation so far:\n\n"
	if start > 0 {
		head = fmt.Sprintf("The conversation so far (its first %d turns are left out for length):\n\n", start)
	}
	turns := make([]llm.Message, 0, len(old)-start)
	for _, msg := range old[start:] {
		msg.Data = llm.MessageData{}
		turns = append(turns, msg)
	}
	return head + strings.Join(parts[start:], "\n") + "\n\nWrite the summary now.", turns
}
