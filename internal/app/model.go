package app

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"creator/internal/cost"
	"creator/internal/index"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
	"creator/internal/settings"
	"creator/internal/usage"
)

// Env is what the application takes from the process: the environment,
// the clock, the waits between attempts at a model server and creator's
// version (recorded in a job). Tests give their own, so they run in
// parallel.
type Env struct {
	Getenv func(string) string
	Now    func() time.Time
	// RetryBaseDelay is the first wait between attempts at the model
	// server; RetrySleep waits between them (nil: for real).
	RetryBaseDelay time.Duration
	RetrySleep     func(ctx context.Context, d time.Duration) error
	Version        string
	// CheckpointEvery is the longest time between two checkpoints of a
	// job on a bucket while it runs (0: 30 s).
	CheckpointEvery time.Duration
	// Log gets a line for each thing worth saying beside a use case's
	// result (a checkpoint that failed and is tried again); nil drops them.
	Log func(format string, args ...any)
}

// Secrets are what a job needs and never records: the API key and the
// password of encrypted PDFs, from the command line, else the
// environment (OPENAI_API_KEY, CREATOR_PDF_PASSWORD).
type Secrets struct {
	APIKey      string
	PDFPassword string
}

// PDFPasswordEnv is where the password of encrypted PDFs comes from when
// none is given.
const PDFPasswordEnv = "CREATOR_PDF_PASSWORD"

// Password is the PDF password given, else the environment's.
func (s Secrets) Password(getenv func(string) string) string {
	return First(s.PDFPassword, getenv(PDFPasswordEnv))
}

// Values are the secrets given or in the environment, to keep off what
// is shown.
func (s Secrets) Values(getenv func(string) string) []string {
	return []string{First(s.APIKey, getenv("OPENAI_API_KEY")), s.Password(getenv)}
}

// Model is the model a job runs with.
type Model struct {
	Name    string
	BaseURL string
	APIKey  string
	// KeySource is where the key came from: "--api-key" or
	// "OPENAI_API_KEY"; "" without one.
	KeySource string
	// Auto: the built-in model, because nothing else was configured.
	Auto bool
}

// Builtin reports whether the model is the built-in one.
func (m Model) Builtin() bool { return m.Name == offlinemodel.Name }

// ChooseModel resolves the model of settings s: the setting, then the
// environment (CREATOR_MODEL, CREATOR_BASE_URL, OPENAI_BASE_URL), then
// what the job recorded (a resume). It checks the settings first, and
// refuses a model it cannot run or a budget in dollars without a price.
func ChooseModel(s settings.Settings, sec Secrets, getenv func(string) string, recordedModel, recordedURL string) (Model, error) {
	if err := s.Check(); err != nil {
		return Model{}, err
	}
	m, err := chooseModel(s, sec, getenv, recordedModel, recordedURL)
	if _, ok := m.Pricing(s); err == nil && s.MaxCost > 0 && !ok {
		err = usage.Errorf("--max-cost needs the price of %s: give --price-in and --price-out (US dollars per million tokens); known prices: %s",
			m.Name, strings.Join(cost.Models(), ", "))
	}
	return m, err
}

func chooseModel(s settings.Settings, sec Secrets, getenv func(string) string, recordedModel, recordedURL string) (Model, error) {
	m := Model{
		Name:    First(s.Model, getenv("CREATOR_MODEL"), recordedModel),
		BaseURL: First(s.BaseURL, getenv("CREATOR_BASE_URL"), getenv("OPENAI_BASE_URL"), recordedURL),
		APIKey:  First(sec.APIKey, getenv("OPENAI_API_KEY")),
	}
	switch {
	case First(sec.APIKey) != "":
		m.KeySource = "--api-key"
	case m.APIKey != "":
		m.KeySource = "OPENAI_API_KEY"
	}
	switch {
	case m.Name == offlinemodel.Name:
		return Model{Name: offlinemodel.Name}, nil
	case m.Name == "" && m.BaseURL == "":
		return Model{Name: offlinemodel.Name, Auto: true}, nil
	case m.Name == "":
		return m, usage.Errorf("give --model (or CREATOR_MODEL): the name of the model the server at %s should run", llm.SafeURL(m.BaseURL))
	case m.BaseURL == "" && m.APIKey == "":
		return m, usage.Errorf("no server for model %s: give --base-url (or CREATOR_BASE_URL), or set OPENAI_API_KEY to use api.openai.com", m.Name)
	case m.BaseURL != "" && !settings.IsHTTPURL(m.BaseURL):
		return m, usage.Errorf("--base-url %q is not an http(s) URL such as http://localhost:8080/v1", llm.SafeURL(m.BaseURL))
	}
	return m, nil
}

// Pricing is the model's price under settings s and whether it is known.
func (m Model) Pricing(s settings.Settings) (cost.Price, bool) {
	return cost.For(m.Name, s.PriceIn, s.PriceOut, m.Builtin())
}

// Client is the model's client under settings s, with its own gate of
// Parallel requests in flight (fewer while the server answers 429 or 503).
func (m Model) Client(s settings.Settings, env Env) llm.Model {
	if m.Builtin() {
		return offlinemodel.New()
	}
	retryFor := time.Duration(s.RetryFor)
	if retryFor == 0 {
		retryFor = -1 // no retries
	}
	var gate *llm.Limiter
	if s.Parallel > 0 {
		gate = llm.NewLimiter(s.Parallel)
	}
	return llm.NewClient(llm.ClientConfig{BaseURL: m.BaseURL, APIKey: m.APIKey, Model: m.Name, SendReasoning: s.SendReasoning,
		BaseDelay: env.RetryBaseDelay, Timeout: time.Duration(s.RequestTimeout), RetryFor: retryFor, Sleep: env.RetrySleep, Limiter: gate})
}

// Embedder is the embedding model of semantic search, served by the model
// server unless EmbedBaseURL names another; nil when none is set.
func (m Model) Embedder(s settings.Settings) index.Embedder {
	if s.EmbedModel == "" {
		return nil
	}
	return llm.NewEmbedClient(llm.EmbedConfig{BaseURL: First(s.EmbedBaseURL, m.BaseURL), APIKey: m.APIKey, Model: s.EmbedModel})
}

// ServerAdvice is what to do about a model server that failed the job:
// the flag or variable to fix, when it is a setting.
func (m Model) ServerAdvice(err error) string {
	switch {
	case errors.Is(err, llm.ErrAuth) && m.KeySource == "":
		return "no API key was given: give --api-key or set OPENAI_API_KEY"
	case errors.Is(err, llm.ErrAuth):
		return "check " + m.KeySource
	case errors.Is(err, llm.ErrUnreachable):
		return "start the server, or point creator at the right one with --base-url (or CREATOR_BASE_URL)"
	case errors.Is(err, llm.ErrContextLength):
		return "give a smaller --summarize-at, or use a model with a larger context window"
	}
	var se *llm.ServerError
	switch {
	case !errors.As(err, &se):
	case se.Status == http.StatusNotFound:
		return "check --model (or CREATOR_MODEL) and --base-url"
	case se.TimedOut:
		return "give a longer --request-timeout if the server is slow, or a longer --retry-for"
	case !se.Refused:
		return "wait until the server works again, or give a longer --retry-for (or CREATOR_RETRY_FOR)"
	default:
		return "the server will refuse the same request again: fix what its message names (--model, a server option, a proxy's settings)"
	}
	return ""
}

// First is the first of values that is not blank, trimmed.
func First(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
