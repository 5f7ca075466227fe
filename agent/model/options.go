package model

import (
	"context"
	"encoding/json"
	"strings"
)

// optionsKey is the context key of a call's Config.Options.
type optionsKey struct{}

// ollamaTopLevel are the fields of Ollama's /api/chat that are not model
// options: everything else goes into its "options" object.
var ollamaTopLevel = map[string]bool{"keep_alive": true, "think": true, "format": true, "truncate": true}

// placeOptions returns where the options of Config.Options go in the
// body of a request to path: into Ollama's "options" object on its own
// /api/chat (but for its few top-level fields), and at the top of the
// body of OpenAI-compatible servers and llama.cpp's /completion.
func placeOptions(path string, options map[string]any) map[string]any {
	if len(options) == 0 || !strings.HasSuffix(path, "/api/chat") {
		return options
	}
	out, nested := map[string]any{}, map[string]any{}
	for k, v := range options {
		if ollamaTopLevel[k] {
			out[k] = v
		} else {
			nested[k] = v
		}
	}
	if len(nested) > 0 {
		out["options"] = nested
	}
	return out
}

// withOptions returns ctx carrying options for the transport to send.
func withOptions(ctx context.Context, options map[string]any) context.Context {
	if len(options) == 0 {
		return ctx
	}
	return context.WithValue(ctx, optionsKey{}, options)
}

// OptionValue reads the value of a model option as written on a command
// line or in a file: JSON when it is a JSON number, boolean, null, array
// or object ("0.9", "true", `["a"]`), else the text itself.
func OptionValue(text string) any {
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		if _, isString := v.(string); !isString {
			return v
		}
	}
	return text
}
