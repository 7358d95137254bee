// Package tools defines the agent's tools: the Tool interface, a registry,
// typed tools whose JSON schema is derived from a Go struct and whose
// arguments are validated before the handler runs, and the workspace and
// planning tools themselves.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"creator/internal/humanize"
	"creator/internal/llm"
	"creator/internal/schemaerr"
)

// Tool is one function the model can call.
type Tool interface {
	Name() string
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Call runs the tool. The result is text for the model, and for some
	// tools the same as data; an error is shown to the model as a tool
	// error, and the result's data, if any, goes with it.
	Call(ctx context.Context, args json.RawMessage) (llm.ToolResult, error)
}

// ArgumentError means the model sent arguments the tool cannot take. Its
// message says what to send instead.
type ArgumentError struct {
	Tool    string
	Problem string
	Expect  string // the expected arguments, e.g. {"path": string, "offset"?: integer}
}

func (e *ArgumentError) Error() string {
	return fmt.Sprintf("invalid arguments for %s: %s. Send %s", e.Tool, e.Problem, e.Expect)
}

// PanicError is a handler that panicked, turned into an error. Stack is
// kept for the logs; the model only sees the message.
type PanicError struct {
	Tool  string
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("internal error in %s (%v); the call had no effect you can rely on — check the files it touches, then try another way", e.Tool, e.Value)
}

// Func makes a Tool from a handler that takes its arguments as the struct A.
// The schema comes from A's fields: `json` tags name them (omitempty marks
// optional ones) and `jsonschema` tags describe them. It panics if A cannot
// be described by a schema, which is a programming error.
func Func[A any](name, description string, handler func(ctx context.Context, args A) (string, error)) Tool {
	return FuncWith(name, description, nil, handler)
}

// FuncWith is Func with options for the schema, e.g. enumerations for
// named string types.
func FuncWith[A any](name, description string, opts *jsonschema.ForOptions, handler func(ctx context.Context, args A) (string, error)) Tool {
	return newFuncTool(name, description, opts, func(ctx context.Context, args A) (llm.ToolResult, error) {
		text, err := handler(ctx, args)
		return llm.ToolResult{Text: text}, err
	})
}

// FuncResult is Func for a tool that gives its result as data too: the
// handler returns text and data, and may return data with an error (what
// was missing, what was refused).
func FuncResult[A any](name, description string, handler func(ctx context.Context, args A) (llm.ToolResult, error)) Tool {
	return newFuncTool(name, description, nil, handler)
}

// FuncResultWith is FuncResult with options for the schema.
func FuncResultWith[A any](name, description string, opts *jsonschema.ForOptions, handler func(ctx context.Context, args A) (llm.ToolResult, error)) Tool {
	return newFuncTool(name, description, opts, handler)
}

func newFuncTool[A any](name, description string, opts *jsonschema.ForOptions, handler func(ctx context.Context, args A) (llm.ToolResult, error)) Tool {
	schema, err := jsonschema.For[A](opts)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	dropNull(schema)
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	raw, err := marshalSchema(schema)
	if err != nil {
		panic(fmt.Sprintf("tool %s: %v", name, err))
	}
	reader := &argReader{commaLists: map[string]bool{}}
	commaListFields(reflect.TypeFor[A](), "", reader.commaLists)
	return &funcTool[A]{
		name:        name,
		description: description,
		schema:      raw,
		root:        schema,
		resolved:    resolved,
		reader:      reader,
		expect:      signature(schema),
		handler:     handler,
	}
}

type funcTool[A any] struct {
	name, description string
	schema            json.RawMessage
	root              *jsonschema.Schema
	resolved          *jsonschema.Resolved
	reader            *argReader
	expect            string
	handler           func(context.Context, A) (llm.ToolResult, error)
}

func (t *funcTool[A]) Name() string            { return t.name }
func (t *funcTool[A]) Description() string     { return t.description }
func (t *funcTool[A]) Schema() json.RawMessage { return t.schema }

