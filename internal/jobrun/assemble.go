package jobrun

import (
	"math"
	"sync"

	"creator/compaction"
	"creator/internal/agent"
	"creator/internal/coverage"
	"creator/internal/document"
	"creator/internal/donecheck"
	"creator/internal/index"
	"creator/internal/job"
	"creator/internal/llm"
	"creator/internal/tokens"
	"creator/internal/transcript"
	"creator/planner"
	"creator/templates"
	"creator/tools"
	"creator/workspace"
)

// assemble builds the agent for the job: the tools, the completion check,
// the transcript and context management, around the model.
func (r *run) assemble(counter *tokens.Counter, searcher tools.Searcher, info workspace.Info) error {
	cfg := r.cfg
	// A commit of a sub-agent's chunk that a kill cut off is finished
	// before anything reads the requirements or the ledger.
	if err := r.job.FinishCommits(); err != nil {
		return err
	}
	cov, err := openCoverage(r.job, cfg.Transcript, info.InputNames(), r.report)
	if err != nil {
		return err
	}
	r.coverage = cov
	a := &agent.Agent{
		Model:      cfg.Model,
		Completion: donecheck.Checker{Plan: r.planner.Load, Output: r.job.ReadOutput, Coverage: r.job.Coverage, MinCoverage: cfg.minCoverage()},
		Journal:    r.job,
		System:     templates.SystemPrompt,
		Limits:     cfg.limits(),
	}
	if cfg.Priced {
		price := cfg.Price
		a.Price = func(_ string, u llm.Usage) float64 { return price.Of(u) }
	}
	stats := func() tools.JobStats {
		t := a.Totals()
		st := tools.JobStats{Steps: t.Steps, PromptTokens: t.PromptTokens, CompletionTokens: t.CompletionTokens, Started: info.CreatedAt,
			MaxSteps: a.Limits.MaxSteps, MaxTokens: a.Limits.MaxTokens, MaxCost: a.Limits.MaxCost}
		if a.Price != nil {
			st.CostUSD = &t.CostUSD
		}
		return st
	}
	extracted := cfg.Extracted
	if extracted == nil {
		// A resumed job extracts its documents again, within its limit.
		extracted = document.NewCache(document.Options{MaxText: cfg.Settings.MaxText, Password: cfg.PDFPassword})
	}
	docs := tools.DocumentFiles{Files: r.ws.Files, Own: r.ws.Internal, Inputs: info.Inputs, Extracted: extracted}
	all := append(tools.WorkspaceTools(r.job.Files()), tools.PlanningTools(r.planner, stats, nil)...)
	all = append(all, tools.DocumentTools(docs, counter)...)
	all = append(all, tools.RequirementTools(r.job.Requirements(), r.job.Coverage)...)
	all = append(all, tools.CoverageTools(r.job)...)
	all = append(all, tools.SearchTools(r.job.Files(), searcher)...)
	if n := cfg.parallel(); n > 0 {
		r.fanout = &fanout{r: r, parallel: n, searcher: searcher}
		all = append(all, tools.AnalyzeTools(r.fanout)...)
	}
	toolset, err := toolsOf(all, cfg)
	if err != nil {
		return err
	}
	a.Tools = toolset
	usage := &usageRecorder{job: r.job, priced: cfg.Priced, compactions: info.Usage.Compactions, model: cfg.Model}
	cm := compaction.New(compaction.Options{Config: cfg.contextConfig(), Model: cfg.Model, Counter: counter, Files: r.ws, Journal: r.job,
		Brief: compaction.WorkspaceBrief(r.ws, r.planner.Load), System: a.System, Tools: toolset.Definitions()})
	cm.FollowTools(toolset.Definitions)
	cm.OnCompaction = func(e compaction.Event) {
		usage.compacted()
		r.report.Compacted(e)
		r.events.Compaction(e.Kind, e.Before, e.After, e.Note)
	}
	cm.OnContextWindow = r.learnedWindow
	a.Hook = cm
	a.Observer = observers{usage, cov, r.report, r.events}
	r.agent, r.context, r.usage = a, cm, usage
	return nil
}

// toolsOf is every tool in a registry (--all-tools), or a catalog that
// sends the domain tools once found or called, loaded as the transcript
// being resumed had them.
func toolsOf(all []tools.Tool, cfg Config) (agent.Tools, error) {
	if cfg.Settings.AllTools {
		return tools.NewRegistry(all...)
	}
	c, err := tools.NewCatalog(all, tools.DeferredTools())
	if err != nil {
		return nil, err
	}
	c.Restore(transcript.Messages(cfg.Transcript))
	return c, nil
}

// observers hands every model and tool call to each of its members.
type observers []agent.Observer

func (obs observers) ModelCalled(c agent.ModelCall) {
	for _, o := range obs {
		o.ModelCalled(c)
	}
}

func (obs observers) ToolCalled(c agent.ToolCall) {
	for _, o := range obs {
		o.ToolCalled(c)
	}
}

// usageRecorder keeps the usage in job.json current after every model
// call, so that `creator status` shows a running job's figures.
type usageRecorder struct {
	job    *job.Job
	priced bool
	// model, when it adapts to its server, has its choice of sending
	// reasoning recorded, so a resume keeps it.
	model llm.Model

	mu          sync.Mutex
	compactions int // recorded by earlier runs, and this one's so far
}

func (u *usageRecorder) compacted() {
	u.mu.Lock()
	u.compactions++
	u.mu.Unlock()
}

func (u *usageRecorder) ModelCalled(c agent.ModelCall) {
	u.mu.Lock()
	n := u.compactions
	u.mu.Unlock()
	_, _ = u.job.UpdateInfo(func(i *workspace.Info) {
		i.Usage = usageOf(c.Totals, u.priced, n)
		if a, ok := u.model.(llm.Adaptive); ok {
			i.Settings.SendReasoning = a.SendsReasoning()
		}
	})
}

func (u *usageRecorder) ToolCalled(agent.ToolCall) {}

// Silent is the reporter of a run nobody watches; embed it to hear only
// some events.
type Silent struct{}

func (Silent) ModelCalled(agent.ModelCall)        {}
func (Silent) ToolCalled(agent.ToolCall)          {}
func (Silent) Started(Start)                      {}
func (Silent) IndexOpened(index.SyncStats, error) {}
func (Silent) PlanChanged(planner.Event)          {}
func (Silent) Compacted(compaction.Event)         {}
func (Silent) Stop()                              {}
func (Silent) CoverageChanged(coverage.Report)    {}
func (Silent) ChunksChanged(ChunkProgress)        {}
func (Silent) ServerRetried(llm.Retry)            {}

// ceilCents rounds a dollar amount up to whole cents.
func ceilCents(v float64) float64 { return math.Ceil(100*v) / 100 }
