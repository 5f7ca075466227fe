package realserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
)

// OllamaEnv names the environment variable that gives the path of the
// ollama binary.
const OllamaEnv = "REACT_AGENT_OLLAMA"

// OllamaPaths returns where ollama is looked for when OllamaEnv is not
// set: where CI builds it, in CacheDir.
func OllamaPaths() []string {
	return []string{filepath.Join(CacheDir(), "ollama-v"+OllamaVersion, "bin", "ollama")}
}

// Ollama starts an Ollama server for the test, with its own HOME and
// models folder, imports the model with "ollama create" from a Modelfile
// that gives it a ChatML template in Ollama's own template language (with
// tools, or without them with NoTools), one thread and the context
// window, and loads it, so that the first call does not wait for the
// model. The model is served as Server.Model. It skips the test when
// there is no ollama (see the package doc).
func Ollama(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin := find(t, "ollama", OllamaEnv,
		"build it with .ci/run, which runs go install github.com/ollama/ollama@v"+OllamaVersion, OllamaPaths()...)
	c := configure(opts)
	c.model.Template = gguf.ToolsTemplate
	tmpl := ollamaToolsTemplate
	if c.plain {
		c.model.Template, tmpl = gguf.PlainTemplate, ollamaPlainTemplate
	}
	dir := t.TempDir()
	if err := gguf.WriteFile(filepath.Join(dir, "model.gguf"), c.model); err != nil {
		t.Fatal(err)
	}
	modelfile := fmt.Sprintf("FROM ./model.gguf\nTEMPLATE \"\"\"%s\"\"\"\nPARAMETER stop <|im_end|>\nPARAMETER num_ctx %d\nPARAMETER num_thread 1\n", tmpl, c.ctx)
	for _, p := range c.param {
		modelfile += "PARAMETER " + p + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "Modelfile"), []byte(modelfile), 0o644); err != nil {
		t.Fatal(err)
	}
	for attempt := 1; ; attempt++ {
		host := fmt.Sprintf("127.0.0.1:%d", freePort(t))
		env := append([]string{"HOME=" + dir, "TMPDIR=" + dir, "PATH=/usr/bin:/bin", "OLLAMA_HOST=" + host,
			"OLLAMA_MODELS=" + filepath.Join(dir, "models"), "OLLAMA_KEEP_ALIVE=1h", "OLLAMA_NOPRUNE=1",
			"OLLAMA_NUM_PARALLEL=1", "OLLAMA_MAX_LOADED_MODELS=1"}, c.env...)
		cmd := exec.Command(bin, "serve")
		cmd.Dir, cmd.Env = dir, env
		s := start(t, cmd, "ollama")
		s.URL, s.Model, s.Dir = "http://"+host, c.name, dir
		err := s.waitReady(s.URL+"/", time.Minute, "ollama")
		if err != nil && attempt < 3 && !s.Alive() && strings.Contains(s.Log(), "address already in use") {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		create := exec.Command(bin, "create", c.name, "-f", "Modelfile")
		create.Dir, create.Env = dir, env
		if out, err := create.CombinedOutput(); err != nil {
			t.Fatalf("ollama create: %v\n%s\n%s", err, out, tail(s.Log(), 40))
		}
		if err := s.load(); err != nil {
			t.Fatalf("loading the model into ollama: %v\n%s", err, tail(s.Log(), 40))
		}
		return s
	}
}

// load has Ollama load the model, with a generate call that has no prompt.
func (s *Server) load() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	body := fmt.Sprintf(`{"model": %q}`, s.Model)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/generate", bytes.NewReader([]byte(body)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		return fmt.Errorf("%s: %s", resp.Status, b.String())
	}
	return nil
}

// ollamaToolsTemplate is gguf.ToolsTemplate in Ollama's template language,
// as Ollama's library writes Qwen 2.5's: Ollama reads tool calls off the
// model's reply by the <tool_call> that its ToolCalls section starts with.
const ollamaToolsTemplate = `{{- if .Messages }}
{{- if or .System .Tools }}<|im_start|>system
{{- if .System }}
{{ .System }}
{{- end }}
{{- if .Tools }}

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{{- range .Tools }}
{"type": "function", "function": {{ .Function }}}
{{- end }}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>
{{- end }}<|im_end|>
{{ end }}
{{- range $i, $_ := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 -}}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ if .Content }}{{ .Content }}
{{- else if .ToolCalls }}<tool_call>
{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
{{ end }}</tool_call>
{{- end }}{{ if not $last }}<|im_end|>
{{ end }}
{{- else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- if and (ne .Role "assistant") $last }}<|im_start|>assistant
{{ end }}
{{- end }}
{{- else }}
{{- if .System }}<|im_start|>system
{{ .System }}<|im_end|>
{{ end }}{{ if .Prompt }}<|im_start|>user
{{ .Prompt }}<|im_end|>
{{ end }}<|im_start|>assistant
{{ end }}{{ .Response }}{{ if .Response }}<|im_end|>{{ end }}`

// ollamaPlainTemplate is gguf.PlainTemplate in Ollama's template
// language: it knows nothing of tools, so Ollama refuses requests with
// tools ("does not support tools").
const ollamaPlainTemplate = `{{- range .Messages }}<|im_start|>{{ .Role }}
{{ .Content }}<|im_end|>
{{ end }}<|im_start|>assistant
`