// expected is the arguments as the model should send them, e.g.
// {"path": string, "limit"?: integer}.
func (t *funcTool[A]) expected() string { return t.expect }

func (t *funcTool[A]) Call(ctx context.Context, raw json.RawMessage) (result llm.ToolResult, err error) {
	defer recoverInto(t.name, &err)
	args, notes, err := t.decode(raw)
	if err != nil {
		return llm.ToolResult{}, err
	}
	result, err = t.handler(ctx, args)
	if err != nil {
		return llm.ToolResult{Data: result.Data}, err
	}
	result.Text = humanize.WithNotes(result.Text, notes)
	return result, nil
}

// decode reads raw along the schema (leniently, see argReader), checks the
// outcome against the schema and fills A. notes say what was read how.
func (t *funcTool[A]) decode(raw json.RawMessage) (A, []string, error) {
	var args A
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}") // some servers send nothing for tools without parameters
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return args, nil, t.argError(nil, "they are not valid JSON (%s)", strings.TrimPrefix(err.Error(), "json: "))
	}
	var notes []string
	read, err := t.reader.read(t.root, v, argPath{}, &notes)
	if err != nil {
		return args, nil, t.argError(notes, "%s", err.Error())
	}
	if err := t.resolved.Validate(read); err != nil {
		return args, nil, t.argError(notes, "%s", schemaerr.Explain(err, schemaerr.Arguments))
	}
	// Decode from the value re-encoded, so that 10.0 fills an int.
	normal, err := json.Marshal(read)
	if err == nil {
		err = json.Unmarshal(normal, &args)
	}
	if err != nil {
		return args, nil, t.argError(notes, "%s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return args, notes, nil
}

func (t *funcTool[A]) argError(notes []string, format string, a ...any) error {
	problem := fmt.Sprintf(format, a...)
	if len(notes) > 0 {
		problem += " (" + strings.Join(notes, "; ") + ")"
	}
	return &ArgumentError{Tool: t.name, Problem: problem, Expect: t.expect}
}

// recoverInto turns a panic in a tool into a PanicError.
func recoverInto(tool string, err *error) {
	if v := recover(); v != nil {
		*err = &PanicError{Tool: tool, Value: v, Stack: debug.Stack()}
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// signature renders the expected arguments compactly for error messages:
// {"path": string, "offset"?: integer}. Optional fields carry a "?".
func signature(s *jsonschema.Schema) string {
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := s.PropertyOrder
	if len(names) == 0 {
		for n := range s.Properties {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "{} (no arguments)"
	}
	parts := make([]string, 0, len(names))
	for _, n := range names {
		p := s.Properties[n]
		opt := "?"
		if required[n] {
			opt = ""
		}
		parts = append(parts, fmt.Sprintf("%q%s: %s", n, opt, typeName(p)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func typeName(s *jsonschema.Schema) string {
	if s == nil {
		return "any"
	}
	t := s.Type
	if t == "" && len(s.Types) > 0 {
		t = strings.Join(s.Types, "|")
	}
	switch t {
	case "array":
		return "[" + typeName(s.Items) + "]"
	case "object":
		if len(s.Properties) > 0 {
			return signature(s)
		}
		if isMap(s) {
			return "{string: " + typeName(s.AdditionalProperties) + "}"
		}
	case "":
		return "any"
	}
	return t
}

// marshalSchema encodes a schema for the model. Objects always carry a
// "properties" member, which some servers insist on even when it is empty.
func marshalSchema(s *jsonschema.Schema) (json.RawMessage, error) {
	if s.Type == "object" && s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(data, []byte(`"properties"`)) {
		data = append(data[:len(data)-1], []byte(`,"properties":{}}`)...)
	}
	return data, nil
}

// dropNull turns the ["null", T] types that slices and pointers get into
// plain T: the model should send a value or leave the field out.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
	for _, p := range s.Properties {
		dropNull(p)
	}
}
