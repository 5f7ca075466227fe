package realserver_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/agent/constrain"
	"github.com/react-agent/react-agent/agent/modeltest/gguf"
	"github.com/react-agent/react-agent/agent/modeltest/realserver"
	"github.com/react-agent/react-agent/tools"
)

// oldTrigger is the lazy grammar's trigger pattern before issue 29: it
// starts with [\s\S]*?, and llama.cpp matches it with std::regex_match
// over the whole reply at every token, so its cost grows with the reply
// (and a long enough reply overflows the stack).
const oldTrigger = `^(?:\s*<think>[\s\S]*?</think>)?(?!\s*<think>)(?:[\s\S]*?\n)?(Action:)[\s\S]*$`

// completion asks the server for n tokens of reply to a short prompt,
// with the fields given, and returns the server's own measure of the
// generation: the tokens it predicted and their time.
func completion(b *testing.B, url string, n int, fields map[string]any) (tokens int, ms float64) {
	b.Helper()
	req := map[string]any{"prompt": "Question: what now?\n", "n_predict": n, "cache_prompt": false}
	for k, v := range fields {
		req[k] = v
	}
	body, _ := json.Marshal(req)
	resp, err := http.Post(url+"/completion", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Content  string `json:"content"`
		StopType string `json:"stop_type"`
		Timings  struct {
			PredictedN  int     `json:"predicted_n"`
			PredictedMS float64 `json:"predicted_ms"`
		} `json:"timings"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("the server answered %s: %v", resp.Status, err)
	}
	if out.StopType != "limit" {
		b.Fatalf("the reply stopped early (%s) after %d tokens: %.200q", out.StopType, out.Timings.PredictedN, out.Content)
	}
	return out.Timings.PredictedN, out.Timings.PredictedMS
}

// measure runs one completion an iteration and reports the server's
// tokens per second over them all.
func measure(b *testing.B, url string, n int, fields map[string]any) {
	tokens, ms := 0, 0.0
	for b.Loop() {
		t, m := completion(b, url, n, fields)
		tokens += t
		ms += m
	}
	b.ReportMetric(float64(tokens)/(ms/1000), "tokens/s")
}

// builtinGrammar returns the grammar agent/constrain writes for the
// built-in tools: of the whole reply, free but for a line that starts
// with "Action:", sent with no trigger.
func builtinGrammar(b *testing.B) string {
	reg, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	return constrain.For(reg).Step().Grammar
}

// lazy returns the request fields of a lazy grammar started by trigger,
// as agent/constrain sent it before issue 29.
func lazy(b *testing.B, trigger string) map[string]any {
	return map[string]any{"grammar": builtinGrammar(b), "grammar_lazy": true,
		"grammar_triggers": []map[string]any{{"type": 3, "value": trigger}}}
}

// whole returns the request fields of the grammar agent/constrain sends
// now.
func whole(b *testing.B) map[string]any { return map[string]any{"grammar": builtinGrammar(b)} }

// BenchmarkLlamaServerGrammar measures what the grammar of the built-in
// tools costs a real llama-server (CPU, one thread) generating with a
// 32,000-token vocabulary, in the server's own tokens per second: with no
// grammar; with the grammar of the whole reply over a reply that never
// writes "Action:", where it binds nothing (before issue 29, the lazy
// grammar not yet triggered); and with the grammar binding from the first
// token (its root the action, as a reply is once a line starts with
// "Action:"): the model, held to it, writes "Action:", a tool and the
// start of its arguments, then goes on inside the first string.
func BenchmarkLlamaServerGrammar(b *testing.B) {
	// A model that never ends a reply, nor a JSON string.
	never := map[int]float32{gguf.EOS: -40, gguf.ByteToken('"'): -40, gguf.ByteToken('\\'): -40}
	srv := realserver.LlamaServer(b, realserver.Model(gguf.Model{Vocab: 32000, Prior: never, Seed: 1}), realserver.Context(4096))
	const n = 1000
	b.Run("none", func(b *testing.B) { measure(b, srv.URL, n, nil) })
	b.Run("unbound", func(b *testing.B) { measure(b, srv.URL, n, whole(b)) })
	b.Run("active", func(b *testing.B) {
		_, rules, _ := strings.Cut(builtinGrammar(b), "\n")
		measure(b, srv.URL, n, map[string]any{"grammar": "root ::= action\n" + rules})
	})
}

// replyTokens is the length of BenchmarkLlamaServerLongUntriggeredReply's
// replies; a run of every benchmark keeps it short.
var replyTokens = flag.Int("reply-tokens", 2000, "tokens of a reply in BenchmarkLlamaServerLongUntriggeredReply (20000 for the figures of issue 29)")

// BenchmarkLlamaServerLongUntriggeredReply measures a long reply (2,000
// tokens, or as -reply-tokens says) that never writes "Action:", with the
// lazy grammar and trigger pattern of before issue 29, with the grammar of
// the whole reply agent/constrain sends now (no trigger), and without a
// grammar for reference. The
// model writes single bytes: with the old pattern a reply of about 60 KB
// overflows llama-server's stack, so the 20,000 tokens of a real
// vocabulary (80 KB or more) could not be measured at all. The figures of
// the issue:
//
//	go test -run '^$' -bench LongUntriggered -count 6 ./agent/modeltest/realserver -args -reply-tokens 20000
func BenchmarkLlamaServerLongUntriggeredReply(b *testing.B) {
	n := *replyTokens
	srv := realserver.LlamaServer(b, realserver.Model(gguf.Model{Prior: map[int]float32{gguf.EOS: -40}, Seed: 1}), realserver.Context(n+4096))
	b.Run("none", func(b *testing.B) { measure(b, srv.URL, n, nil) })
	b.Run("old-trigger", func(b *testing.B) { measure(b, srv.URL, n, lazy(b, oldTrigger)) })
	b.Run("whole-reply", func(b *testing.B) { measure(b, srv.URL, n, whole(b)) })
}
