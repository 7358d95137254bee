// Package s3test serves the S3 protocol on the loopback interface for
// tests (github.com/johannesboyne/gofakes3 over memory), counting the
// requests it gets and, when asked, making each of them slower, as a
// bucket across a network is.
package s3test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running S3-protocol server with one bucket.
type Server struct {
	srv    *httptest.Server
	bucket string
	// Latency is added to every request.
	Latency time.Duration

	mu       sync.Mutex
	requests map[string]int
}

// Start serves a new bucket until the test ends.
func Start(t testing.TB, bucket string, latency time.Duration) *Server {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	s := &Server{bucket: bucket, Latency: latency, requests: map[string]int{}}
	fake := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog())).Server()
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests[r.Method]++
		s.mu.Unlock()
		if s.Latency > 0 {
			time.Sleep(s.Latency)
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the workspace URL of the bucket under prefix.
func (s *Server) URL(prefix string) string {
	q := url.Values{"endpoint": {s.srv.URL}, "use_path_style": {"true"}, "region": {"us-east-1"}, "anonymous": {"true"}}
	return "s3://" + s.bucket + "/" + prefix + "?" + q.Encode()
}

// Requests are the requests so far, by HTTP method.
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.requests {
		out[k] = v
	}
	return out
}

// Total is the number of requests so far.
func (s *Server) Total() int {
	n := 0
	for _, v := range s.Requests() {
		n += v
	}
	return n
}
