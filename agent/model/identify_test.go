package model_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/modeltest"
)

// TestIdentifyTellsTheServerFromWhatItAnswers points Identify at each
// kind of server, with and without /v1, and at what is none.
func TestIdentifyTellsTheServerFromWhatItAnswers(t *testing.T) {
	t.Parallel()
	ollama := modeltest.NewOllama(nil, modeltest.Model("tiny:latest"))
	defer ollama.Close()
	llama := modeltest.NewLlamaCpp(nil)
	defer llama.Close()
	openai := modeltest.NewOpenAI(nil, modeltest.Model("gpt-4o-mini"))
	defer openai.Close()
	keyed := modeltest.NewOpenAI(nil, modeltest.APIKey("sk-test"))
	defer keyed.Close()
	var asked []string
	vllm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path+" "+r.Header.Get("Authorization"))
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, `{"object": "list", "data": [{"id": "Qwen/Qwen2.5-7B-Instruct", "object": "model", "owned_by": "vllm"}]}`)
	}))
	defer vllm.Close()
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>a web page for every path</html>")
	}))
	defer web.Close()

	tests := []struct {
		name, url        string
		provider, server string
	}{
		{"Ollama by its /api/version", ollama.URL, "ollama", ""},
		{"Ollama's OpenAI-compatible API by its /v1", ollama.URL + "/v1", "openai", model.ServerOllama},
		{"llama-server by its /props", llama.URL, "llamacpp", ""},
		{"llama-server's OpenAI-compatible API by its /v1", llama.URL + "/v1/", "openai", model.ServerLlamaCpp},
		{"vLLM by the owner of its models", strings.TrimPrefix(vllm.URL, "http://"), "vllm", ""},
		{"an OpenAI-compatible server of no known kind", openai.URL, "openai", ""},
		{"an OpenAI-compatible server that asks for a key", keyed.URL, "openai", ""},
	}
	for _, tt := range tests {
		got, err := model.Identify(context.Background(), model.Config{BaseURL: tt.url, APIKey: "sk-never-sent"})
		if err != nil || got.Provider != tt.provider || got.Server != tt.server || got.BaseURL != tt.url {
			t.Errorf("%s: got provider %q, server %q, address %q, error %v; want %q, %q", tt.name, got.Provider, got.Server, got.BaseURL, err, tt.provider, tt.server)
		}
	}
	for _, a := range asked {
		if strings.Contains(a, "Bearer") {
			t.Errorf("the key was sent to find out the server: %s", a)
		}
	}

	_, err := model.Identify(context.Background(), model.Config{BaseURL: web.URL})
	var me *model.Error
	if !errors.As(err, &me) || !errors.Is(err, model.ErrUnknownServer) || me.Fix != model.SettingProvider || !strings.Contains(err.Error(), web.URL) {
		t.Errorf("a web server: want ErrUnknownServer that names it, with Fix SettingProvider; got %v", err)
	}
	_, err = model.Identify(context.Background(), model.Config{BaseURL: "http://127.0.0.1:9"})
	if !errors.As(err, &me) || !errors.Is(err, model.ErrNoServer) || me.Fix != model.SettingBaseURL || !strings.Contains(err.Error(), "nothing answered at http://127.0.0.1:9") {
		t.Errorf("no server: want it said that nothing answered there; got %v", err)
	}
}

// TestIdentifyFindsAServerThatGetsNoKeyFromTheEnvironment has Identify
// find an OpenAI-compatible server, with OPENAI_API_KEY in the
// environment it is given: the Config it returns is Found, and resolves
// to no key, or to the key given for the server.
func TestIdentifyFindsAServerThatGetsNoKeyFromTheEnvironment(t *testing.T) {
	t.Parallel()
	keyed := modeltest.NewOpenAI(nil, modeltest.APIKey("sk-test"))
	defer keyed.Close()
	env := func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-meant-for-openai"}[k] }
	for _, given := range []string{"", "sk-given-for-it"} {
		found, err := model.Identify(context.Background(), model.Config{BaseURL: keyed.URL, APIKey: given, Getenv: env})
		if err != nil || !found.Found || found.Provider != "openai" {
			t.Fatalf("got provider %q, found %v, error %v; want openai, found", found.Provider, found.Found, err)
		}
		r, err := model.Resolve(found)
		if err != nil || r.Key != given {
			t.Errorf("with the key %q given, it resolves to the key %q (%v)", given, r.Key, err)
		}
	}
}

