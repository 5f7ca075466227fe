package realserver_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// post sends body to the server's path and decodes the JSON answer.
func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return resp.StatusCode, v
}

func get(t *testing.T, url string) map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return v
}

func TestLlamaServerServesTheSpelledModelUnderItsNameAndWindow(t *testing.T) {
	srv := realserver.LlamaServer(t, realserver.Spell("Final Answer: 4"), realserver.Context(2048), realserver.Name("spelled"))
	status, reply := post(t, srv.URL+"/completion", `{"prompt": "Question: what is 2+2?\n", "n_predict": 40}`)
	if status != 200 || reply["content"] != "Final Answer: 4" || reply["stop_type"] != "eos" {
		t.Errorf("the spelled model answered %d %v", status, reply)
	}
	props := get(t, srv.URL+"/props")
	settings, _ := props["default_generation_settings"].(map[string]any)
	caps, _ := props["chat_template_caps"].(map[string]any)
	if settings["n_ctx"] != 2048.0 || props["model_alias"] != "spelled" || caps["supports_tool_calls"] != true {
		t.Errorf("/props: n_ctx %v, alias %v, caps %v", settings["n_ctx"], props["model_alias"], caps)
	}
	if !srv.WaitLog("POST /completion", 5*time.Second) { // logged once the answer is sent
		t.Errorf("the log does not show the call:\n%s", srv.Log())
	}
}

func TestLlamaServerWithATemplateWithoutToolsSaysSo(t *testing.T) {
	srv := realserver.LlamaServer(t, realserver.NoTools())
	caps, _ := get(t, srv.URL+"/props")["chat_template_caps"].(map[string]any)
	if caps["supports_tool_calls"] != false {
		t.Errorf("chat_template_caps: %v", caps)
	}
}

func TestKillEndsAStreamWithoutItsEnd(t *testing.T) {
	endless := gguf.Model{Prior: map[int]float32{gguf.EOS: -40}} // a reply that never ends by itself
	srv := realserver.LlamaServer(t, realserver.Model(endless), realserver.Context(8192))
	resp, err := http.Post(srv.URL+"/completion", "application/json", strings.NewReader(`{"prompt": "Q\n", "stream": true, "n_predict": 8000}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	events, last := 0, ""
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events++
			last = sc.Text()
		}
		if events == 5 {
			srv.Kill()
		}
	}
	if srv.Alive() || events < 5 || strings.Contains(last, `"stop":true`) {
		t.Errorf("after %d events the stream ended with %.200s; alive %v", events, last, srv.Alive())
	}
	if _, err := http.Get(srv.URL + "/health"); err == nil {
		t.Error("the killed server still answers")
	}
}

func TestOllamaServesTheModelWithATemplate(t *testing.T) {
	srv := realserver.Ollama(t, realserver.Spell("Final Answer: 4"))
	tags := get(t, srv.URL+"/api/tags")
	models, _ := tags["models"].([]any)
	if len(models) != 1 || !strings.HasPrefix(models[0].(map[string]any)["name"].(string), srv.Model) {
		t.Errorf("/api/tags: %v", tags)
	}
	status, reply := post(t, srv.URL+"/api/chat", `{"model": "`+srv.Model+`", "stream": false, "messages": [{"role": "user", "content": "What is 2+2?"}]}`)
	msg, _ := reply["message"].(map[string]any)
	if status != 200 || msg["content"] != "Final Answer: 4" {
		t.Errorf("/api/chat answered %d %v", status, reply)
	}
}

func TestOllamaWithATemplateWithoutToolsRefusesTools(t *testing.T) {
	srv := realserver.Ollama(t, realserver.NoTools())
	status, reply := post(t, srv.URL+"/api/chat", `{"model": "`+srv.Model+`", "stream": false,
		"messages": [{"role": "user", "content": "hi"}],
		"tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]}`)
	if status != 400 || !strings.Contains(reply["error"].(string), "does not support tools") {
		t.Errorf("answered %d %v", status, reply)
	}
}

func TestOllamaLogsAPromptItCuts(t *testing.T) {
	srv := realserver.Ollama(t, realserver.Context(512), realserver.Spell("Final Answer: 4"))
	long := strings.Repeat("many words ", 400)
	status, _ := post(t, srv.URL+"/api/chat", `{"model": "`+srv.Model+`", "stream": false, "messages": [{"role": "user", "content": "`+long+`"}]}`)
	if status != 200 || !srv.WaitLog("truncating input prompt", 5*time.Second) {
		t.Errorf("status %d; the log:\n%s", status, srv.Log())
	}
}
