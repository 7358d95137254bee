package tools

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"creator/internal/coverage"
	"creator/internal/llm"
	"creator/internal/output"
	"creator/internal/reqstore"
	"creator/internal/requirement"
)

// Enumerated fields of save_requirement; their schemas list the values.
type (
	reqType     string
	reqCategory string
	reqPriority string
)

func enum(values []string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range values {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// RequirementStore keeps the job's requirements: the job's store
// (reqstore.Store).
type RequirementStore interface {
	// Save checks a requirement and keeps it under the next id, unless it
	// repeats one saved before.
	Save(draft requirement.Record) (reqstore.Saved, error)
	// Finalize checks every saved requirement and writes the output.
	Finalize(partialNote string, cov *output.Coverage) (reqstore.Result, error)
}

// RequirementSaver checks and keeps requirements: the job's store, or a
// sub-agent's staging of its chunk's saves.
type RequirementSaver interface {
	// Save checks a requirement and keeps it, unless it repeats one kept
	// before.
	Save(draft requirement.Record) (reqstore.Saved, error)
}

// RequirementTools returns save_requirement and finalize_output over the
// job's requirement store. measure, when not nil, measures the coverage of
// the documents, which finalize_output reports.
func RequirementTools(store RequirementStore, measure func() (coverage.Report, error)) []Tool {
	r := &reqTools{saver: store, store: store, measure: measure}
	return []Tool{
		r.saveTool(),
		FuncResult("finalize_output", "Check every saved requirement again and build output/requirements.json (ordered by source position), output/summary.md and output/requirements.csv. Reports the problems instead if any requirement is invalid.", r.finalize),
	}
}

// SaveTool returns save_requirement alone, over saver: a sub-agent's,
// with the main agent's schema and checks.
func SaveTool(saver RequirementSaver) Tool {
	return (&reqTools{saver: saver}).saveTool()
}

func (r *reqTools) saveTool() Tool {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[reqType]():     enum(requirement.Types),
		reflect.TypeFor[reqCategory](): enum(requirement.Categories),
		reflect.TypeFor[reqPriority](): enum(requirement.Priorities),
	}}
	return FuncResultWith("save_requirement", "Save one requirement. Each citation's quote must be copied exactly from the cited chunk (whitespace and words divided at line ends may differ); it is checked, and the page is taken from the chunk. Writes requirements/req_NNN/final.json and returns the id; saving the same requirement again returns its existing id.", opts, r.save)
}

type reqTools struct {
	saver   RequirementSaver
	store   RequirementStore
	measure func() (coverage.Report, error)
}

type citationArgs struct {
	Document string `json:"document,omitempty" jsonschema:"the source document's name as in the chunk's header line, e.g. GoBD.pdf; taken from the chunk when left out"`
	Chunk    string `json:"chunk" jsonschema:"the chunk id, e.g. chunk_007"`
	Page     int    `json:"page,omitempty" jsonschema:"page of the quote; taken from the chunk when left out"`
	Quote    string `json:"quote" jsonschema:"the source text, copied exactly from the chunk"`
}

type saveArgs struct {
	Title      string            `json:"title" jsonschema:"short name, at most 80 characters"`
	Text       string            `json:"text" jsonschema:"the requirement: atomic, testable, in the source's strength (must, must not, may, should)"`
	Type       reqType           `json:"type"`
	Category   reqCategory       `json:"category"`
	Priority   reqPriority       `json:"priority"`
	Frameworks []string          `json:"frameworks,omitempty" list:"names" jsonschema:"e.g. GoBD, GDPR; leave out when none applies"`
	Citations  []citationArgs    `json:"citations" jsonschema:"one or more places in the source that state the requirement"`
	Confidence float64           `json:"confidence" jsonschema:"0 to 1: how sure you are that this is a requirement as written"`
	Rationale  string            `json:"rationale" jsonschema:"why this is a requirement: the cue and its context"`
	SourceID   string            `json:"source_id,omitempty" jsonschema:"the document's own id of the requirement when it gives one, e.g. V1.2.3, BK-01, 4.2.1, RHEL-09-211010; leave out when it gives none"`
	Attributes map[string]string `json:"attributes,omitempty" jsonschema:"the document's columns of the requirement, column name to value as written, e.g. {\"level\": \"2\", \"priority\": \"High\"}; leave out when it has none"`
}

