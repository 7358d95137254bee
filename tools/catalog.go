package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"creator/internal/agent"
	"creator/internal/llm"
)

// SearchToolsName is the tool that finds the tools not sent with every
// request.
const SearchToolsName = "search_tools"

// DeferredTools are the tools a request carries only once the model has
// found them with search_tools or called them by name: the document and
// requirement tools, whose definitions are the longest, and the file and
// planning tools seldom needed. Most steps use a few of them at most.
func DeferredTools() []string {
	return []string{"delete_file", "create_folder", "get_progress",
		"extract_document_text", "chunk_document", "save_requirement", "declare_chunk_empty", "finalize_output"}
}

// Catalog sends the model the core tools and the deferred tools it has
// found or called, always in the registry's order so that the prompt
// prefix changes only when a tool is added. Every tool can be called by
// its exact name; a call of a deferred tool loads it.
type Catalog struct {
	reg      *Registry
	deferred map[string]bool
	index    *toolIndex // for search_tools

	mu     sync.Mutex
	loaded map[string]bool
	defs   []llm.ToolDef // sent now: rebuilt when a tool is loaded
}

// NewCatalog registers tools and search_tools; the tools named in deferred
// are sent only once found or called.
func NewCatalog(tools []Tool, deferred []string) (*Catalog, error) {
	c := &Catalog{deferred: map[string]bool{}, loaded: map[string]bool{}}
	for _, n := range deferred {
		c.deferred[n] = true
	}
	reg, err := NewRegistry(append(slices.Clip(tools), c.searchTool())...)
	if err != nil {
		return nil, err
	}
	for n := range c.deferred {
		if _, ok := reg.Get(n); !ok {
			return nil, fmt.Errorf("deferred tool %s is not registered", n)
		}
	}
	c.reg = reg
	c.index = newToolIndex(reg.Tools())
	c.defs = c.sent()
	return c, nil
}

// Definitions are the core tools and the loaded ones, in registry order.
// The slice is shared: callers must not change it.
func (c *Catalog) Definitions() []llm.ToolDef {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clip(c.defs)
}

// sent builds Definitions; c.mu is held or c not yet shared.
func (c *Catalog) sent() []llm.ToolDef {
	var defs []llm.ToolDef
	for _, d := range c.reg.Definitions() {
		if !c.deferred[d.Name] || c.loaded[d.Name] {
			defs = append(defs, d)
		}
	}
	return defs
}

// Known names every tool the model may call, in registry order.
func (c *Catalog) Known() []string {
	var names []string
	for _, t := range c.reg.Tools() {
		names = append(names, t.Name())
	}
	return names
}

// Loaded names the deferred tools loaded so far, in registry order.
func (c *Catalog) Loaded() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, t := range c.reg.Tools() {
		if c.loaded[t.Name()] {
			names = append(names, t.Name())
		}
	}
	return names
}

// Call runs the named tool; calling a deferred tool loads it.
func (c *Catalog) Call(ctx context.Context, name string, args json.RawMessage) (llm.ToolResult, error) {
	c.load(name)
	return c.reg.Call(ctx, name, args)
}

func (c *Catalog) load(names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	added := false
	for _, n := range names {
		if c.deferred[n] && !c.loaded[n] {
			c.loaded[n] = true
			added = true
		}
	}
	if added {
		c.defs = c.sent()
	}
}

// Restore loads what a conversation so far found and called, from its
// tool messages, so that a resumed job sends the same tools. Calls the
// loop answered as not run are skipped: the job did not call their tool,
// so did not load it. Nor did it load the tool of a call cut off by an
// interruption: that call is answered by the run that resumes, which had
// no result of it to restore.
func (c *Catalog) Restore(msgs []llm.Message) {
	for _, m := range msgs {
		if m.Role != llm.RoleTool || agent.NotRun(m.Data) {
			continue
		}
		c.load(m.ToolName)
		var found FoundTools
		if m.ToolName == SearchToolsName && m.Data.Decode(&found) {
			for _, t := range found.Tools {
				c.load(t.Name)
			}
		}
	}
}

// FoundTools is search_tools's data: the tools found, best first.
type FoundTools struct {
	Query string      `json:"query"`
	Tools []FoundTool `json:"tools"`
}

