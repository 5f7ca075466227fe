package model_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/model"
)

// benchPiece is the text of one streamed piece of the benchmarks' replies.
var benchPiece = strings.Repeat("abcdefgh", 8)

// streamServer serves a reply of size bytes, in pieces of benchPiece, in
// the wire protocol of provider: the whole stream is written once, so
// that the benchmark measures the client reading it.
func streamServer(provider string, size int) *httptest.Server {
	var b bytes.Buffer
	n := size / len(benchPiece)
	mux := http.NewServeMux()
	switch provider {
	case "ollama":
		for range n {
			fmt.Fprintf(&b, `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":%q},"done":false}`+"\n", benchPiece)
		}
		fmt.Fprintf(&b, `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":%d}`+"\n", n)
		mux.HandleFunc("POST /api/chat", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.Write(b.Bytes())
		})
	case "openai":
		for range n {
			fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":%q},"finish_reason":null}]}`+"\n\n", benchPiece)
		}
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
		fmt.Fprintf(&b, `data: {"id":"c","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d,"total_tokens":%d}}`+"\n\n", n, n+10)
		b.WriteString("data: [DONE]\n\n")
		mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(b.Bytes())
		})
	case "llamacpp":
		for range n {
			fmt.Fprintf(&b, `data: {"index":0,"content":%q,"stop":false,"id_slot":0,"tokens_predicted":1,"tokens_evaluated":10}`+"\n\n", benchPiece)
		}
		fmt.Fprintf(&b, `data: {"index":0,"content":"","stop":true,"stop_type":"eos","truncated":false,"tokens_predicted":%d,"tokens_evaluated":10}`+"\n\n", n)
		mux.HandleFunc("POST /completion", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write(b.Bytes())
		})
		mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"prompt":"<|user|>\nhi\n<|assistant|>\n"}`)
		})
		mux.HandleFunc("GET /props", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"default_generation_settings":{"n_ctx":4096}}`)
		})
	}
	return httptest.NewServer(mux)
}

// BenchmarkStreamRead measures how each client reads a streamed reply of
// 1 and 8 MiB, in pieces of 64 bytes: the time it takes should grow with
// the reply's length, no faster. It reports the allocations of a piece.
//
//	go test -run '^$' -bench StreamRead -count 6 ./agent/model | tee new.txt
func BenchmarkStreamRead(b *testing.B) {
	for _, provider := range []string{"ollama", "openai", "llamacpp"} {
		for _, mib := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/%dMiB", provider, mib), func(b *testing.B) {
				size := mib << 20
				srv := streamServer(provider, size)
				defer srv.Close()
				base := srv.URL
				if provider == "openai" {
					base += "/v1"
				}
				m, err := model.New(context.Background(), model.Config{Provider: provider, BaseURL: base, Model: "m", APIKey: "k",
					MaxTokens: -1, MaxReplyBytes: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "hi")}
				var streamed int
				stream := llms.WithStreamingFunc(func(_ context.Context, p []byte) error { streamed += len(p); return nil })
				pieces := size / len(benchPiece)
				b.SetBytes(int64(pieces * len(benchPiece)))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					streamed = 0
					resp, err := m.GenerateContent(context.Background(), msgs, stream)
					if err != nil {
						b.Fatal(err)
					}
					if got := len(resp.Choices[0].Content); got != pieces*len(benchPiece) || streamed != got {
						b.Fatalf("a reply of %d bytes, %d streamed; want %d", got, streamed, pieces*len(benchPiece))
					}
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N)/float64(pieces), "allocs/piece")
			})
		}
	}
}
