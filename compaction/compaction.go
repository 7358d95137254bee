// Package compaction keeps the agent's prompt bounded at any document
// size. The conversation is short-term memory and the workspace long-term
// memory; three layers act before each model call:
//
//  1. A tool result larger than a budget is saved whole under
//     .agent/results/ and the model gets its head and tail and the path.
//  2. When the prompt passes a trigger, all but the most recent tool
//     results are replaced by one-line placeholders naming the call and
//     where its data lives, and long arguments of old calls are shortened —
//     in one batch, so the prompt prefix stays byte-identical between
//     clearings and servers can reuse their prompt cache.
//  3. When the prompt passes the summary threshold, everything but the
//     first message and the most recent exchanges is summarised by the
//     model with a dedicated prompt, and a brief of the workspace built by
//     code (the plan with its statuses, progress, files) is attached, so
//     the plan is never lost.
//
// Every clearing and summary is recorded in the transcript, so a resumed
// job continues from the compacted state.
package compaction

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"creator/internal/agent"
	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/transcript"
)

// Config are the figures of context management. Zero values take the
// defaults.
type Config struct {
	// ContextWindow is the model's window in tokens (default 128,000).
	ContextWindow int
	// SummarizeAt is the prompt size that starts a summary (default 80,000,
	// and at most 80% of the window).
	SummarizeAt int
	// KeepToolResults is how many recent tool results a clearing keeps
	// whole (default 5).
	KeepToolResults int
	// ResultBudget is the largest tool result that enters the conversation
	// whole (default 8,000 tokens, and at most 30% of the window).
	ResultBudget int
	// ClearAt is the prompt size that starts a clearing (default half of
	// SummarizeAt).
	ClearAt int
	// RecentSteps is how many of the latest exchanges a summary keeps
	// (default 2).
	RecentSteps int
	// Disabled turns layers 2 and 3 off, for comparisons.
	Disabled bool
}

// Defaults.
const (
	DefaultContextWindow   = 128000
	DefaultSummarizeAt     = 80000
	DefaultKeepToolResults = 5
	DefaultResultBudget    = 8000
	shortenOver            = 120 // characters of an old call's string argument
)

// Resolved returns the config with defaults filled in and caps applied.
func (c Config) Resolved() Config {
	if c.ContextWindow <= 0 {
		c.ContextWindow = DefaultContextWindow
	}
	if c.SummarizeAt <= 0 {
		c.SummarizeAt = DefaultSummarizeAt
	}
	c.SummarizeAt = min(c.SummarizeAt, c.ContextWindow*8/10)
	if c.KeepToolResults <= 0 {
		c.KeepToolResults = DefaultKeepToolResults
	}
	if c.ResultBudget <= 0 {
		c.ResultBudget = DefaultResultBudget
	}
	c.ResultBudget = min(c.ResultBudget, c.ContextWindow*3/10)
	if c.ClearAt <= 0 || c.ClearAt > c.SummarizeAt {
		c.ClearAt = c.SummarizeAt / 2
	}
	if c.RecentSteps <= 0 {
		c.RecentSteps = 2
	}
	return c
}

// Counter counts tokens.
type Counter interface {
	Count(string) int
}

// Files is where oversized results are saved.
type Files interface {
	WriteInternal(rel string, data []byte) error
}

// Stats counts what context management did.
type Stats struct {
	Clearings, Summaries, SavedResults int
	// ShortenedCalls counts calls whose oversized arguments were shortened
	// once they had run.
	ShortenedCalls int
}

// Event describes one compaction, for progress and telemetry.
type Event struct {
	Kind          string // "clear" or "summary"
	Before, After int    // prompt tokens
	Note          string
}

