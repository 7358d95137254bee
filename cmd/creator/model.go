package main

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"creator/internal/index"
	"creator/internal/llm"
	"creator/internal/offlinemodel"
)

// modelChoice is the model a job runs with.
type modelChoice struct {
	name    string
	baseURL string
	apiKey  string
	// keySource is where the key came from: the flag or the variable.
	keySource string
	// auto is true when the built-in model was chosen because nothing else
	// was configured.
	auto bool
}

func (m modelChoice) builtin() bool { return m.name == offlinemodel.Name }

// chooseModel resolves the model from flags, then the environment, then what
// the job recorded (for resume). It returns a usage error when no model can
// be run.
func (o *runOptions) chooseModel(recordedModel, recordedURL string) (modelChoice, error) {
	m := modelChoice{
		name:    first(o.model, o.getenv("CREATOR_MODEL"), recordedModel),
		baseURL: first(o.baseURL, o.getenv("CREATOR_BASE_URL"), o.getenv("OPENAI_BASE_URL"), recordedURL),
		apiKey:  first(o.apiKey, o.getenv("OPENAI_API_KEY")),
	}
	switch {
	case first(o.apiKey) != "":
		m.keySource = "--api-key"
	case m.apiKey != "":
		m.keySource = "OPENAI_API_KEY"
	}
	switch {
	case m.name == offlinemodel.Name:
		return modelChoice{name: offlinemodel.Name}, nil
	case m.name == "" && m.baseURL == "":
		return modelChoice{name: offlinemodel.Name, auto: true}, nil
	case m.name == "":
		return m, usageErrorf("give --model (or CREATOR_MODEL): the name of the model the server at %s should run", llm.SafeURL(m.baseURL))
	case m.baseURL == "" && m.apiKey == "":
		return m, usageErrorf("no server for model %s: give --base-url (or CREATOR_BASE_URL), or set OPENAI_API_KEY to use api.openai.com", m.name)
	}
	if m.baseURL != "" {
		if !httpURL(m.baseURL) {
			return m, usageErrorf("--base-url %q is not an http(s) URL such as http://localhost:8080/v1", llm.SafeURL(m.baseURL))
		}
	}
	return m, nil
}

// client is the model's client, as the flags configure it.
func (o *runOptions) client(m modelChoice) llm.Model {
	if m.builtin() {
		return offlinemodel.New()
	}
	retryFor := o.retryFor
	if retryFor == 0 {
		retryFor = -1 // no retries
	}
	var gate *llm.Limiter
	if o.parallel > 0 {
		// Never more than --parallel requests in flight for the job, fewer
		// while the server answers 429 or 503.
		gate = llm.NewLimiter(o.parallel)
	}
	return llm.NewClient(llm.ClientConfig{BaseURL: m.baseURL, APIKey: m.apiKey, Model: m.name, SendReasoning: o.sendReasoning,
		BaseDelay: o.retryBaseDelay, Timeout: o.requestTimeout, RetryFor: retryFor, Sleep: o.retrySleep, Limiter: gate})
}

// serverAdvice is what to do about a model server that failed the job:
// the flag or variable to fix, when it is a setting.
func (m modelChoice) serverAdvice(err error) string {
	switch {
	case errors.Is(err, llm.ErrAuth) && m.keySource == "":
		return "no API key was given: give --api-key or set OPENAI_API_KEY"
	case errors.Is(err, llm.ErrAuth):
		return "check " + m.keySource
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

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// embedder is the embedding model of semantic search, served by the model
// server unless --embed-base-url names another; nil when none is given.
func (o *runOptions) embedder(m modelChoice) index.Embedder {
	if o.embedModel == "" {
		return nil
	}
	return llm.NewEmbedClient(llm.EmbedConfig{BaseURL: first(o.embedBaseURL, m.baseURL), APIKey: m.apiKey, Model: o.embedModel})
}

func first(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
