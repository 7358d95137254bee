package fakellm

import (
	"encoding/json"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// EmbeddingDim is the length of the fake embedding vectors.
const EmbeddingDim = 64

// Embedding is the fake model's vector of a text: a hashed bag of its
// lower-cased words (a trailing "s" dropped), normalised, so that texts
// sharing words are near and equal texts are equal.
func Embedding(text string) []float32 {
	vec := make([]float32, EmbeddingDim)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) < 3 {
			continue
		}
		w = strings.TrimSuffix(w, "s")
		h := fnv.New32a()
		h.Write([]byte(w))
		vec[h.Sum32()%EmbeddingDim]++
	}
	var sum float64
	for _, f := range vec {
		sum += float64(f * f)
	}
	if sum > 0 {
		n := float32(1 / math.Sqrt(sum))
		for i := range vec {
			vec[i] *= n
		}
	}
	return vec
}

// FailEmbeddings makes /v1/embeddings answer with this HTTP status (0:
// answer normally).
func (s *Server) FailEmbeddings(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedStatus = status
}

// EmbeddedTexts counts the texts embedded so far, queries included.
func (s *Server) EmbeddedTexts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedded
}

// serveEmbeddings answers an OpenAI embeddings request with Embedding of
// each input.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body struct {
		Input []string `json:"input"`
		Model string   `json:"model"`
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.Unmarshal(raw, &body); err != nil || len(body.Input) == 0 {
		s.violate("embeddings request without a list of inputs: %s", raw)
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"input must be a list of strings","type":"invalid_request_error"}}`)
		return
	}
	s.mu.Lock()
	status := s.embedStatus
	if status == 0 {
		s.embedded += len(body.Input)
	}
	s.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		io.WriteString(w, `{"error":{"message":"embedding failed","type":"server_error"}}`)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Model  string `json:"model"`
		Data   []item `json:"data"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: body.Model}
	for i, text := range body.Input {
		out.Data = append(out.Data, item{Object: "embedding", Index: i, Embedding: Embedding(text)})
		out.Usage.PromptTokens += len(strings.Fields(text))
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	json.NewEncoder(w).Encode(out)
}
