package cli

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// collector is an OTLP/HTTP collector that keeps the spans it is sent.
type collector struct {
	*httptest.Server
	mu    sync.Mutex
	spans []*tracepb.Span
}

func newCollector(t *testing.T) *collector {
	c := &collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not OTLP", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				c.spans = append(c.spans, ss.Spans...)
			}
		}
	}))
	t.Cleanup(c.Close)
	return c
}

// names returns the names of the spans received.
func (c *collector) names() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	for _, s := range c.spans {
		names = append(names, s.Name)
	}
	return names
}

// text is everything the spans received say, attribute by attribute.
func (c *collector) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, s := range c.spans {
		b.WriteString(s.Name + " " + s.Status.GetMessage() + "\n")
		for _, kv := range s.Attributes {
			b.WriteString(kv.Key + "=" + kv.Value.GetStringValue() + "\n")
		}
		for _, e := range s.Events {
			for _, kv := range e.Attributes {
				b.WriteString(e.Name + " " + kv.Key + "=" + kv.Value.GetStringValue() + "\n")
			}
		}
	}
	return b.String()
}

// attr returns the string attribute key of the first span called name.
func (c *collector) attr(name, key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.spans {
		if s.Name == name {
			for _, kv := range s.Attributes {
				if kv.Key == key {
					return kv.Value.GetStringValue()
				}
			}
		}
	}
	return ""
}

const demoQuestion = "What is 17 * 23 + 4?"

// TestAskSendsItsTraceWhereTheSettingsSay runs a question from the demo
// cassette with the collector named each way a run may name it: its
// spans reach it, and the run's span names the log's conversation.
func TestAskSendsItsTraceWhereTheSettingsSay(t *testing.T) {
	c := newCollector(t)
	configHome := t.TempDir()
	os.MkdirAll(filepath.Join(configHome, "react-agent"), 0o700)
	os.WriteFile(filepath.Join(configHome, "react-agent", "config.yaml"), []byte("otlp-endpoint: "+c.URL+"\n"), 0o600)
	tests := []struct {
		name string
		in   invocation
	}{
		{"OTEL_EXPORTER_OTLP_ENDPOINT", invocation{args: append(append([]string{"-q"}, demo...), demoQuestion),
			env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL}}},
		{"--otlp-endpoint over the variable", invocation{args: append(append([]string{"-q", "--otlp-endpoint", c.URL}, demo...), demoQuestion),
			env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1"}}},
		{"the config file", invocation{args: append(append([]string{"-q"}, demo...), demoQuestion),
			env: []string{"XDG_CONFIG_HOME=" + configHome}}},
		{"REACT_AGENT_OTLP_ENDPOINT", invocation{args: append(append([]string{"-q"}, demo...), demoQuestion),
			env: []string{"REACT_AGENT_OTLP_ENDPOINT=" + c.URL}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c.mu.Lock()
			c.spans = nil
			c.mu.Unlock()
			got := tt.in.run(t)
			if got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" || got.stderr != "" {
				t.Fatalf("want the answer alone\n%s", got)
			}
			names := strings.Join(c.names(), ", ")
			for _, want := range []string{"invoke_agent react-agent", "chat", "execute_tool calculator"} {
				if !strings.Contains(names, want) {
					t.Errorf("the collector got the spans %s; want %s among them", names, want)
				}
			}
			if id := c.attr("invoke_agent react-agent", "gen_ai.conversation.id"); len(id) < 8 {
				t.Errorf("the run's conversation is %q, want the log's", id)
			}
		})
	}
}

// TestSpansHoldContentOnlyWhenAsked: the question and the key are in no
// span, unless content is asked for, and then the question is and the
// key still is not.
func TestSpansHoldContentOnlyWhenAsked(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnop0123456789"
	for _, content := range []string{"", "true"} {
		t.Run("content="+content, func(t *testing.T) {
			c := newCollector(t)
			got := invocation{args: append(append([]string{"-q"}, demo...), demoQuestion),
				env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL, "OPENAI_API_KEY=" + key,
					"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=" + content}}.run(t)
			if got.code != 0 {
				t.Fatal(got)
			}
			text := c.text()
			if strings.Contains(text, key) {
				t.Errorf("a span holds the key:\n%s", text)
			}
			if strings.Contains(text, "17 * 23") != (content == "true") {
				t.Errorf("with content %q, the question is in the spans: %v\n%s", content, content != "true", text)
			}
		})
	}
}

