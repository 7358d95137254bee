// Package settings is a job's settings as typed data: the one record that
// run, resume, batch and a queued job take (docs/configuration.md), its
// defaults from the environment, what a resume inherits from the job's
// record, and the version a queued job carries, so that a job queued by
// one creator is run by the next.
package settings

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"creator/compaction"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"creator/internal/tokens"
	"creator/internal/usage"
	"creator/workspace"
)

// SettingsVersion is the version of the Settings record this creator
// writes. A later creator reads every earlier version.
const SettingsVersion = 1

// MaxParallel bounds Parallel: more sub-agents than this only queue at
// the server.
const MaxParallel = 64

// Settings are a job's settings as run, resume, batch and a queued job
// take them (docs/configuration.md). Each has a name, the flag's without
// its dashes ("max-steps"); Given names those set on purpose, which a
// resume keeps over the job's record and a queued job brings to the
// worker over the worker's own defaults. The API key and a PDF's password
// are no settings: they are never recorded (Secrets).
type Settings struct {
	Version         int      `json:"version"`
	Model           string   `json:"model,omitempty"`
	BaseURL         string   `json:"base_url,omitempty"`
	MaxSteps        int      `json:"max_steps,omitempty"`
	MaxTokens       int64    `json:"max_tokens,omitempty"`
	MaxCost         float64  `json:"max_cost,omitempty"`
	PriceIn         float64  `json:"price_in,omitempty"`
	PriceOut        float64  `json:"price_out,omitempty"`
	ContextWindow   int      `json:"context_window,omitempty"`
	SummarizeAt     int      `json:"summarize_at,omitempty"`
	KeepToolResults int      `json:"keep_tool_results,omitempty"`
	MinCoverage     float64  `json:"min_coverage,omitempty"`
	AllTools        bool     `json:"all_tools,omitempty"`
	Parallel        int      `json:"parallel,omitempty"`
	MaxText         int64    `json:"max_text,omitempty"`
	Tokenizer       string   `json:"tokenizer,omitempty"`
	RequestTimeout  Duration `json:"request_timeout,omitempty"`
	RetryFor        Duration `json:"retry_for,omitempty"`
	SendReasoning   bool     `json:"send_reasoning,omitempty"`
	EmbedModel      string   `json:"embed_model,omitempty"`
	EmbedBaseURL    string   `json:"embed_base_url,omitempty"`
	Given           []string `json:"given,omitempty"`
}

