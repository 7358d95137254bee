package main

import (
	"cmp"
	"creator/compaction"
	"creator/internal/jobrun"
	"creator/internal/llm"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"creator/internal/atomicfile"
	"creator/internal/document"
	"creator/internal/humanize"
	"creator/internal/tokens"
)

// runOptions are the flags of run and resume (docs/configuration.md).
type runOptions struct {
	*globalOptions
	jobID           string
	documents       []string
	maxSteps        int
	maxTokens       int64
	maxCost         float64
	priceIn         float64
	priceOut        float64
	contextWindow   int
	summarizeAt     int
	keepToolResults int
	minCoverage     float64
	allTools        bool
	parallel        int
	maxText         int64
	tokenizer       string
	requestTimeout  time.Duration
	retryFor        time.Duration
	sendReasoning   bool
	model           string
	baseURL         string
	apiKey          string
	pdfPassword     string
	embedModel      string
	embedBaseURL    string
	quiet, verbose  bool
	// changed reports whether a flag was given on the command line.
	changed func(name string) bool
}

func addRunFlags(cmd *cobra.Command, o *runOptions) {
	f := cmd.Flags()
	f.IntVar(&o.maxSteps, "max-steps", envNumber(o.factory, "CREATOR_MAX_STEPS", jobrun.DefaultMaxSteps, strconv.Atoi), "stop after this many model calls (env CREATOR_MAX_STEPS); the job stays resumable")
	f.Int64Var(&o.maxTokens, "max-tokens", 0, "stop when prompt+completion tokens of the job reach this total (0: no limit)")
	f.Float64Var(&o.maxCost, "max-cost", 0, "stop when the job has cost this many US dollars (0: no limit; needs the model's price)")
	f.Float64Var(&o.priceIn, "price-in", envNumber(o.factory, "CREATOR_PRICE_IN", 0, parseFloat), "US dollars per million prompt tokens (env CREATOR_PRICE_IN); default: the built-in table of OpenAI models")
	f.Float64Var(&o.priceOut, "price-out", envNumber(o.factory, "CREATOR_PRICE_OUT", 0, parseFloat), "US dollars per million completion tokens (env CREATOR_PRICE_OUT)")
	f.IntVar(&o.contextWindow, "context-window", compaction.DefaultContextWindow, "the model's context window in tokens")
	f.IntVar(&o.summarizeAt, "summarize-at", compaction.DefaultSummarizeAt, "summarise older turns when the prompt passes this many tokens")
	f.IntVar(&o.keepToolResults, "keep-tool-results", compaction.DefaultKeepToolResults, "number of recent tool results kept whole in the prompt")
	f.Float64Var(&o.minCoverage, "min-coverage", jobrun.DefaultMinCoverage, "share of the chunks that must be covered (read in full, and cited or declared empty) before the job can complete, e.g. 0.95")
	f.IntVar(&o.parallel, "parallel", envCount(o.factory, "CREATOR_PARALLEL", jobrun.DefaultParallel), "sub-agents that analyse chunks at once, each with a fresh context, and the most model requests in flight (env CREATOR_PARALLEL); 0: the main agent reads every chunk itself. A resume keeps the job's number unless given")
	o.maxText = envSize(o.factory, "CREATOR_MAX_TEXT", document.DefaultMaxText)
	f.Var(byteSize{&o.maxText}, "max-text", "refuse a document whose text is larger than this, before it is chunked and indexed (e.g. 64MB; env CREATOR_MAX_TEXT; about 8 million tokens)")
	f.BoolVar(&o.allTools, "all-tools", false, "send every tool definition with every request instead of the core tools and those the model found with search_tools")
	f.StringVar(&o.tokenizer, "tokenizer", o.envString("CREATOR_TOKENIZER", tokens.DefaultEncoding), "token encoding that prompts are counted with: o200k_base, cl100k_base, p50k_base or r50k_base (env CREATOR_TOKENIZER)")
	f.DurationVar(&o.requestTimeout, "request-timeout", envNumber(o.factory, "CREATOR_REQUEST_TIMEOUT", 10*time.Minute, time.ParseDuration), "give up on one request to the model server after this long and retry (env CREATOR_REQUEST_TIMEOUT)")
	f.DurationVar(&o.retryFor, "retry-for", envNumber(o.factory, "CREATOR_RETRY_FOR", llm.DefaultRetryFor, time.ParseDuration), "how long to keep retrying a failing model server (rate limits, 5xx, timeouts, a restart) before the job stops, resumable; a server that asks to wait past the window, rejects the key or refuses the request stops it at once (env CREATOR_RETRY_FOR; 0: no retries)")
	f.BoolVar(&o.sendReasoning, "send-reasoning", envBool(o.factory, "CREATOR_SEND_REASONING"), "send the model's reasoning (reasoning_content) back with its tool calls, as DeepSeek's thinking mode and some llama.cpp and vLLM models want; switched on or off by itself when the server asks for or refuses the field, and a resume keeps the job's last choice (env CREATOR_SEND_REASONING)")
	f.StringVar(&o.model, "model", "", "model name (env CREATOR_MODEL); 'builtin' for the offline model")
	f.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible server URL (env CREATOR_BASE_URL or OPENAI_BASE_URL)")
	f.StringVar(&o.apiKey, "api-key", "", "API key (env OPENAI_API_KEY); never written to the job")
	f.StringVar(&o.embedModel, "embed-model", o.envString("CREATOR_EMBED_MODEL", ""), "embedding model for semantic search_files (env CREATOR_EMBED_MODEL); none: keyword search only")
	f.StringVar(&o.embedBaseURL, "embed-base-url", o.envString("CREATOR_EMBED_BASE_URL", ""), "OpenAI-compatible /v1/embeddings server (env CREATOR_EMBED_BASE_URL); default: the model server")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print no progress on stderr")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "also print the model's reasoning and each tool call")
}