// TestACollectorThatIsDownOrSilentCostsARunOneWarning: the answer comes
// all the same, with one line on stderr that says the traces were not
// sent, and the run takes at most about a second more.
func TestACollectorThatIsDownOrSilentCostsARunOneWarning(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	release := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	defer close(release)
	for name, url := range map[string]string{"down": dead, "silent": silent.URL} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			got := invocation{args: append(append([]string{"-q"}, demo...), demoQuestion),
				env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + url}}.run(t)
			took := time.Since(start)
			if got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" {
				t.Fatalf("want the answer\n%s", got)
			}
			lines := strings.Split(strings.TrimSpace(got.stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "react-agent: the traces were not all sent to "+url+"/v1/traces") {
				t.Errorf("want one warning that names the collector\n%s", got)
			}
			if took > 5*time.Second {
				t.Errorf("the run took %s", took)
			}
		})
	}
}

// TestTraceSettingsThatCannotBeUsed: an OpenTelemetry variable that
// cannot be used is said once, and the run goes on untraced; a bad
// --otlp-endpoint is a usage error.
func TestTraceSettingsThatCannotBeUsed(t *testing.T) {
	for protocol, want := range map[string]string{
		"grpc": "react-agent: not tracing: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: react-agent sends OTLP over HTTP, not gRPC; " +
			"name the collector's OTLP/HTTP port, 4318, as in http://127.0.0.1:4318, and set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or leave it unset\n",
		"http/json": "react-agent: not tracing: OTEL_EXPORTER_OTLP_PROTOCOL=\"http/json\": react-agent sends OTLP over HTTP with protobuf; " +
			"set it to http/protobuf or leave it unset\n",
	} {
		got := invocation{args: append(append([]string{"-q"}, demo...), demoQuestion),
			env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL=" + protocol}}.run(t)
		if got.code != 0 || got.stdout != "17 * 23 + 4 = 395\n" || got.stderr != want {
			t.Errorf("%s: want the answer and one line that says what to set\n%s", protocol, got)
		}
	}
	got := args(append(append([]string{"-q", "--otlp-endpoint", "localhost:4318"}, demo...), demoQuestion)...).run(t)
	if got.code != exitUsage || !strings.Contains(got.stderr, "--otlp-endpoint \"localhost:4318\" is not a collector's URL: write it as http://host:4318") {
		t.Errorf("want a usage error\n%s", got)
	}
}

// TestEachQuestionOfAChatIsATraceOfTheConversation: a chat's questions
// are a trace each, their runs' spans naming the same conversation.
func TestEachQuestionOfAChatIsATraceOfTheConversation(t *testing.T) {
	c := newCollector(t)
	s := ollama(t, "calculator.json", modeltest.Repeat())
	got := invocation{args: []string{"chat", "-q"}, stdin: "What is 17 * 23 + 4?\nAnd again?\n",
		env: []string{"OLLAMA_HOST=" + s.URL, "OTEL_EXPORTER_OTLP_ENDPOINT=" + c.URL}}.run(t)
	if got.code != 0 {
		t.Fatal(got)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	traces, conversations := map[string]bool{}, map[string]bool{}
	for _, sp := range c.spans {
		if sp.Name != "invoke_agent react-agent" {
			continue
		}
		traces[string(sp.TraceId)] = true
		for _, kv := range sp.Attributes {
			if kv.Key == "gen_ai.conversation.id" {
				conversations[kv.Value.GetStringValue()] = true
			}
		}
	}
	if len(traces) != 2 || len(conversations) != 1 {
		t.Errorf("the chat's questions are %d traces of %d conversations, want 2 of 1", len(traces), len(conversations))
	}
}
