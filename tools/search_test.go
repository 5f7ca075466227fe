package tools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture reads a file from testdata/tools.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "tools", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// searchServer answers every request with status and body, after checking
// that the query reached it.
func searchServer(t *testing.T, wantQuery map[string]string, status int, ctype string, body []byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range wantQuery {
			if got := r.URL.Query().Get(k); got != v {
				t.Errorf("request %s: %s = %q, want %q", r.URL, k, got, v)
			}
		}
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestWebSearchDuckDuckGo(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		page    string
		args    map[string]any
		want    []string
		notWant []string
		wantErr string
	}{
		{
			name:   "results are numbered with decoded target URLs and snippets",
			status: 200,
			page:   "duckduckgo_results.html",
			args:   map[string]any{"query": "golang context"},
			want: []string{
				"Results for \"golang context\":",
				"1. context package - context - Go Packages\n   https://pkg.go.dev/context\n   Package context defines the Context type, which carries deadlines, cancellation signals,",
				"2. Go Concurrency Patterns: Context - The Go Programming Language\n   https://go.dev/blog/context?utm_source=ddg&x=1\n",
				"3. Go by Example: Context\n   https://gobyexample.com/context\n",
			},
			notWant: []string{"Sponsored", "duckduckgo.com", "rut="},
		},
		{
			name:    "max_results limits the list",
			status:  200,
			page:    "duckduckgo_results.html",
			args:    map[string]any{"query": "golang context", "max_results": 1},
			want:    []string{"1. context package"},
			notWant: []string{"2. "},
		},
		{
			name:   "a no-results page is a plain observation",
			status: 200,
			page:   "duckduckgo_no_results.html",
			args:   map[string]any{"query": "golang context"},
			want:   []string{`no results for "golang context"`},
		},
		{
			name:    "a bot challenge is an error",
			status:  200,
			page:    "duckduckgo_challenge.html",
			args:    map[string]any{"query": "golang context"},
			wantErr: "web_search: DuckDuckGo answered with a bot challenge instead of results",
		},
		{
			name:    "changed markup is an error, not an empty list",
			status:  200,
			page:    "duckduckgo_changed.html",
			args:    map[string]any{"query": "golang context"},
			wantErr: "web_search: DuckDuckGo's page has neither results nor a no-results notice; its markup may have changed",
		},
		{
			name:    "a 202 answer means rate limiting",
			status:  202,
			page:    "duckduckgo_challenge.html",
			args:    map[string]any{"query": "golang context"},
			wantErr: "web_search: DuckDuckGo answered 202 Accepted instead of results: the search engine refused to answer; it is probably rate-limiting",
		},
		{
			name:    "max_results out of range is a bad argument",
			status:  200,
			page:    "duckduckgo_results.html",
			args:    map[string]any{"query": "golang context", "max_results": 0},
			wantErr: `web_search: max_results must be between 1 and 20, got 0; expected {"query": string, "max_results": integer (optional)}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := searchServer(t, map[string]string{"q": "golang context"}, tt.status, "text/html; charset=UTF-8", fixture(t, tt.page))
			s := newWebSearch(Options{SearchURL: srv.URL + "/html/"})
			got, err := s.Call(context.Background(), tt.args)
			checkObservation(t, got, err, tt.wantErr, tt.want, tt.notWant)
		})
	}
}

func TestWebSearchSearXNG(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		maxResponse int64
		body        string
		want        []string
		wantErr     string
	}{
		{
			name:   "results come from the JSON answer",
			status: 200,
			body:   string(fixture(t, "searxng_results.json")),
			want: []string{
				"1. context package - context - Go Packages\n   https://pkg.go.dev/context\n   Package context defines",
				"2. Go Concurrency Patterns: Context\n   https://go.dev/blog/context",
				"3. Go by Example: Context\n   https://gobyexample.com/context",
			},
		},
		{
			name:   "only web links reach the model",
			status: 200,
			body: `{"query":"golang context","results":[` +
				`{"url":"javascript:alert(1)","title":"click"},{"url":"file:///etc/passwd","title":"local"},` +
				`{"url":"data:text/html,hi","title":"data"},{"url":"https://go.dev/blog/context","title":"Go blog"}]}`,
			want: []string{"1. Go blog\n   https://go.dev/blog/context"},
		},
		{name: "an empty result list is a plain observation", status: 200, body: string(fixture(t, "searxng_empty.json")), want: []string{`no results for "golang context"`}},
		{
			name:    "unresponsive engines explain an empty list",
			status:  200,
			body:    `{"query":"golang context","results":[],"unresponsive_engines":[["google","timeout"],["brave","CAPTCHA"]]}`,
			wantErr: "web_search: SearXNG found nothing and these engines did not answer: google, brave",
		},
		{name: "a 403 means the JSON format is off", status: 403, body: "Forbidden", wantErr: "web_search: SearXNG answered 403 Forbidden: its JSON format is probably off"},
		{name: "HTML instead of JSON is an error", status: 200, body: "<html>hello</html>", wantErr: "web_search: SearXNG's answer is not the expected JSON"},
		{name: "JSON without results is an error", status: 200, body: `{"query": "x"}`, wantErr: "web_search: SearXNG's answer has no results field"},
		{name: "an answer longer than the cap is said to be too long", status: 200, maxResponse: 2 << 10,
			body:    `{"query":"golang context","results":[` + strings.Repeat(`{"url":"https://go.dev/blog/context","title":"Go blog"},`, 100) + `{"url":"https://go.dev","title":"Go"}]}`,
			wantErr: "web_search: SearXNG's answer is longer than 2 KiB, the most read of one answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var path string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				path = r.URL.Path
				if q, f := r.URL.Query().Get("q"), r.URL.Query().Get("format"); q != "golang context" || f != "json" {
					t.Errorf("query q=%q format=%q", q, f)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			r, err := Builtins(Options{SearchEngine: EngineSearXNG, SearchURL: srv.URL, MaxResponse: tt.maxResponse})
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Call(context.Background(), "web_search", map[string]any{"query": "golang context"})
			if path != "/search" {
				t.Errorf("requested path %q, want /search", path)
			}
			checkObservation(t, got, err, tt.wantErr, tt.want, nil)
		})
	}
}

func TestWebSearchUnreachableEngine(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	addr := srv.URL
	srv.Close()
	_, err := newWebSearch(Options{SearchURL: addr}).Call(context.Background(), map[string]any{"query": "x"})
	if err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("error = %v, want a connection error", err)
	}
	var se *statusError
	if errors.As(err, &se) {
		t.Errorf("a connection error passed for a status: %v", err)
	}
}

func TestDuckDuckGoTarget(t *testing.T) {
	tests := []struct{ href, want string }{
		{"//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3Dc&rut=abc", "https://example.com/a?b=c"},
		{"https://example.com/direct", "https://example.com/direct"},
		{"https://duckduckgo.com/y.js?ad_domain=x", ""},
		{"//duckduckgo.com/l/?uddg=javascript%3Aalert(1)", ""},
		{"/html/?q=next", ""},
	}
	for _, tt := range tests {
		if got := duckduckgoTarget(tt.href); got != tt.want {
			t.Errorf("duckduckgoTarget(%q) = %q, want %q", tt.href, got, tt.want)
		}
	}
}

func TestParseDuckDuckGoRefusesResultsItCannotRead(t *testing.T) {
	page := `<html><body><div class="result"><h2><span class="title">A title without a link</span></h2></div></body></html>`
	results, err := parseDuckDuckGo(strings.NewReader(page))
	if err == nil || !strings.Contains(err.Error(), "has 1 results but none with a title and link") {
		t.Errorf("parseDuckDuckGo = %v, %v; want a markup error", results, err)
	}
}

// TestWebSearchShowsNoPasswordOfABadSearchURL gives a search URL with a
// password that is no URL Go reads: once the model read the password in
// the error, which quoted the URL.
func TestWebSearchShowsNoPasswordOfABadSearchURL(t *testing.T) {
	for _, engine := range []string{EngineSearXNG, EngineDuckDuckGo} {
		_, err := newWebSearch(Options{SearchEngine: engine, SearchURL: "http://bob:hunter2-secret@127.0.0.1:port"}).Call(context.Background(), map[string]any{"query": "x"})
		if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "bad search URL") {
			t.Errorf("%s: error %v, want a bad URL without its password", engine, err)
		}
	}
}
