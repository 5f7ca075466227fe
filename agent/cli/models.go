package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
)

// addModelFlags adds the flags that say which model server to talk to
// and, with sampling, which model and how it samples.
func addModelFlags(fs *pflag.FlagSet, m *model.Config, sampling bool) {
	grouped(fs, "Model flags", func() {
		fs.StringVar(&m.Provider, "provider", "ollama", "model provider: "+strings.Join(model.Names(), ", "))
		if sampling {
			ollama, _ := model.Lookup("ollama")
			fs.StringVarP(&m.Model, "model", "m", "", fmt.Sprintf("model name (default: %s on ollama, the provider's own elsewhere)", ollama.DefaultModel))
		}
		fs.StringVar(&m.BaseURL, "base-url", "", "server URL (default: OLLAMA_HOST or http://127.0.0.1:11434 for ollama, OPENAI_BASE_URL for openai); with --provider openai, any OpenAI-compatible server")
		fs.StringVar(&m.APIKey, "api-key", "", "API key (default: OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY); a local server needs none")
		if sampling {
			fs.IntVar(&m.NumCtx, "num-ctx", model.DefaultNumCtx, "context window asked of Ollama and llamafile, in tokens")
			fs.IntVar(&m.MaxTokens, "max-tokens", model.DefaultMaxTokens, "tokens one reply may hold, sent on every call (-1: the server's own bound); a reply cut at it is never an answer")
			fs.Float64Var(&m.Temperature, "temperature", 0, "sampling temperature")
			fs.VarP(&modelOptions{m: m}, "option", "o", "a model option sent as it is with every call, `KEY=VALUE` or KEY VALUE, such as -o repeat_penalty 1.1 (repeatable; a JSON number, boolean, list or object is sent as one)")
		}
		fs.Int64Var(&m.MaxReplyBytes, "max-reply", model.DefaultMaxReplyBytes, "bytes one reply of the model server may hold; a larger one is an error")
		fs.DurationVar(&m.IdleTimeout, "idle-timeout", model.DefaultIdleTimeout, "time the model server may send nothing, before or within a reply")
	})
}

// withProviderEnv returns cfg with the server's URL and the API key taken
// from the provider's own variables (OLLAMA_HOST, OPENAI_API_KEY, …) of
// e's environment where cfg leaves them empty, as the model package would
// take them from the process's.
func (e *env) withProviderEnv(cfg model.Config) model.Config {
	p, ok := model.Lookup(cfg.Provider)
	if !ok {
		return cfg
	}
	if cfg.BaseURL == "" && p.URLEnv != "" {
		cfg.BaseURL = e.getenv(p.URLEnv)
	}
	if cfg.APIKey == "" && p.KeyEnv != "" {
		cfg.APIKey = e.getenv(p.KeyEnv)
	}
	return cfg
}

// modelsFlags are the flags of models.
type modelsFlags struct {
	model model.Config
	json  bool
}

// addModelsFlags adds the flags of models to fs.
func addModelsFlags(fs *pflag.FlagSet) *modelsFlags {
	f := &modelsFlags{}
	addModelFlags(fs, &f.model, false)
	grouped(fs, "Output flags", func() {
		fs.BoolVar(&f.json, "json", false, `print a JSON list, [{"name": …}], rather than a name a line`)
	})
	addConfigFlag(fs)
	return f
}

// modelsCommand is `react-agent models`: the models the provider's server
// serves, one a line.
func modelsCommand() *command {
	return &command{
		name: "models", args: "[flags]", does: "list the models the provider serves",
		synopsis: "models [flags]",
		examples: `  react-agent models
  react-agent models --provider openai --base-url http://127.0.0.1:8080
  react-agent models --json
`,
		define: func(fs *pflag.FlagSet) func(*call) error {
			f := addModelsFlags(fs)
			return func(c *call) error { return runModels(c, f) }
		},
		check:   noArgs("models"),
		signals: signalsCancel,
	}
}

// runModels lists the models.
func runModels(c *call, f *modelsFlags) error {
	ctx, stdout, stderr := c.ctx, c.stdout, c.stderr
	names, err := model.List(ctx, c.withProviderEnv(f.model))
	if errors.Is(err, model.ErrUnknownProvider) {
		return usagef("--provider: %v", err)
	}
	if err != nil {
		return interrupted(ctx, err)
	}
	if f.json {
		type entry struct {
			Name string `json:"name"`
		}
		list := []entry{}
		for _, n := range names {
			list = append(list, entry{n})
		}
		return writeJSON(stdout, list)
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "react-agent: the server serves no model yet")
	}
	for _, n := range names {
		fmt.Fprintln(stdout, c.forTerminal(stdout, n))
	}
	return nil
}