// pdfPasswordEnv is where the password of encrypted PDFs comes from when
// --pdf-password is not given.
const pdfPasswordEnv = "CREATOR_PDF_PASSWORD"

// addPDFPasswordFlag adds --pdf-password to the commands that extract
// documents. Its default stays empty, the environment being read when
// used (givenPDFPassword), so that --help never prints the password.
func addPDFPasswordFlag(cmd *cobra.Command, password *string) {
	cmd.Flags().StringVar(password, "pdf-password", "", "password of encrypted PDFs that need one to open (env "+pdfPasswordEnv+"); PDFs restricted by an owner password only open without it; never written to the job")
}

// givenPDFPassword is --pdf-password (flag), else $CREATOR_PDF_PASSWORD.
func (g *globalOptions) givenPDFPassword(flag string) string {
	return first(flag, g.getenv(pdfPasswordEnv))
}

// documentOptions are the options documents are extracted with.
func (o *runOptions) documentOptions() document.Options {
	return document.Options{MaxText: o.maxText, Password: o.givenPDFPassword(o.pdfPassword)}
}

func (f *factory) envString(name, def string) string {
	return cmp.Or(f.getenv(name), def)
}

// envNumber reads a positive number from the environment, else def.
func envNumber[T int | float64 | time.Duration](f *factory, name string, def T, parse func(string) (T, error)) T {
	if v, err := parse(f.getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// envCount reads a count from the environment, zero included, else def.
func envCount(f *factory, name string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(f.getenv(name))); err == nil && v >= 0 {
		return v
	}
	return def
}

// envBool reads a boolean from the environment (1, true, yes), else false.
func envBool(f *factory, name string) bool {
	v, err := strconv.ParseBool(f.getenv(name))
	return err == nil && v || strings.EqualFold(f.getenv(name), "yes")
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func newRunCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "run [--job ID] [flags] DOCUMENT...",
		Short: "Create a job for the documents and run it to completion",
		Long: `Create a job folder for the documents and run the agent until its plan is
complete, output/requirements.json is valid and every chunk of the documents
is covered: read in full, and cited by a requirement or declared empty
(--min-coverage accepts less).

The model is an OpenAI-compatible chat-completions server (OpenAI, llama.cpp,
vLLM, Ollama): --model and --base-url, or CREATOR_MODEL and CREATOR_BASE_URL /
OPENAI_BASE_URL; the key comes from --api-key or OPENAI_API_KEY and is never
written to the job.

The chunks are analysed by sub-agents, each a fresh conversation with one
chunk, --parallel of them at once (default 4, env CREATOR_PARALLEL; also the
most requests in flight, fewer while the server answers 429 or 503);
--parallel 0 lets the main agent read every chunk itself. Requirement ids
follow the document whatever order the sub-agents finish in.

Budgets: --max-steps, --max-tokens and --max-cost count the whole job across
resumes, every sub-agent's requests included. At a budget the requirements saved so far are written to output/
(summary.md says the result is partial) and the message names the command
that continues with a higher limit. Cost comes from --price-in/--price-out
or a built-in table of OpenAI prices; the built-in model costs nothing.

Progress goes to stderr: one updating line on a terminal, one line per task
change otherwise; --quiet silences it, --verbose adds every call. Each run
appends its events to .agent/events.jsonl.

A failing model server is retried for --retry-for (default 5m): rate limits,
server errors, timeouts, a server restarting or loading its model.

Exit codes: 0 done; 1 error, or the server rejected the API key; 2 usage, or
no server can be reached at the address before the job's first answer;
3 stopped before completion (a budget, repeated tool failure, a loop, answers
cut off at the model's output limit, model gave up, the server failed or was
down for all of --retry-for) and resumable; 130 interrupted and resumable. On
3 and 130, continue with 'creator resume --job ID'.`,
		Example: `  creator run testdata/sample/retention-policy.pdf
  creator run --model gpt-4.1 --max-cost 5 policy.pdf
  creator run --job gobd --base-url http://localhost:8080/v1 --model gpt-oss-120b GoBD.pdf
  creator run --job rfc --max-steps 200 --price-in 0.2 --price-out 0.8 rfc9000.txt`,
		Args: func(cmd *cobra.Command, docs []string) error {
			if len(docs) == 0 {
				return usageErrorf("give the document(s) to process, e.g. 'creator run policy.pdf'")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, docs []string) error {
			o.documents = docs
			o.changed = cmd.Flags().Changed
			return runRun(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "job id (letters, digits, '.', '_', '-'); generated when not given")
	addRunFlags(cmd, o)
	addPDFPasswordFlag(cmd, &o.pdfPassword)
	return cmd
}

func newResumeCmd(g *globalOptions) *cobra.Command {
	o := &runOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "resume --job ID [flags]",
		Short: "Continue an interrupted, stopped or failed job",
		Long: `Continue a job from its folder: the conversation is rebuilt from the job's
transcript, tool calls cut off by the interruption are answered as such, the
model is told the job was resumed, and the agent goes on. Limits count the
whole job, so a job stopped at --max-steps needs a higher limit to go on.
The model and server of the job are used unless flags name others, and so
are its settings (--parallel among them), including a context window or
--send-reasoning choice learned from the server's errors. Chunks whose
sub-agents finished before the interruption are not sent again; one cut
short is redone from its start. A failing server is retried for
--retry-for (default 5m) in each run. Resuming a completed job does nothing
and exits 0.`,
		Example: `  creator resume --job gobd
  creator resume --job gobd --max-steps 1000`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.jobID == "" {
				return usageErrorf("--job is required")
			}
			o.changed = cmd.Flags().Changed
			return runResume(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.jobID, "job", "", "id of the job to continue")
	completeJobs(cmd, g)
	addRunFlags(cmd, o)
	addPDFPasswordFlag(cmd, &o.pdfPassword)
	return cmd
}

type extractOptions struct {
	*globalOptions
	document    string
	output      string
	maxText     int64
	pdfPassword string
}

func newExtractCmd(g *globalOptions) *cobra.Command {
	o := &extractOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "extract DOCUMENT [-o FILE]",
		Short: "Print a document's text as the agent gets it",
		Long: `Extract the text of a document (PDF, text, Markdown, HTML, DOCX) exactly as
the agent's extract_document_text tool does, and print it or write it to a
file. Each page of a paged document starts with a line '--- page N ---';
running headers, footers and page numbers are removed and words divided at
line ends are joined. A summary (pages, characters, tokens) goes to stderr.`,
		Example: `  creator extract GoBD.pdf | less
  creator extract -o rfc9000.clean.txt rfc9000.txt`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			o.document = a[0]
			return runExtract(o)
		},
	}
	cmd.Flags().StringVarP(&o.output, "output", "o", "", "file to write (default: stdout)")
	o.maxText = envSize(o.factory, "CREATOR_MAX_TEXT", document.DefaultMaxText)
	cmd.Flags().Var(byteSize{&o.maxText}, "max-text", "refuse a document whose text is larger than this (e.g. 64MB; env CREATOR_MAX_TEXT)")
	addPDFPasswordFlag(cmd, &o.pdfPassword)
	return cmd
}

func runExtract(o *extractOptions) error {
	// The token table loads while the document is read.
	go tokens.Default()
	doc, err := document.Extract(o.document, document.Options{MaxText: o.maxText, Password: o.givenPDFPassword(o.pdfPassword)})
	if err != nil {
		return err
	}
	text := doc.Text()
	if o.output == "" {
		if _, err := io.WriteString(o.streams.Out, text); err != nil {
			return err
		}
	} else if err := atomicfile.Write(o.output, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(o.streams.ErrOut, "%s: %s, %s characters, %s tokens\n", filepath.Base(o.document),
		humanize.Plural(len(doc.Pages), "page"), humanize.Int(utf8.RuneCountInString(text)), humanize.Int(tokens.Default().Count(text)))
	for _, n := range doc.Notes {
		fmt.Fprintf(o.streams.ErrOut, "note: %s\n", n)
	}
	return nil
}
