package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"creator/internal/llm"
)

// Registry holds the tools available to the agent, in a fixed order so that
// the tool definitions sent to the model never change between steps.
type Registry struct {
	tools  []Tool
	byName map[string]Tool
	defs   []llm.ToolDef // built as tools are added
}

// NewRegistry returns a registry holding tools.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: map[string]Tool{}, defs: []llm.ToolDef{}}
	for _, t := range tools {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers a tool; names must be unique.
func (r *Registry) Add(t Tool) error {
	if _, dup := r.byName[t.Name()]; dup {
		return fmt.Errorf("tool %s is registered twice", t.Name())
	}
	r.tools = append(r.tools, t)
	r.byName[t.Name()] = t
	r.defs = append(r.defs, llm.ToolDef{Name: t.Name(), Description: t.Description(), Parameters: t.Schema()})
	return nil
}

// Get returns the tool with the given name.
func (r *Registry) Get(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Tools returns the tools in registration order.
func (r *Registry) Tools() []Tool { return append([]Tool(nil), r.tools...) }

// Names returns the tool names in alphabetical order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for _, t := range r.tools {
		names = append(names, t.Name())
	}
	sort.Strings(names)
	return names
}

// Call runs the named tool. An unknown name, like any tool failure, comes
// back as an error whose message the model can act on; a panic in any tool
// becomes a PanicError.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage) (result llm.ToolResult, err error) {
	t, ok := r.byName[name]
	if !ok {
		return llm.ToolResult{}, fmt.Errorf("there is no tool named %q; the tools are: %s", name, strings.Join(r.Names(), ", "))
	}
	defer recoverInto(name, &err)
	return t.Call(ctx, args)
}

// Definitions describes the tools to the model, in registration order.
// The slice is shared: callers must not change it.
func (r *Registry) Definitions() []llm.ToolDef { return slices.Clip(r.defs) }