func (r *reqTools) save(ctx context.Context, a saveArgs) (llm.ToolResult, error) {
	draft := requirement.Record{
		Title: a.Title, Text: a.Text, Type: string(a.Type), Category: string(a.Category), Priority: string(a.Priority),
		Frameworks: a.Frameworks, Confidence: a.Confidence, Rationale: a.Rationale, SourceID: a.SourceID, Attributes: a.Attributes,
	}
	for _, c := range a.Citations {
		draft.Citations = append(draft.Citations, requirement.Citation{Document: c.Document, Chunk: c.Chunk, Page: c.Page, Quote: c.Quote})
	}
	saved, err := r.saver.Save(draft)
	if err != nil {
		return llm.ToolResult{}, err
	}
	data := SavedRequirement{ID: saved.ID, File: saved.File, Duplicate: saved.Duplicate, Staged: saved.Staged}
	for _, c := range saved.Record.Citations {
		data.Chunks = append(data.Chunks, c.Chunk)
	}
	switch {
	case saved.Duplicate && saved.Staged:
		return llm.ToolResult{Text: fmt.Sprintf("already saved as %s in this chunk; nothing changed", saved.ID), Data: data}, nil
	case saved.Duplicate:
		return llm.ToolResult{Text: fmt.Sprintf("already saved as %s (%s); nothing changed", saved.ID, saved.File), Data: data}, nil
	}
	rec := saved.Record
	msg := fmt.Sprintf("saved %s (%s): %s, %s, %s", rec.ID, saved.File, rec.Type, rec.Category, rec.Priority)
	if saved.Staged {
		msg = fmt.Sprintf("saved as %s (its REQ id is given when the chunk is done): %s, %s, %s", saved.ID, rec.Type, rec.Category, rec.Priority)
	}
	for _, c := range rec.Citations {
		if c.Page > 0 {
			msg += fmt.Sprintf("; quote found in %s on page %d", c.Chunk, c.Page)
		} else {
			msg += "; quote found in " + c.Chunk
		}
	}
	for _, c := range saved.Corrections {
		msg += "; " + correction(c)
	}
	return llm.ToolResult{Text: msg, Data: data}, nil
}

// correction says how a citation field was read or corrected.
func correction(c reqstore.Correction) string {
	switch c.Kind {
	case reqstore.ChunkName:
		return fmt.Sprintf("read chunk %q as %q", c.Given, c.Stored)
	case reqstore.DocumentName:
		return fmt.Sprintf("read document %q as %q", c.Given, c.Stored)
	case reqstore.DocumentSource:
		return fmt.Sprintf("read document %q, the text extracted from %s, as %q", c.Given, c.Stored, c.Stored)
	}
	return fmt.Sprintf("page %s of the quote in %s corrected to %s", c.Given, c.Chunk, c.Stored)
}

// finalize builds the output; when requirements are invalid its data names
// the broken files its message lists.
func (r *reqTools) finalize(ctx context.Context, _ noArgs) (llm.ToolResult, error) {
	var cov *coverage.Report
	if r.measure != nil {
		m, err := r.measure()
		if err != nil {
			return llm.ToolResult{}, err
		}
		cov = &m
	}
	res, err := r.store.Finalize("", summaryOf(cov))
	var invalid *reqstore.InvalidError
	if errors.As(err, &invalid) {
		problems := shown(invalid.Problems)
		broken := make([]string, len(problems))
		for i, p := range problems {
			broken[i] = p.File
		}
		return llm.ToolResult{Data: FinalizeRefused{Broken: broken}}, invalidOutput(invalid.Problems)
	}
	if err != nil {
		return llm.ToolResult{}, err
	}
	if cov == nil {
		return llm.ToolResult{Text: res.String()}, nil
	}
	data := Finalized{Requirements: len(res.Records), Chunks: cov.Chunks, Unchunked: cov.Unchunked}
	for _, g := range cov.Gaps {
		data.Uncovered = append(data.Uncovered, UncoveredChunk{Chunk: g.ID, Read: g.Read})
	}
	text := res.String() + "; coverage: " + cov.String()
	if cov.Uncovered > 0 || len(cov.Unchunked) > 0 {
		text += "; " + cov.Missing(coverage.MaxGapsNamed) + ". The job completes only when the documents are covered: " + coverage.Rule
	}
	return llm.ToolResult{Text: text, Data: data}, nil
}

// summaryOf is the coverage for summary.md, nil when not measured.
func summaryOf(r *coverage.Report) *output.Coverage {
	if r == nil {
		return nil
	}
	return r.Summary()
}

// maxProblemsShown bounds the problems finalize_output lists.
const maxProblemsShown = 20

func shown(problems []reqstore.Problem) []reqstore.Problem {
	return problems[:min(len(problems), maxProblemsShown)]
}

// invalidOutput lists the problems that stop finalize_output, the first
// twenty of them.
func invalidOutput(all []reqstore.Problem) error {
	more := ""
	if len(all) > maxProblemsShown {
		more = fmt.Sprintf("\n… and %d more", len(all)-maxProblemsShown)
	}
	problems := shown(all)
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.String()
	}
	return fmt.Errorf("the output was not written; fix these requirements (edit their final.json, or delete the folder and save the requirement again), then call finalize_output again:\n- %s%s",
		strings.Join(lines, "\n- "), more)
}
