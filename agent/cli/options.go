package cli

import (
	"fmt"
	"strings"
)

// agentOptions are the keys of a request body that the agent writes
// itself, for each call, and what to use instead of -o to change what
// they hold: sent with -o, they would replace the system prompt and the
// question, the model, the stream the agent reads, the tools or the
// constraint that binds a step, and the run would then fail with errors
// that blame the model.
var agentOptions = map[string]string{
	"model":    "pass --model",
	"messages": "the question, --system and --prompt-file say what the model reads",
	"prompt":   "the question, --system and --prompt-file say what the model reads",
	"system":   "pass --system",
	"stream":   "--stream and --no-stream say whether the terminal shows the reply as it comes",
	"stop":     "pass --stop, or --no-stop",
	"tools":    "--protocol says how the tools are offered",
	// The tool calls of the native protocol.
	"tool_choice": "--protocol says how the tools are offered", "functions": "--protocol says how the tools are offered",
	"function_call": "--protocol says how the tools are offered", "parallel_tool_calls": "--protocol says how the tools are offered",
	// The constraints of a step: Ollama's, OpenAI's, llama.cpp's, vLLM's
	// and SGLang's.
	"format": "--constrain says whether steps are bound", "response_format": "--constrain says whether steps are bound",
	"grammar": "--constrain says whether steps are bound", "grammar_lazy": "--constrain says whether steps are bound",
	"grammar_triggers": "--constrain says whether steps are bound", "json_schema": "--constrain says whether steps are bound",
	"structured_outputs": "--constrain says whether steps are bound", "guided_json": "--constrain says whether steps are bound",
	"guided_grammar": "--constrain says whether steps are bound", "guided_regex": "--constrain says whether steps are bound",
	"guided_choice": "--constrain says whether steps are bound", "structural_tag": "--constrain says whether steps are bound",
	"regex": "--constrain says whether steps are bound", "ebnf": "--constrain says whether steps are bound",
	// Settings that have a flag of their own: one rule for all, so that
	// -o never silently beats the flag, or the flag -o.
	"num_ctx":     "pass --num-ctx",
	"temperature": "pass --temperature",
	// The bound on a reply, as each server names it.
	"max_tokens": "pass --max-tokens", "max_completion_tokens": "pass --max-tokens",
	"num_predict": "pass --max-tokens", "n_predict": "pass --max-tokens",
}

// optionFlags are the model options that have a flag of their own, with
// the flag's name: chat's /set parameter, as Ollama's, sets the flag.
var optionFlags = map[string]string{
	"num_ctx":     "num-ctx",
	"temperature": "temperature",
	"max_tokens":  "max-tokens", "max_completion_tokens": "max-tokens",
	"num_predict": "max-tokens", "n_predict": "max-tokens",
}

// agentOptionError is the error of -o with a key the agent writes itself.
type agentOptionError struct{ key, instead string }

func (e *agentOptionError) Error() string {
	return fmt.Sprintf("-o %s: the agent writes %q itself, for each call; %s", e.key, e.key, e.instead)
}

// checkOption refuses the key of an -o option that the agent writes
// itself, in any case: compared as Go's JSON decoding compares a key with
// a field's name, under Unicode's simple case folding, which reads the
// long s of "ſtream" as an s.
func checkOption(key string) error {
	if instead, ok := foldLookup(agentOptions, key); ok {
		return &agentOptionError{key: key, instead: instead}
	}
	return nil
}

// foldLookup returns the value of the key of m that equals key under
// Unicode's simple case folding.
func foldLookup(m map[string]string, key string) (string, bool) {
	for k, v := range m {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}