// Manager implements agent.Hook.
type Manager struct {
	// OnCompaction, if set, hears about every clearing and summary.
	OnCompaction func(Event)
	// OnContextWindow, if set, hears the window the server stated in a
	// context-length error, once the manager uses it.
	OnContextWindow func(tokens int)

	cfg     Config
	raw     Config // as given, for figures derived anew from a learned window
	model   llm.Model
	count   Counter
	files   Files
	journal agent.Journal
	brief   func() Brief
	system  int // tokens of the system prompt
	// tools gives the definitions each request sends: those given to New,
	// or what FollowTools set. Each is counted once, by name.
	tools    func() []llm.ToolDef
	defCache map[string]int

	mu    sync.Mutex
	cache map[[32]byte]int
	stats Stats
	// nextClear is the prompt size of the next clearing: after one, the
	// prompt must grow by half the trigger again, so clearings come in
	// batches and the prompt prefix stays the same in between.
	nextClear int
}

// Options are what a Manager works with.
type Options struct {
	// Config are the figures of context management.
	Config Config
	// Model writes the summaries.
	Model llm.Model
	// Counter counts tokens.
	Counter Counter
	// Files is where oversized tool results are saved.
	Files Files
	// Journal records the compactions in the transcript.
	Journal agent.Journal
	// Brief builds the workspace brief attached to summaries.
	Brief func() Brief
	// System is the system prompt, Tools the tool definitions sent with
	// each request (FollowTools changes them); both are counted once.
	System string
	Tools  []llm.ToolDef
}

// New returns a manager.
func New(o Options) *Manager {
	tools := o.Tools
	m := &Manager{cfg: o.Config.Resolved(), raw: o.Config, model: o.Model, count: o.Counter, files: o.Files, journal: o.Journal, brief: o.Brief, cache: map[[32]byte]int{},
		tools: func() []llm.ToolDef { return tools }, defCache: map[string]int{}}
	m.nextClear = m.cfg.ClearAt
	m.system = o.Counter.Count(o.System) + 4
	return m
}

func (m *Manager) defTokens(t llm.ToolDef) int {
	return m.count.Count(t.Name) + m.count.Count(t.Description) + m.count.Count(string(t.Parameters)) + 8
}

// FollowTools counts the tool definitions defs gives at each request
// instead of a fixed set, for tools loaded during the job.
func (m *Manager) FollowTools(defs func() []llm.ToolDef) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tools, m.defCache = defs, map[string]int{}
}

// fixedTokens counts the system prompt and the tool definitions sent now.
func (m *Manager) fixedTokens() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.system
	for _, t := range m.tools() {
		c, ok := m.defCache[t.Name]
		if !ok {
			c = m.defTokens(t)
			m.defCache[t.Name] = c
		}
		n += c
	}
	return n
}

// Config is the resolved configuration.
func (m *Manager) Config() Config { return m.cfg }

// Stats returns what the manager did so far.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// PromptTokens counts the prompt a call with conv would send: system
// prompt, tool definitions and every message, with per-message counts
// cached so the whole conversation is not encoded again at each step.
func (m *Manager) PromptTokens(conv *agent.Conversation) int {
	n := m.fixedTokens()
	for i := range conv.Messages {
		n += m.messageTokens(&conv.Messages[i])
	}
	return n
}

func (m *Manager) messageTokens(msg *llm.Message) int {
	h := sha256.New()
	h.Write([]byte(msg.Role))
	h.Write([]byte{0})
	h.Write([]byte(msg.Content))
	h.Write([]byte{0})
	h.Write([]byte(msg.Reasoning))
	for _, c := range msg.ToolCalls {
		h.Write([]byte{0})
		h.Write([]byte(c.Name))
		h.Write([]byte{0})
		h.Write([]byte(c.Arguments))
	}
	var key [32]byte
	copy(key[:], h.Sum(nil))
	m.mu.Lock()
	n, ok := m.cache[key]
	m.mu.Unlock()
	if ok {
		return n
	}
	n = 4 + m.count.Count(msg.Content) + m.count.Count(msg.Reasoning)
	for _, c := range msg.ToolCalls {
		n += 8 + m.count.Count(c.Name) + m.count.Count(c.Arguments)
	}
	m.mu.Lock()
	m.cache[key] = n
	m.mu.Unlock()
	return n
}