// TestIdentifyStopsWithItsContext asks a server that never answers with
// a context that has ended: no server is found.
func TestIdentifyStopsWithItsContext(t *testing.T) {
	t.Parallel()
	s := modeltest.NewOllama(nil, modeltest.Hang())
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := model.Identify(ctx, model.Config{BaseURL: s.URL}); err == nil {
		t.Errorf("a cancelled look found a server")
	}
}

func TestSameModel(t *testing.T) {
	t.Parallel()
	ollama, _ := model.Lookup("ollama")
	openai, _ := model.Lookup("openai")
	tests := []struct {
		p    model.Provider
		a, b string
		same bool
	}{
		{ollama, "tiny", "tiny:latest", true},
		{ollama, "Tiny:Latest", "tiny", true},
		{ollama, "library/qwen2.5", "qwen2.5:latest", true},
		{ollama, "registry.ollama.ai/library/qwen2.5:7b", "qwen2.5:7b", true},
		{ollama, "me/tiny", "me/tiny:latest", true},
		{ollama, "tiny", "tiny:7b", false},
		{ollama, "me/tiny", "tiny", false},
		{ollama, "host:5000/me/tiny", "host:5000/me/tiny:latest", true},
		{openai, "tiny", "tiny:latest", false},
		{openai, "gpt-4o", "gpt-4o", true},
	}
	for _, tt := range tests {
		if got := tt.p.SameModel(tt.a, tt.b); got != tt.same {
			t.Errorf("%s: SameModel(%q, %q) = %v, want %v", tt.p.Name, tt.a, tt.b, got, tt.same)
		}
	}
}

// TestIdentifyBoundsWhatItReads points Identify at hostile servers: one
// whose answer never ends, one that redirects forever, and one that
// redirects to another server, where a key would be welcome. Each is
// given up on, and no key is sent anywhere.
func TestIdentifyBoundsWhatItReads(t *testing.T) {
	t.Parallel()
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"version": "`)
		chunk := strings.Repeat("v", 64<<10)
		for i := 0; i < 64 && r.Context().Err() == nil; i++ {
			fmt.Fprint(w, chunk)
		}
	}))
	defer endless.Close()
	var keys []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys = append(keys, r.Header.Get("Authorization"))
		http.NotFound(w, r)
	}))
	defer elsewhere.Close()
	loop := httptest.NewServer(nil)
	loop.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loop.URL+r.URL.Path, http.StatusFound)
	})
	defer loop.Close()
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
	}))
	defer away.Close()
	for _, url := range []string{endless.URL, loop.URL} {
		if got, err := model.Identify(context.Background(), model.Config{BaseURL: url, APIKey: "sk-secret"}); err == nil || errors.Is(err, model.ErrUnknownServer) {
			t.Errorf("%s: got provider %q, error %v; want the server given up on", url, got.Provider, err)
		}
	}
	_, err := model.Identify(context.Background(), model.Config{BaseURL: away.URL, APIKey: "sk-secret"})
	if !errors.Is(err, model.ErrRedirected) || !strings.Contains(err.Error(), elsewhere.URL+"/api/version") {
		t.Errorf("a server that redirects to another: want the redirect refused, naming where it led; got %v", err)
	}
	for _, k := range keys {
		if k != "" {
			t.Errorf("a key went with a redirect: %q", k)
		}
	}
}
