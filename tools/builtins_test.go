package tools

import (
	"strings"
	"testing"
	"time"
)

func TestBuiltins(t *testing.T) {
	tests := []struct {
		name       string
		opts       Options
		wantTools  string
		wantLimits Limits
		wantErr    string
	}{
		{
			name:       "the defaults enable everything but shell",
			opts:       Options{},
			wantTools:  "calculator,http_request,web_search",
			wantLimits: Limits{Timeout: 30 * time.Second, MaxObservation: 8 << 10},
		},
		{
			name:       "--allow-shell adds shell",
			opts:       Options{AllowShell: true},
			wantTools:  "calculator,http_request,shell,web_search",
			wantLimits: Limits{Timeout: 30 * time.Second, MaxObservation: 8 << 10},
		},
		{
			name:       "the limits come from the options",
			opts:       Options{ToolTimeout: 5 * time.Second, MaxObservation: 100},
			wantTools:  "calculator,http_request,web_search",
			wantLimits: Limits{Timeout: 5 * time.Second, MaxObservation: 100},
		},
		{
			name:       "searxng with an address is accepted",
			opts:       Options{SearchEngine: EngineSearXNG, SearchURL: "http://localhost:8888"},
			wantTools:  "calculator,http_request,web_search",
			wantLimits: Limits{Timeout: 30 * time.Second, MaxObservation: 8 << 10},
		},
		{name: "an unknown engine names the choices", opts: Options{SearchEngine: "google"}, wantErr: `SearchEngine: unknown search engine "google"; use "duckduckgo" or "searxng"`},
		{name: "searxng needs an address", opts: Options{SearchEngine: EngineSearXNG}, wantErr: "SearchURL: searxng needs the address of your SearXNG instance"},
		{name: "a negative timeout is refused", opts: Options{ToolTimeout: -time.Second}, wantErr: "ToolTimeout: must be positive"},
		{name: "a negative observation cap is refused", opts: Options{MaxObservation: -1}, wantErr: "MaxObservation: must be positive"},
		{name: "a negative response cap is refused", opts: Options{MaxResponse: -1}, wantErr: "MaxResponse: must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Builtins(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(r.ToolNames(), ","); got != tt.wantTools {
				t.Errorf("tools = %s, want %s", got, tt.wantTools)
			}
			if got := r.Limits(); got != tt.wantLimits {
				t.Errorf("limits = %+v, want %+v", got, tt.wantLimits)
			}
		})
	}
}

func TestCatalogDescribesEveryBuiltin(t *testing.T) {
	for _, tool := range Catalog().List() {
		s := tool.Schema()
		if tool.Description() == "" {
			t.Errorf("%s has no description", tool.Name())
		}
		if _, ok := s.arg(s.Primary); !ok {
			t.Errorf("%s: primary %q is not an argument", tool.Name(), s.Primary)
		}
		for _, a := range s.Args {
			if a.Description == "" {
				t.Errorf("%s: argument %q has no description", tool.Name(), a.Name)
			}
		}
	}
}
