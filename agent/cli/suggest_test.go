package cli

import (
	"strings"
	"testing"
)

// TestNamesTypedGetSuggestions mistypes what people type by name: each
// error says what was meant, and what there is.
func TestNamesTypedGetSuggestions(t *testing.T) {
	config := writeFile(t, "config.yaml", "modle: qwen2.5:7b\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a provider", []string{"--provider", "olama", "hi"}, `unknown provider "olama"; did you mean ollama? The providers are ollama, openai,`},
		{"a provider of models", []string{"models", "--provider", "opnai"}, `did you mean openai?`},
		{"a language", []string{"--lang", "fr", "hi"}, `unknown language "fr"; the languages are en and zh`},
		{"a built-in prompt", []string{"--prompt", "compcat", "hi"}, `unknown prompt "compcat"; did you mean compact? The prompts are full and compact`},
		{"a built-in prompt of eval", []string{"eval", "--prompt", "ful", "set.jsonl"}, `did you mean full?`},
		{"a tool", []string{"tool", "calculatr", "2+2"}, `unknown tool "calculatr"; did you mean calculator? The tools are calculator, http_request and web_search`},
		{"a protocol", []string{"--protocol", "nativ", "hi"}, `did you mean native?`},
		{"a setting in the config file", []string{"--config", config, "hi"}, `unknown setting "modle"; did you mean model? (react-agent settings lists them all)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := args(tt.args...).run(t)
			if got.code != exitUsage || !strings.Contains(got.stderr, tt.want) {
				t.Fatalf("want exit 2 and %q\n%s", tt.want, got)
			}
		})
	}
	t.Run("the config file's error does not list every setting", func(t *testing.T) {
		t.Parallel()
		if got := args("--config", config, "hi").run(t); strings.Contains(got.stderr, "max-observation") {
			t.Errorf("the error lists the settings:\n%s", got)
		}
	})
}

func TestNearest(t *testing.T) {
	choices := []string{"ollama", "openai", "llamacpp", "llamafile", "vllm", "sglang"}
	tests := []struct{ word, want string }{
		{"olama", "ollama"},
		{"OpenAI", "openai"},
		{"opnai", "openai"},
		{"llamacp", "llamacpp"},
		{"vlm", "vllm"},
		{"llama", "ollama"},
		{"gpt", ""}, // near to none
		{"xy", ""},  // too short for two slips
		{"ollama", "ollama"},
	}
	for _, tt := range tests {
		if got := nearest(tt.word, choices); got != tt.want {
			t.Errorf("nearest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if got := nearest("cat", []string{"bat", "hat"}); got != "" {
		t.Errorf("a word as near to two choices is taken for %q", got)
	}
}

func TestEditDistanceCountsASwapAsOne(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"chta", "chat", 1}, {"tols", "tools", 1}, {"logs", "logs", 0}, {"", "ask", 3}, {"modle", "model", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
