package agent

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// rawBodies is an HTTP transport that keeps the body of every request, as
// it went out, byte for byte.
type rawBodies struct {
	mu     sync.Mutex
	bodies []string
}

func (r *rawBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		r.mu.Lock()
		r.bodies = append(r.bodies, req.Method+" "+req.URL.Path+"\n"+string(b))
		r.mu.Unlock()
	}
	return http.DefaultTransport.RoundTrip(req)
}

// requestsOf runs the two-step script on a fake server of provider and
// returns the bodies of the requests the run sent.
func requestsOf(t *testing.T, provider string, opts ...Option) []string {
	t.Helper()
	var srv *modeltest.Server
	base := ""
	switch provider {
	case "ollama":
		srv = modeltest.NewOllama(twoSteps(t), modeltest.ContextSize(32768))
		base = srv.URL
	case "openai":
		srv = modeltest.NewOpenAI(twoSteps(t))
		base = srv.URL + "/v1"
	}
	defer srv.Close()
	rec := &rawBodies{}
	m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: base, Model: "m", HTTPClient: &http.Client{Transport: rec}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(m, registry(t), opts...).Run(context.Background(), "What is 17 + 25?"); err != nil {
		t.Fatal(err)
	}
	return rec.bodies
}
