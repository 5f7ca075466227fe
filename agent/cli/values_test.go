package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOptionKeysAreComparedAsJSONDecodersFoldThem passes -o and /set
// parameter keys spelled with the long s (ſ), which Go's JSON decoding
// (vLLM-style Go servers, Ollama's /v1) reads as s: once they passed the
// check of the keys the agent writes, and -o 'meſſages=…' replaced the
// question. They are refused as the plain keys are.
func TestOptionKeysAreComparedAsJSONDecodersFoldThem(t *testing.T) {
	t.Parallel()
	for _, option := range []string{`meſſages=[{"role":"user","content":"hi"}]`, "ſtream=true", "ſyſtem=x", "STREAM=true"} {
		key, _, _ := strings.Cut(option, "=")
		got := args(append(append([]string{"-q", "-o", option}, demo...), "hi")...).run(t)
		if got.code != exitUsage || !strings.Contains(got.stderr, "-o "+key+": the agent writes") {
			t.Errorf("-o %s: want a usage error\n%s", option, got)
		}
	}
	s := ollama(t, "calculator.json")
	got := invocation{args: []string{"chat", "-q", "--base-url", s.URL}, stdin: "/set parameter ſtream false\n"}.run(t)
	if !strings.Contains(got.stderr, "-o ſtream: the agent writes") {
		t.Errorf("/set parameter ſtream: want it refused\n%s", got)
	}
}

// TestValuesOutOfTheirRangeAreRefused gives the temperature, the context
// window and the model's name values that were once kept: --temperature
// NaN made every later run fail with "json: unsupported value: NaN", Inf
// and 1e308 passed, /set parameter num_ctx -5 said it was set while 8192
// was used, and /model took names that models default refuses. Each is
// refused, from every source, with the range it takes.
func TestValuesOutOfTheirRangeAreRefused(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"NaN", "nan", "Inf", "-Inf", "+Inf", "1e308", "-0.5", "2.5"} {
		config := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(config, []byte("temperature: "+v+"\n"), 0o600)
		for how, in := range map[string]invocation{
			"the flag":              args(append(append([]string{"-q", "--temperature", v}, demo...), "hi")...),
			"the environment":       {args: append(append([]string{"-q"}, demo...), "hi"), env: []string{"REACT_AGENT_TEMPERATURE=" + v}},
			"the config file":       args(append(append([]string{"-q", "--config", config}, demo...), "hi")...),
			"settings set":          args("settings", "--config", filepath.Join(t.TempDir(), "c.yaml"), "--", "set", "temperature", v),
			"eval":                  args("eval", "--temperature", v, "--models", "ollama:m", root+"/testdata/eval/arithmetic.jsonl"),
			"chat's /set parameter": {args: append([]string{"chat", "-q"}, demo...), stdin: "/set parameter temperature " + v + "\n"},
		} {
			got := in.run(t)
			if !strings.Contains(got.stderr, "a number from 0 to 2") || how != "chat's /set parameter" && got.code != exitUsage {
				t.Errorf("temperature %s through %s: want a usage error naming the range\n%s", v, how, got)
			}
		}
	}
	for _, v := range []string{"-5", "0"} {
		for how, in := range map[string]invocation{
			"the flag":              args(append(append([]string{"-q", "--num-ctx", v}, demo...), "hi")...),
			"chat's /set parameter": {args: append([]string{"chat", "-q"}, demo...), stdin: "/set parameter num_ctx " + v + "\n"},
		} {
			got := in.run(t)
			if !strings.Contains(got.stderr, "at least 1") || strings.Contains(got.stderr, "from now on") {
				t.Errorf("num-ctx %s through %s: want it refused, naming the bound\n%s", v, how, got)
			}
		}
	}
	for _, name := range []string{"a\x1b[31mred", "../..", "http://evil.example/x", "m?x=1"} {
		got := invocation{args: append([]string{"chat", "-q"}, demo...), stdin: "/model " + name + "\n"}.run(t)
		if !strings.Contains(got.stderr, "is not a model's name") || strings.Contains(got.stderr, "the model is now") {
			t.Errorf("/model %q: want it refused as models default refuses it\n%s", name, got)
		}
		if got := args("models", "default", "--config", filepath.Join(t.TempDir(), "c.yaml"), name).run(t); got.code != exitUsage {
			t.Errorf("models default %q: want a usage error\n%s", name, got)
		}
	}
	if got := args(append(append([]string{"-q", "--temperature", "0.7", "--num-ctx", "2048"}, demo...), "What is 17 * 23 + 4?")...).run(t); got.code != 0 {
		t.Errorf("values in range are refused\n%s", got)
	}
}

// TestChoicesAreCheckedFromEverySource gives --protocol a word it does
// not take from each source. Once only the run checked it: settings set
// kept "nativ" in the config file, and every later run failed. The flag's
// value checks its words now, wherever they come from, and says what was
// meant.
func TestChoicesAreCheckedFromEverySource(t *testing.T) {
	t.Parallel()
	config := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(config, []byte("protocol: nativ\n"), 0o600)
	kept := filepath.Join(t.TempDir(), "c.yaml")
	for how, in := range map[string]invocation{
		"the flag":        args(append(append([]string{"-q", "--protocol", "nativ"}, demo...), "hi")...),
		"the environment": {args: append(append([]string{"-q"}, demo...), "hi"), env: []string{"REACT_AGENT_PROTOCOL=nativ"}},
		"the config file": args(append(append([]string{"-q", "--config", config}, demo...), "hi")...),
		"settings set":    args("settings", "--config", kept, "--", "set", "protocol", "nativ"),
	} {
		got := in.run(t)
		if got.code != exitUsage || !strings.Contains(got.stderr, `unknown protocol "nativ"; did you mean native? The protocols are text, native and auto`) {
			t.Errorf("--protocol nativ through %s: want a usage error that says what was meant\n%s", how, got)
		}
	}
	if b, err := os.ReadFile(kept); err == nil && strings.Contains(string(b), "nativ") {
		t.Errorf("settings set kept the word:\n%s", b)
	}
	got := args(append(append([]string{"-q", "--protocol", "NATIVE", "--max-iterations", "1"}, demo...), "What is 17 * 23 + 4?")...).run(t)
	if strings.Contains(got.stderr, "unknown protocol") {
		t.Errorf("a word in another case is refused\n%s", got)
	}
}