// ToolResult is layer 1: a result over the budget is saved whole under
// .agent/results/ and replaced by its head, its tail and the path.
func (m *Manager) ToolResult(call llm.ToolCall, result string) string {
	n := m.count.Count(result)
	if n <= m.cfg.ResultBudget {
		return result
	}
	path := ".agent/results/" + fileName(call.ID) + ".txt"
	if err := m.files.WriteInternal(path, []byte(result)); err != nil {
		// Without the file, the head and tail still keep the prompt bounded.
		path = ""
	}
	lines := strings.SplitAfter(result, "\n")
	headBudget := m.cfg.ResultBudget * 6 / 10 * 4 // characters
	tailBudget := m.cfg.ResultBudget * 2 / 10 * 4
	var head, tail strings.Builder
	h := 0
	for h < len(lines) && head.Len()+len(lines[h]) <= headBudget {
		head.WriteString(lines[h])
		h++
	}
	t, size := len(lines), 0
	for t > h && size+len(lines[t-1]) <= tailBudget {
		t--
		size += len(lines[t])
	}
	for _, l := range lines[t:] {
		tail.WriteString(l)
	}
	if head.Len() == 0 { // one enormous line
		r := []rune(result)
		head.WriteString(string(r[:min(len(r), headBudget)]) + "\n")
	}
	omitted := len(lines) - h - (len(lines) - t)
	where := "it could not be saved; repeat the call with a narrower request"
	if path != "" {
		where = fmt.Sprintf("the whole result is in %s — read it with read_file(path=%q, offset=%d, limit=…)", path, path, h+1)
	}
	m.mu.Lock()
	m.stats.SavedResults++
	m.mu.Unlock()
	return fmt.Sprintf("%s[… %s lines (%s tokens in all) left out of this result; %s]\n%s",
		head.String(), humanize.Int(omitted), humanize.Int(n), where, tail.String())
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

func fileName(id string) string {
	clean := unsafeName.ReplaceAllString(id, "_")
	if clean == "" || len(clean) > 64 || clean != id {
		sum := sha256.Sum256([]byte(id))
		clean = strings.Trim(clean, "_")
		if len(clean) > 40 {
			clean = clean[:40]
		}
		clean += "_" + hex.EncodeToString(sum[:4])
	}
	return clean
}

// BeforeCall runs layers 2 and 3.
func (m *Manager) BeforeCall(ctx context.Context, conv *agent.Conversation) error {
	if err := m.shortenOversized(conv); err != nil {
		return err
	}
	if m.cfg.Disabled {
		return nil
	}
	tokens := m.PromptTokens(conv)
	if tokens > m.nextClear {
		if err := m.clear(conv, m.cfg.KeepToolResults, tokens); err != nil {
			return err
		}
		tokens = m.PromptTokens(conv)
		m.nextClear = max(m.cfg.ClearAt, tokens+m.cfg.ClearAt/2)
	}
	if tokens > m.cfg.SummarizeAt {
		if err := m.summarize(ctx, conv, tokens); err != nil {
			return err
		}
		m.nextClear = max(m.cfg.ClearAt, m.PromptTokens(conv)+m.cfg.ClearAt/2)
	}
	return nil
}

// shortenOversized is layer 1 for the model's own calls: arguments over the
// result budget (a runaway write_file content) are shortened once the call
// has run, as old ones are in a clearing. Left whole, one such call would
// keep the prompt over the summary threshold however often it is summarised,
// since a summary keeps the latest exchanges.
func (m *Manager) shortenOversized(conv *agent.Conversation) error {
	var edits []transcript.Edit
	before := 0
	for i, msg := range conv.Messages {
		if msg.Role != llm.RoleAssistant {
			continue
		}
		big := false
		for _, c := range msg.ToolCalls {
			// Bytes first: a token is at least one byte, so shorter
			// arguments need no counting.
			if len(c.Arguments) > m.cfg.ResultBudget && m.count.Count(c.Arguments) > m.cfg.ResultBudget {
				big = true
			}
		}
		if !big {
			continue
		}
		if before == 0 {
			before = m.PromptTokens(conv)
		}
		if args, changed := shortenCalls(msg.ToolCalls, m.count); changed {
			edits = append(edits, transcript.Edit{Index: i, Arguments: args})
		}
	}
	if len(edits) == 0 {
		return nil
	}
	if err := m.edit(conv, edits, before, fmt.Sprintf("shortened the oversized arguments of %d calls", len(edits))); err != nil {
		return err
	}
	m.mu.Lock()
	m.stats.ShortenedCalls += len(edits)
	m.mu.Unlock()
	return nil
}

// Overflow runs layer 3 now: the server said the prompt is too long. When
// its error states a window smaller than the configured one, that window
// and the figures derived from it (summary threshold, clearing trigger,
// result budget) hold for the rest of the run.
func (m *Manager) Overflow(ctx context.Context, conv *agent.Conversation, err error) error {
	var cle *llm.ContextLengthError
	if errors.As(err, &cle) && cle.Limit > 0 && cle.Limit < m.cfg.ContextWindow {
		m.learnWindow(cle.Limit)
	}
	tokens := m.PromptTokens(conv)
	if err := m.clear(conv, 1, tokens); err != nil {
		return err
	}
	return m.summarize(ctx, conv, m.PromptTokens(conv))
}

// learnWindow makes window the model's context window.
func (m *Manager) learnWindow(window int) {
	m.raw.ContextWindow = window
	m.cfg = m.raw.Resolved()
	m.nextClear = min(m.nextClear, m.cfg.ClearAt)
	if m.OnContextWindow != nil {
		m.OnContextWindow(window)
	}
}

// clear is layer 2: all tool results but the last keep become placeholders
// and the long string arguments of the calls they answer are shortened.
func (m *Manager) clear(conv *agent.Conversation, keep int, before int) error {
	msgs := conv.Messages
	var toolIdx []int
	for i, msg := range msgs {
		if msg.Role == llm.RoleTool {
			toolIdx = append(toolIdx, i)
		}
	}
	if len(toolIdx) <= keep {
		return nil
	}
	cutoff := toolIdx[len(toolIdx)-keep] // results from here on stay whole
	calls := map[string]llm.ToolCall{}
	var edits []transcript.Edit
	for i := 0; i < cutoff; i++ {
		msg := msgs[i]
		switch msg.Role {
		case llm.RoleAssistant:
			for _, c := range msg.ToolCalls {
				calls[c.ID] = c
			}
			if args, changed := shortenCalls(msg.ToolCalls, m.count); changed {
				edits = append(edits, transcript.Edit{Index: i, Arguments: args})
			}
		case llm.RoleTool:
			if isPlaceholder(msg.Content) {
				continue
			}
			ph := placeholder(calls[msg.ToolCallID], msg, m.count.Count(msg.Content))
			if len(ph) >= len(msg.Content) {
				continue // already shorter than its placeholder
			}
			edits = append(edits, transcript.Edit{Index: i, Content: &ph, Cleared: true})
		}
	}
	if len(edits) == 0 {
		return nil
	}
	if err := m.edit(conv, edits, before, fmt.Sprintf("cleared %d old tool results and arguments, kept the last %d", len(edits), keep)); err != nil {
		return err
	}
	m.mu.Lock()
	m.stats.Clearings++
	m.mu.Unlock()
	return nil
}

// edit makes a clearing's edits to a copy of the conversation, checks that
// the copy is still a valid conversation, puts it in place and journals the
// edits, so that a resumed job makes them again.
func (m *Manager) edit(conv *agent.Conversation, edits []transcript.Edit, before int, note string) error {
	next := append([]llm.Message(nil), conv.Messages...)
	transcript.Apply(next, edits)
	if err := llm.Validate(next); err != nil {
		return fmt.Errorf("%s: the edits would break the conversation: %w", note, err)
	}
	conv.Messages = next
	return m.record(transcript.Record{Type: transcript.TypeCompaction, Kind: "clear", Edits: edits,
		TokensBefore: before, TokensAfter: m.PromptTokens(conv), Note: note})
}

// record journals a compaction and tells the listener.
func (m *Manager) record(r transcript.Record) error {
	if err := m.journal.Append(r); err != nil {
		return err
	}
	if m.OnCompaction != nil {
		m.OnCompaction(Event{Kind: r.Kind, Before: r.TokensBefore, After: r.TokensAfter, Note: r.Note})
	}
	return nil
}

const placeholderPrefix = "[cleared: "

func isPlaceholder(s string) bool { return strings.HasPrefix(s, placeholderPrefix) }

// placeholder names a cleared result's call and where its data lives.
func placeholder(call llm.ToolCall, msg llm.Message, tokens int) string {
	name := call.Name
	if name == "" {
		name = msg.ToolName
	}
	var args map[string]any
	json.Unmarshal([]byte(call.Arguments), &args)
	path, _ := args["path"].(string)
	size := humanize.Int(tokens) + " tokens"
	if msg.Data.Failed {
		return fmt.Sprintf("%s%s %s failed — %s]", placeholderPrefix, name, path, firstLine(msg.Content, 120))
	}
	if saved := savedPath.FindString(msg.Content); saved != "" {
		return fmt.Sprintf("%s%s %s — %s; the whole result is in %s]", placeholderPrefix, name, path, size, saved)
	}
	switch name {
	case "read_file":
		return fmt.Sprintf("%sread_file %s — %s; read it again if needed]", placeholderPrefix, path, size)
	case "list_files", "read_plan", "get_progress", "search_files":
		return fmt.Sprintf("%s%s %s — %s; call it again for the current state]", placeholderPrefix, name, path, size)
	}
	return fmt.Sprintf("%s%s %s — %s: %s]", placeholderPrefix, name, path, size, firstLine(msg.Content, 100))
}

var savedPath = regexp.MustCompile(`\.agent/results/[A-Za-z0-9_-]+\.txt`)

// firstLine is the first line of s, clipped to most characters.
func firstLine(s string, most int) string {
	s, _, _ = strings.Cut(s, "\n")
	return humanize.Clip(s, most)
}

// Shortened starts a string argument of an old call that a clearing
// shortened; the rest says how long it was.
const Shortened = "[shortened: "

// shortenCalls shortens string arguments longer than shortenOver
// characters; the arguments stay valid JSON, with paths and short fields
// intact.
func shortenCalls(calls []llm.ToolCall, count Counter) ([]string, bool) {
	changed := false
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.Arguments
		if len(c.Arguments) <= shortenOver {
			continue
		}
		var v any
		if json.Unmarshal([]byte(c.Arguments), &v) != nil {
			continue
		}
		if nv, ok := shortenValue(v, count); ok {
			if data, err := json.Marshal(nv); err == nil {
				out[i] = string(data)
				changed = true
			}
		}
	}
	return out, changed
}

func shortenValue(v any, count Counter) (any, bool) {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) > shortenOver && !strings.HasPrefix(x, Shortened) {
			return fmt.Sprintf("%s%s tokens]", Shortened, humanize.Int(count.Count(x))), true
		}
	case map[string]any:
		changed := false
		for k, val := range x {
			if nv, ok := shortenValue(val, count); ok {
				x[k], changed = nv, true
			}
		}
		return x, changed
	case []any:
		changed := false
		for i, val := range x {
			if nv, ok := shortenValue(val, count); ok {
				x[i], changed = nv, true
			}
		}
		return x, changed
	}
	return v, false
}

// ErrCannotShorten means a summary could not bring the prompt down.
var ErrCannotShorten = errors.New("the conversation cannot be shortened further")
