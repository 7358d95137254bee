package llm

import (
	"context"
	"fmt"
	"net/http"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"creator/internal/secret"
)

// EmbedConfig configures a client of an OpenAI-compatible embeddings
// server (/v1/embeddings: OpenAI, llama.cpp, Ollama, vLLM).
type EmbedConfig struct {
	BaseURL string // e.g. http://localhost:8080/v1; default https://api.openai.com/v1
	APIKey  string // sent as a bearer token, never logged
	Model   string
}

// embedTimeout bounds one embeddings request.
const embedTimeout = time.Minute

// EmbedClient embeds texts with an embedding model. A failed request is
// not retried: search falls back to keywords and asks again next time.
type EmbedClient struct {
	cfg EmbedConfig
	api *openai.Client
}

// NewEmbedClient returns a client for cfg.
func NewEmbedClient(cfg EmbedConfig) *EmbedClient {
	if cfg.BaseURL == "" {
		cfg.BaseURL = defaultBaseURL
	}
	return &EmbedClient{cfg: cfg, api: newAPI(cfg.BaseURL, cfg.APIKey, &http.Client{Transport: &statusRecorder{next: http.DefaultTransport}})}
}

// EmbeddingModel is the model name sent to the server.
func (c *EmbedClient) EmbeddingModel() string { return c.cfg.Model }

// Embed returns one vector per text, in the order of the texts.
func (c *EmbedClient) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	info := &attemptInfo{}
	ctx, cancel := context.WithTimeout(withAttemptInfo(ctx, info), embedTimeout)
	defer cancel()
	resp, err := c.api.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{Input: texts, Model: openai.EmbeddingModel(c.cfg.Model)})
	if err != nil {
		msg := transportMessage(err)
		if info.status >= 300 {
			msg = describe(info.status, parseErrorBody(info.body).Message)
		}
		return nil, fmt.Errorf("embedding server at %s: %s", SafeURL(c.cfg.BaseURL), secret.Message(msg, c.cfg.APIKey))
	}
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) {
			return nil, fmt.Errorf("embedding server at %s: an answer for text %d of %d", SafeURL(c.cfg.BaseURL), d.Index, len(texts))
		}
		out[d.Index] = d.Embedding
	}
	for i, v := range out {
		if len(v) == 0 {
			return nil, fmt.Errorf("embedding server at %s: no vector for text %d of %d", SafeURL(c.cfg.BaseURL), i, len(texts))
		}
	}
	return out, nil
}