// Duration is a time.Duration that a record writes as "10m0s".
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if json.Unmarshal(b, &n) != nil {
			return fmt.Errorf("a duration is a string such as \"10m\", not %s", b)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// Names of the settings, as Given holds them.
const (
	SetModel           = "model"
	SetBaseURL         = "base-url"
	SetMaxSteps        = "max-steps"
	SetMaxTokens       = "max-tokens"
	SetMaxCost         = "max-cost"
	SetPriceIn         = "price-in"
	SetPriceOut        = "price-out"
	SetContextWindow   = "context-window"
	SetSummarizeAt     = "summarize-at"
	SetKeepToolResults = "keep-tool-results"
	SetMinCoverage     = "min-coverage"
	SetAllTools        = "all-tools"
	SetParallel        = "parallel"
	SetMaxText         = "max-text"
	SetTokenizer       = "tokenizer"
	SetRequestTimeout  = "request-timeout"
	SetRetryFor        = "retry-for"
	SetSendReasoning   = "send-reasoning"
	SetEmbedModel      = "embed-model"
	SetEmbedBaseURL    = "embed-base-url"
)

// field is one setting: its name, its value in a Settings, and what its
// flag says of it (--help).
type field struct {
	name  string
	ptr   func(s *Settings) any
	usage string
}

// fields are every setting, by name.
var fields = []field{
	{SetModel, func(s *Settings) any { return &s.Model }, "model name (env CREATOR_MODEL); 'builtin' for the offline model"},
	{SetBaseURL, func(s *Settings) any { return &s.BaseURL }, "OpenAI-compatible server URL (env CREATOR_BASE_URL or OPENAI_BASE_URL)"},
	{SetMaxSteps, func(s *Settings) any { return &s.MaxSteps }, "stop after this many model calls (env CREATOR_MAX_STEPS); the job stays resumable"},
	{SetMaxTokens, func(s *Settings) any { return &s.MaxTokens }, "stop when prompt+completion tokens of the job reach this total (0: no limit)"},
	{SetMaxCost, func(s *Settings) any { return &s.MaxCost }, "stop when the job has cost this many US dollars (0: no limit; needs the model's price)"},
	{SetPriceIn, func(s *Settings) any { return &s.PriceIn }, "US dollars per million prompt tokens (env CREATOR_PRICE_IN); default: the built-in table of OpenAI models"},
	{SetPriceOut, func(s *Settings) any { return &s.PriceOut }, "US dollars per million completion tokens (env CREATOR_PRICE_OUT)"},
	{SetContextWindow, func(s *Settings) any { return &s.ContextWindow }, "the model's context window in tokens"},
	{SetSummarizeAt, func(s *Settings) any { return &s.SummarizeAt }, "summarise older turns when the prompt passes this many tokens"},
	{SetKeepToolResults, func(s *Settings) any { return &s.KeepToolResults }, "number of recent tool results kept whole in the prompt"},
	{SetMinCoverage, func(s *Settings) any { return &s.MinCoverage }, "share of the chunks that must be covered (read in full, and cited or declared empty) before the job can complete, e.g. 0.95"},
	{SetAllTools, func(s *Settings) any { return &s.AllTools }, "send every tool definition with every request instead of the core tools and those the model found with search_tools"},
	{SetParallel, func(s *Settings) any { return &s.Parallel }, "sub-agents that analyse chunks at once, each with a fresh context, and the most model requests in flight (env CREATOR_PARALLEL); 0: the main agent reads every chunk itself. A resume keeps the job's number unless given"},
	{SetMaxText, func(s *Settings) any { return &s.MaxText }, "refuse a document whose text is larger than this, before it is chunked and indexed (e.g. 64MB; env CREATOR_MAX_TEXT; about 8 million tokens)"},
	{SetTokenizer, func(s *Settings) any { return &s.Tokenizer }, "token encoding that prompts are counted with: o200k_base, cl100k_base, p50k_base or r50k_base (env CREATOR_TOKENIZER)"},
	{SetRequestTimeout, func(s *Settings) any { return &s.RequestTimeout }, "give up on one request to the model server after this long and retry (env CREATOR_REQUEST_TIMEOUT)"},
	{SetRetryFor, func(s *Settings) any { return &s.RetryFor }, "how long to keep retrying a failing model server (rate limits, 5xx, timeouts, a restart) before the job stops, resumable; a server that asks to wait past the window, rejects the key or refuses the request stops it at once (env CREATOR_RETRY_FOR; 0: no retries)"},
	{SetSendReasoning, func(s *Settings) any { return &s.SendReasoning }, "send the model's reasoning (reasoning_content) back with its tool calls, as DeepSeek's thinking mode and some llama.cpp and vLLM models want; switched on or off by itself when the server asks for or refuses the field, and a resume keeps the job's last choice (env CREATOR_SEND_REASONING)"},
	{SetEmbedModel, func(s *Settings) any { return &s.EmbedModel }, "embedding model for semantic search_files (env CREATOR_EMBED_MODEL); none: keyword search only"},
	{SetEmbedBaseURL, func(s *Settings) any { return &s.EmbedBaseURL }, "OpenAI-compatible /v1/embeddings server (env CREATOR_EMBED_BASE_URL); default: the model server"},
}

// Names are the names of every setting.
func Names() []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.name
	}
	return out
}

// IsGiven reports whether the setting name was set on purpose.
func (s Settings) IsGiven(name string) bool { return slices.Contains(s.Given, name) }

// Defaults are the settings a job takes when none is given, with the
// environment's (CREATOR_MAX_STEPS, CREATOR_PARALLEL, CREATOR_RETRY_FOR …)
// over the built-in ones (docs/configuration.md).
func Defaults(getenv func(string) string) Settings {
	return Settings{
		Version:         SettingsVersion,
		MaxSteps:        envNumber(getenv, "CREATOR_MAX_STEPS", jobrun.DefaultMaxSteps, strconv.Atoi),
		PriceIn:         envNumber(getenv, "CREATOR_PRICE_IN", 0, parseFloat),
		PriceOut:        envNumber(getenv, "CREATOR_PRICE_OUT", 0, parseFloat),
		ContextWindow:   compaction.DefaultContextWindow,
		SummarizeAt:     compaction.DefaultSummarizeAt,
		KeepToolResults: compaction.DefaultKeepToolResults,
		MinCoverage:     jobrun.DefaultMinCoverage,
		Parallel:        envCount(getenv, "CREATOR_PARALLEL", jobrun.DefaultParallel),
		MaxText:         EnvSize(getenv, "CREATOR_MAX_TEXT", document.DefaultMaxText),
		Tokenizer:       envString(getenv, "CREATOR_TOKENIZER", tokens.DefaultEncoding),
		RequestTimeout:  Duration(envNumber(getenv, "CREATOR_REQUEST_TIMEOUT", 10*time.Minute, time.ParseDuration)),
		RetryFor:        Duration(envNumber(getenv, "CREATOR_RETRY_FOR", llm.DefaultRetryFor, time.ParseDuration)),
		SendReasoning:   envBool(getenv, "CREATOR_SEND_REASONING"),
		EmbedModel:      envString(getenv, "CREATOR_EMBED_MODEL", ""),
		EmbedBaseURL:    envString(getenv, "CREATOR_EMBED_BASE_URL", ""),
	}
}

