package cli

import (
	"strings"
	"testing"
)

// TestToolOptionsAreUsageErrors checks that tool settings no tool can
// work with exit 2 and name their flag.
func TestToolOptionsAreUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown search engine", []string{"tools", "--search-engine", "bing"}, "--search-engine"},
		{"a negative tool timeout", []string{"tools", "--tool-timeout", "-5s"}, "--tool-timeout"},
		{"searxng without its address", []string{"tools", "--search-engine", "searxng"}, "--search-url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, invocation{args: tt.args})
			if got.code != 2 || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 2 naming %s\n%s", tt.want, got)
			}
		})
	}
}