// FoundTool is one tool search_tools found.
type FoundTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Arguments   string `json:"arguments"` // e.g. {"path": string, "limit"?: integer}
}

type searchToolsArgs struct {
	Query string `json:"query" jsonschema:"what you want to do"`
}

// maxFoundTools is how many tools one search returns.
const maxFoundTools = 3

func (c *Catalog) searchTool() Tool {
	return FuncResult(SearchToolsName, "Find more tools by words (e.g. chunk, save requirement, finalize) and get their descriptions and arguments; they are available from your next answer on.",
		func(_ context.Context, a searchToolsArgs) (llm.ToolResult, error) {
			found := FoundTools{Query: a.Query, Tools: []FoundTool{}}
			for _, t := range c.index.rank(a.Query, maxFoundTools) {
				found.Tools = append(found.Tools, FoundTool{Name: t.Name(), Description: t.Description(), Arguments: expected(t)})
			}
			var names []string
			for _, t := range found.Tools {
				names = append(names, t.Name)
			}
			c.load(names...)
			return llm.ToolResult{Text: foundText(found, c.Known), Data: found}, nil
		})
}

// foundText is search_tools's text; known names every tool, for a
// search that found none.
func foundText(f FoundTools, known func() []string) string {
	if len(f.Tools) == 0 {
		return fmt.Sprintf("No tool matches %q. The tools are: %s.", f.Query, strings.Join(known(), ", "))
	}
	var b strings.Builder
	for _, t := range f.Tools {
		fmt.Fprintf(&b, "%s%s\n  %s\n\n", t.Name, t.Arguments, t.Description)
	}
	b.WriteString("These tools are available from your next answer on.")
	return b.String()
}

// expected renders a tool's arguments compactly, fields in the order
// its schema declares them.
func expected(t Tool) string {
	if e, ok := t.(interface{ expected() string }); ok {
		return e.expected()
	}
	return "{}"
}

// toolIndex ranks tools by BM25 over the words of their name and
// description; search_tools itself is not among them. The tools' words
// are counted once, when the catalog is made.
type toolIndex struct {
	tools []Tool
	tf    []map[string]int // each tool's words, counted
	lens  []float64        // each tool's word count
	df    map[string]int   // how many tools have each word
	avg   float64          // mean word count
}

func newToolIndex(all []Tool) *toolIndex {
	x := &toolIndex{df: map[string]int{}}
	for _, t := range all {
		if t.Name() == SearchToolsName {
			continue
		}
		words := toolWords(t.Name() + " " + t.Name() + " " + t.Description())
		tf := map[string]int{}
		for _, w := range words {
			if tf[w] == 0 {
				x.df[w]++
			}
			tf[w]++
		}
		x.tools = append(x.tools, t)
		x.tf = append(x.tf, tf)
		x.lens = append(x.lens, float64(len(words)))
		x.avg += float64(len(words))
	}
	x.avg /= float64(max(len(x.tools), 1))
	return x
}

// rank returns at most limit tools matching query, best first; ties keep
// the registry's order.
func (x *toolIndex) rank(query string, limit int) []Tool {
	terms := toolWords(query)
	const k1, b = 1.2, 0.75
	n := float64(len(x.tools))
	scores := make([]float64, len(x.tools))
	for i, tf := range x.tf {
		for _, q := range terms {
			f := float64(tf[q])
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(x.df[q])+0.5)/(float64(x.df[q])+0.5))
			scores[i] += idf * f * (k1 + 1) / (f + k1*(1-b+b*x.lens[i]/x.avg))
		}
	}
	order := make([]int, len(x.tools))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(p, q int) bool { return scores[order[p]] > scores[order[q]] })
	var out []Tool
	for _, i := range order {
		if scores[i] > 0 && len(out) < limit {
			out = append(out, x.tools[i])
		}
	}
	return out
}

// toolWords are the lower-case words of s, names split at underscores,
// with a plural or verb "s" dropped so that "requirements" finds
// save_requirement.
func toolWords(s string) []string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			words[i] = w[:len(w)-1]
		}
	}
	return words
}