// Over is s with every setting it does not give taken from base: a queued
// job's given settings over the worker's defaults.
func (s Settings) Over(base Settings) Settings {
	out := base
	for _, f := range fields {
		if s.IsGiven(f.name) {
			copyValue(f.ptr(&out), f.ptr(&s))
		}
	}
	out.Given = slices.Clone(s.Given)
	out.Version = SettingsVersion
	return out
}

// copyValue sets the field dst points to from the one src points to, of
// the same type.
func copyValue(dst, src any) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

// Inherit is s with the job's recorded settings for those not given now:
// a resume goes on with the limits and choices the job started with. The
// price and the embedding model are taken only when s has none, so that
// the environment (CREATOR_PRICE_IN, CREATOR_EMBED_MODEL) wins over the
// record for them.
func (s Settings) Inherit(r workspace.Settings) Settings {
	override := func(name string, dst any, v any) {
		if !s.IsGiven(name) && !isZero(v) {
			copyValue(dst, v)
		}
	}
	fill := func(name string, dst any, v any) {
		if !s.IsGiven(name) && isZero(dst) && !isZero(v) {
			copyValue(dst, v)
		}
	}
	override(SetMaxSteps, &s.MaxSteps, &r.MaxSteps)
	override(SetContextWindow, &s.ContextWindow, &r.ContextWindow)
	override(SetSummarizeAt, &s.SummarizeAt, &r.SummarizeAt)
	override(SetKeepToolResults, &s.KeepToolResults, &r.KeepToolResults)
	override(SetMaxTokens, &s.MaxTokens, &r.MaxTokens)
	override(SetTokenizer, &s.Tokenizer, &r.Tokenizer)
	override(SetMinCoverage, &s.MinCoverage, &r.MinCoverage)
	override(SetAllTools, &s.AllTools, &r.AllTools)
	override(SetSendReasoning, &s.SendReasoning, &r.SendReasoning)
	override(SetMaxText, &s.MaxText, &r.MaxText)
	if !s.IsGiven(SetParallel) {
		// A job recorded without the number ran before sub-agents: its
		// main agent reads the chunks.
		s.Parallel = 0
		if r.Parallel != nil {
			s.Parallel = *r.Parallel
		}
	}
	fill(SetMaxCost, &s.MaxCost, &r.MaxCost)
	fill(SetPriceIn, &s.PriceIn, &r.PriceIn)
	fill(SetPriceOut, &s.PriceOut, &r.PriceOut)
	fill(SetEmbedModel, &s.EmbedModel, &r.EmbedModel)
	fill(SetEmbedBaseURL, &s.EmbedBaseURL, &r.EmbedBaseURL)
	return s
}

func isZero(v any) bool { return reflect.ValueOf(v).Elem().IsZero() }

// Record is the job's record of the settings (job.json), with the model
// server it runs on.
func (s Settings) Record(baseURL string) workspace.Settings {
	parallel := s.Parallel
	r := workspace.Settings{
		MaxSteps: s.MaxSteps, MaxTokens: s.MaxTokens, MaxCost: s.MaxCost, ContextWindow: s.ContextWindow,
		SummarizeAt: s.SummarizeAt, KeepToolResults: s.KeepToolResults, Tokenizer: s.Tokenizer,
		PriceIn: s.PriceIn, PriceOut: s.PriceOut, MinCoverage: s.MinCoverage, AllTools: s.AllTools,
		SendReasoning: s.SendReasoning, Parallel: &parallel, MaxText: s.MaxText, EmbedModel: s.EmbedModel,
	}
	if baseURL != "" {
		r.BaseURL = llm.SafeURL(baseURL)
	}
	if s.EmbedBaseURL != "" {
		r.EmbedBaseURL = llm.SafeURL(s.EmbedBaseURL)
	}
	return r
}

// Check refuses settings that cannot work, before a job is made.
func (s Settings) Check() error {
	switch {
	case s.ContextWindow < 1000:
		return usage.Errorf("--context-window must be at least 1000 tokens, not %d", s.ContextWindow)
	case s.SummarizeAt < 500:
		return usage.Errorf("--summarize-at must be at least 500 tokens, not %d", s.SummarizeAt)
	case s.KeepToolResults < 1:
		return usage.Errorf("--keep-tool-results must be at least 1, not %d", s.KeepToolResults)
	case time.Duration(s.RequestTimeout) < time.Second:
		return usage.Errorf("--request-timeout must be at least 1s, not %s", time.Duration(s.RequestTimeout))
	case s.RetryFor < 0:
		return usage.Errorf("--retry-for cannot be negative, not %s", time.Duration(s.RetryFor))
	case s.Parallel < 0 || s.Parallel > MaxParallel:
		return usage.Errorf("--parallel is how many sub-agents work at once, 0 to %d, not %d", MaxParallel, s.Parallel)
	case s.MinCoverage <= 0 || s.MinCoverage > 1:
		return usage.Errorf("--min-coverage is the share of chunks that must be covered, more than 0 and at most 1, not %g", s.MinCoverage)
	case s.MaxCost < 0 || s.PriceIn < 0 || s.PriceOut < 0:
		return usage.Errorf("--max-cost, --price-in and --price-out cannot be negative")
	case s.Version > SettingsVersion:
		return fmt.Errorf("the settings are of version %d, newer than this creator knows (%d): use a newer creator", s.Version, SettingsVersion)
	}
	if _, err := tokens.New(s.Tokenizer); err != nil {
		return usage.Errorf("--tokenizer: %v", err)
	}
	if s.EmbedBaseURL != "" && !IsHTTPURL(s.EmbedBaseURL) {
		return usage.Errorf("--embed-base-url %q is not an http(s) URL such as http://localhost:8080/v1", llm.SafeURL(s.EmbedBaseURL))
	}
	return nil
}

func envString(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// envNumber reads a positive number from the environment, else def.
func envNumber[T int | float64 | time.Duration](getenv func(string) string, name string, def T, parse func(string) (T, error)) T {
	if v, err := parse(getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// envCount reads a count from the environment, zero included, else def.
func envCount(getenv func(string) string, name string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(getenv(name))); err == nil && v >= 0 {
		return v
	}
	return def
}

// envBool reads a boolean from the environment (1, true, yes), else false.
func envBool(getenv func(string) string, name string) bool {
	v, err := strconv.ParseBool(getenv(name))
	return err == nil && v || strings.EqualFold(getenv(name), "yes")
}

// EnvSize reads a size (64MB, 1.5 GB, 1048576) from the environment, else
// def.
func EnvSize(getenv func(string) string, name string, def int64) int64 {
	if v, err := humanize.ParseBytes(getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

// Queued is the record a queued job carries: the settings given, each
// with its value, the others left to the worker's defaults (Over). Two
// enqueues with the same given settings make the same record, whatever
// either machine's environment says.
func (s Settings) Queued() Settings {
	out := s.Over(Settings{})
	slices.Sort(out.Given)
	return out
}

// Give marks the settings names as given.
func (s *Settings) Give(names ...string) {
	for _, n := range names {
		if !s.IsGiven(n) {
			s.Given = append(s.Given, n)
		}
	}
}

// FromFlags reads the settings a job was queued with before queued jobs
// carried a record: run flags written "--name=value", as the command line
// printed them. A flag that is no setting is refused, so a job is never
// run with less than it was queued with.
func FromFlags(flags []string) (Settings, error) {
	s := Settings{Version: SettingsVersion}
	for _, fl := range flags {
		name, value, ok := strings.Cut(strings.TrimPrefix(fl, "--"), "=")
		i := slices.IndexFunc(fields, func(f field) bool { return f.name == name })
		if !ok || !strings.HasPrefix(fl, "--") || i < 0 {
			return s, fmt.Errorf("queued flag %q is not a setting this creator knows", fl)
		}
		if err := parseValue(fields[i].ptr(&s), value); err != nil {
			return s, fmt.Errorf("queued flag --%s: %v", name, err)
		}
		s.Give(name)
	}
	return s, nil
}

// parseValue sets dst from its text as a flag gives it.
func parseValue(dst any, v string) (err error) {
	switch d := dst.(type) {
	case *string:
		*d = v
	case *int:
		*d, err = strconv.Atoi(v)
	case *int64:
		if *d, err = strconv.ParseInt(v, 10, 64); err != nil {
			*d, err = humanize.ParseBytes(v)
		}
	case *float64:
		*d, err = strconv.ParseFloat(v, 64)
	case *bool:
		*d, err = strconv.ParseBool(v)
	case *Duration:
		var t time.Duration
		t, err = time.ParseDuration(v)
		*d = Duration(t)
	}
	return err
}

// IsHTTPURL reports whether s is an http(s) URL with a host: a model or
// embedding server's address.
func IsHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
