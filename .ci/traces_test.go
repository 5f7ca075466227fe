package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"

	"github.com/react-agent/react-agent/agent/modeltest/realserver"
)

// The traces of real runs in a real Jaeger: the built binary asks the toy
// model, served by the real llama-server behind a proxy that keeps the
// headers of every request, with OTEL_EXPORTER_OTLP_ENDPOINT naming
// Jaeger's all-in-one (built by .ci/run into the cache, started here on
// loopback ports of its own), and the test reads each trace back through
// Jaeger's query API.

// jaegerEnv names the environment variable that gives the path of
// Jaeger's all-in-one binary.
const jaegerEnv = "REACT_AGENT_JAEGER"

// jaegerUIEnv, when set, names a folder of Jaeger's web UI, built from
// jaeger-ui: Jaeger serves it, and the test takes the README's picture of
// the trace of ask into the file that screenshotEnv names
// (testdata/traces/screenshot.sh sets both).
const (
	jaegerUIEnv   = "REACT_AGENT_JAEGER_UI"
	screenshotEnv = "REACT_AGENT_TRACES_SCREENSHOT"
)

// jaeger is a Jaeger all-in-one running for a test.
type jaeger struct {
	otlp, otlpGRPC, query string // the OTLP receivers' URLs, over HTTP and gRPC, and the query API's
	log                   bytes.Buffer
}

// loopbackPort returns a loopback port nothing listens on, now.
func loopbackPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startJaeger starts Jaeger's all-in-one with an in-memory store, its
// OTLP/HTTP receiver and its query API on loopback ports of its own. It
// skips t without the binary, and fails it where CI requires the servers.
func startJaeger(t *testing.T) *jaeger {
	t.Helper()
	bin := os.Getenv(jaegerEnv)
	if bin == "" {
		bin = filepath.Join(realserver.CacheDir(), "jaeger-v1.76.0", "jaeger")
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv(realserver.Require) == "1" {
			t.Fatalf("%s is 1, and Jaeger is not at %s: .ci/run builds it, or set %s to the binary", realserver.Require, bin, jaegerEnv)
		}
		t.Skipf("Jaeger is not at %s (.ci/run builds it; or set %s to the binary)", bin, jaegerEnv)
	}
	ui := ""
	if dir := os.Getenv(jaegerUIEnv); dir != "" {
		ui = "\n    ui:\n      assets_path: " + dir
	}
	j := &jaeger{}
	otlp, otlpGRPC, query, grpc := loopbackPort(t), loopbackPort(t), loopbackPort(t), loopbackPort(t)
	config := fmt.Sprintf(`service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
      grpc:
        endpoint: 127.0.0.1:%d
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:%d
    grpc:
      endpoint: 127.0.0.1:%d%s
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`, otlp, otlpGRPC, query, grpc, ui)
	path := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--config", "file:"+path)
	cmd.Stdout, cmd.Stderr = &j.log, &j.log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		if t.Failed() {
			t.Logf("Jaeger's log:\n%s", tail(j.log.String(), 40))
		}
	})
	j.otlp, j.otlpGRPC = fmt.Sprintf("http://127.0.0.1:%d", otlp), fmt.Sprintf("http://127.0.0.1:%d", otlpGRPC)
	j.query = fmt.Sprintf("http://127.0.0.1:%d", query)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(j.query + "/api/services"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return j
			}
		}
		select {
		case <-done:
			t.Fatalf("Jaeger ended before it was ready:\n%s", tail(j.log.String(), 40))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger was not ready within a minute:\n%s", tail(j.log.String(), 40))
		}
	}
}

// jTrace, jSpan and jTag are a trace as Jaeger's query API returns it.
type jTrace struct {
	TraceID string  `json:"traceID"`
	Spans   []jSpan `json:"spans"`
}

type jSpan struct {
	TraceID       string `json:"traceID"`
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		TraceID string `json:"traceID"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []jTag `json:"tags"`
	Logs []struct {
		Fields []jTag `json:"fields"`
	} `json:"logs"`
}

type jTag struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// tag returns the value of the tag key of s, as text, or "".
func (s jSpan) tag(key string) string {
	for _, kv := range s.Tags {
		if kv.Key == key {
			return fmt.Sprint(kv.Value)
		}
	}
	return ""
}

// parent returns the ID of the span s is a child of, or "".
func (s jSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

// traces returns the traces of react-agent Jaeger holds, once there are
// some that done accepts (Jaeger stores what it gets a moment later).
func (j *jaeger) traces(t *testing.T, done func([]jTrace) bool) []jTrace {
	t.Helper()
	var got []jTrace
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		resp, err := http.Get(j.query + "/api/traces?service=react-agent&limit=1000&lookback=1h")
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Data []jTrace `json:"data"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("Jaeger's /api/traces: %v", err)
		}
		got = body.Data
		if done(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger did not have the traces wanted within 30s; it has %d", len(got))
		}
	}
}

// headerProxy is a proxy in front of a model server that keeps the path
// and the traceparent of each request.
type headerProxy struct {
	*httptest.Server
	mu   sync.Mutex
	seen [][2]string // path, traceparent
}

func newHeaderProxy(t *testing.T, target string) *headerProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &headerProxy{}
	rp := httputil.NewSingleHostReverseProxy(u)
	// llama-server closes a kept-alive connection now and then just as it
	// is reused; the proxy would answer that request with a 502.
	rp.Transport = &http.Transport{DisableKeepAlives: true}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.seen = append(p.seen, [2]string{r.URL.Path, r.Header.Get("traceparent")})
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.Close)
	return p
}

// requests returns the traceparent of each request to path, in order.
func (p *headerProxy) requests(path string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, s := range p.seen {
		if s[0] == path {
			out = append(out, s[1])
		}
	}
	return out
}

// traceparent matches a W3C traceparent: version, trace ID, span ID and
// flags.
var traceparent = regexp.MustCompile(`^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$`)

// everything is all a trace says, as text: each span's name, tags and
// logs' fields.
func everything(tr jTrace) string {
	var b strings.Builder
	for _, s := range tr.Spans {
		fmt.Fprintln(&b, s.OperationName)
		for _, kv := range s.Tags {
			fmt.Fprintln(&b, kv.Key, kv.Value)
		}
		for _, l := range s.Logs {
			for _, kv := range l.Fields {
				fmt.Fprintln(&b, kv.Key, kv.Value)
			}
		}
	}
	return b.String()
}

// TestTracesInJaeger runs ask and eval against the toy model on the real
// llama-server with Jaeger as the collector, and reads their traces back
// from Jaeger: one trace a question, invoke_agent over its chat and
// execute_tool spans with the GenAI attributes; each model request
// carried its chat span's traceparent to the server; no prompt text
// without content capture, the redacted text with it; no key, ever.
func TestTracesInJaeger(t *testing.T) {
	j := startJaeger(t)
	srv := toyServer(t, llamaServer, "toy.gguf")
	proxy := newHeaderProxy(t, srv.URL)
	const key, password, token = "sk-test-0123456789abcdefghij", "pw-secret-4567", "ghp_0123456789abcdefghijklmnopqrstuvwxyz"
	base := strings.Replace(proxy.URL, "http://", "http://user:"+password+"@", 1)
	var q heldBack
	for _, h := range heldBackQuestions(t) {
		if h.ID == toyAsked[0] {
			q = h
		}
	}
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + j.otlp}
	asked := []string{"--provider", "llamacpp", "--base-url", base, "--api-key", key, "--prompt", "compact", "-q"}
	seen := map[string]bool{}
	// newTrace returns the one trace Jaeger holds that the test has not
	// seen yet, once it holds a span called root.
	newTrace := func(t *testing.T, root string) jTrace {
		t.Helper()
		var fresh []jTrace
		j.traces(t, func(ts []jTrace) bool {
			fresh = fresh[:0]
			for _, tr := range ts {
				if !seen[tr.TraceID] {
					fresh = append(fresh, tr)
				}
			}
			return len(fresh) == 1 && slices.ContainsFunc(fresh[0].Spans, func(s jSpan) bool { return s.OperationName == root })
		})
		seen[fresh[0].TraceID] = true
		return fresh[0]
	}

	t.Run("ask", func(t *testing.T) {
		o := runWithin(t, invocation{args: append(slices.Clone(asked), q.Question), env: env}, 2*time.Minute)
		if o.code != 0 || o.stderr != "" {
			t.Fatalf("ask failed or warned\n%s", o)
		}
		tr := newTrace(t, "invoke_agent react-agent")
		spans := map[string][]jSpan{}
		for _, s := range tr.Spans {
			name, _, _ := strings.Cut(s.OperationName, " ")
			spans[name] = append(spans[name], s)
		}
		runs, chats, tools := spans["invoke_agent"], spans["chat"], spans["execute_tool"]
		if len(runs) != 1 || len(chats) < 2 || len(tools) < 1 || len(runs)+len(chats)+len(tools) != len(tr.Spans) {
			t.Fatalf("the trace has %d invoke_agent, %d chat and %d execute_tool spans of %d", len(runs), len(chats), len(tools), len(tr.Spans))
		}
		run := runs[0]
		if run.parent() != "" {
			t.Errorf("the run's span has a parent, %s", run.parent())
		}
		for _, s := range append(slices.Clone(chats), tools...) {
			if s.parent() != run.SpanID {
				t.Errorf("%s is not a child of invoke_agent", s.OperationName)
			}
		}
		// No model was named: the command line asks for the one the
		// server serves, toy.
		want := []struct {
			span jSpan
			tags map[string]string // "*" for any value
		}{
			{run, map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "react-agent", "gen_ai.provider.name": "llamacpp",
				"gen_ai.conversation.id": "*", "gen_ai.usage.input_tokens": "*", "gen_ai.usage.output_tokens": "*",
				"react_agent.stop_reason": "final_answer", "span.kind": "internal"}},
			{chats[0], map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "llamacpp", "gen_ai.request.model": "toy",
				"gen_ai.response.model": "toy", "gen_ai.request.max_tokens": "4096", "gen_ai.request.temperature": "0",
				"gen_ai.usage.input_tokens": "*", "gen_ai.usage.output_tokens": "*", "gen_ai.response.finish_reasons": "*",
				"server.address": "127.0.0.1", "server.port": strings.TrimPrefix(proxy.URL, "http://127.0.0.1:"), "span.kind": "client"}},
			{tools[0], map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "calculator",
				"gen_ai.tool.call.id": "call_1", "gen_ai.tool.type": "function"}},
		}
		for _, w := range want {
			for k, v := range w.tags {
				if got := w.span.tag(k); got == "" || v != "*" && got != v {
					t.Errorf("%s: %s = %q, want %q", w.span.OperationName, k, got, v)
				}
			}
		}
		if n := run.tag("gen_ai.usage.input_tokens"); n == "0" {
			t.Errorf("the run counted no tokens")
		}
		// Each chat span's completion carried its traceparent to the
		// server: a chat span that failed may have sent none.
		ids, answered := map[string]bool{}, 0
		for _, c := range chats {
			ids[c.SpanID] = true
			if c.tag("error.type") == "" {
				answered++
			}
		}
		completions := proxy.requests("/completion")
		if len(completions) < answered || len(completions) > len(chats) {
			t.Fatalf("the server got %d completions for %d chat spans, %d of them answered:\n%s", len(completions), len(chats), answered, everything(tr))
		}
		for i, h := range completions {
			m := traceparent.FindStringSubmatch(h)
			if m == nil || m[1] != tr.TraceID || !ids[m[2]] {
				t.Errorf("completion %d carried the traceparent %q; want one of this trace's chat spans, once", i+1, h)
				continue
			}
			delete(ids, m[2])
		}
		text := everything(tr)
		for _, never := range []string{key, password, "Authorization", "Bearer", q.Question, "Answer the question"} {
			if strings.Contains(text, never) {
				t.Errorf("the trace holds %q without content capture:\n%s", never, text)
			}
		}
		if path := os.Getenv(screenshotEnv); path != "" {
			screenshot(t, j, tr.TraceID, path)
		}
	})

	t.Run("ask with content", func(t *testing.T) {
		o := runWithin(t, invocation{args: append(slices.Clone(asked), "--system", "The deploy token is "+token+".", q.Question),
			env: append(slices.Clone(env), "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true")}, 2*time.Minute)
		if o.code != 0 && o.code != 3 {
			t.Fatalf("ask failed\n%s", o)
		}
		text := everything(newTrace(t, "invoke_agent react-agent"))
		for _, never := range []string{key, password, token, "Authorization", "Bearer"} {
			if strings.Contains(text, never) {
				t.Errorf("the trace holds %q:\n%s", never, text)
			}
		}
		for _, want := range []string{"gen_ai.input.messages", "gen_ai.output.messages", q.Question, "The deploy token is REDACTED"} {
			if !strings.Contains(text, want) {
				t.Errorf("the trace lacks %q with content capture:\n%s", want, tail(text, 60))
			}
		}
	})

	// react-agent speaks OTLP/HTTP only: gRPC is refused with a line that
	// says what to set, and Jaeger's gRPC port, named by mistake, is said
	// to be one; the answer comes all the same, and no trace.
	t.Run("gRPC", func(t *testing.T) {
		tests := []struct{ name, protocol, want string }{
			{"asked for", "grpc", "react-agent: not tracing: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: react-agent sends OTLP over HTTP, not gRPC; " +
				"name the collector's OTLP/HTTP port, 4318, as in http://127.0.0.1:4318, and set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or leave it unset\n"},
			{"its port named", "", "react-agent: the traces were not all sent to " + j.otlpGRPC + "/v1/traces: the collector answered in HTTP/2 without TLS, " +
				"as an OTLP/gRPC port (4317) does: name the collector's OTLP/HTTP port, 4318\n"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				o := runWithin(t, invocation{args: append(slices.Clone(asked), q.Question),
					env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + j.otlpGRPC, "OTEL_EXPORTER_OTLP_PROTOCOL=" + tt.protocol}}, 2*time.Minute)
				if o.code != 0 || o.stderr != tt.want {
					t.Errorf("want the answer and the line %q\n%s", tt.want, o)
				}
			})
		}
	})

	t.Run("eval", func(t *testing.T) {
		set := filepath.Join(t.TempDir(), "set.jsonl")
		var lines []string
		for _, h := range heldBackQuestions(t) {
			if slices.Contains(toyAsked[:2], h.ID) {
				b, _ := json.Marshal(h)
				lines = append(lines, string(b))
			}
		}
		os.WriteFile(set, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
		// eval's --models splits a model from its URL at the last @,
		// which a URL's password breaks: the proxy's URL goes without one.
		o := runWithin(t, invocation{args: []string{"eval", "--models", "llamacpp:toy@" + proxy.URL, "--api-key", key, "--prompt", "compact",
			"--protocol", "text,constrained", set}, env: env}, 5*time.Minute)
		if o.code != 0 || strings.Contains(o.stderr, "traces") {
			t.Fatalf("eval failed or warned\n%s", o)
		}
		want := 2 * len(lines)
		var fresh []jTrace
		j.traces(t, func(ts []jTrace) bool {
			fresh = fresh[:0]
			for _, tr := range ts {
				if !seen[tr.TraceID] {
					fresh = append(fresh, tr)
				}
			}
			return len(fresh) == want
		})
		protocols := map[string]int{}
		for _, tr := range fresh {
			var root jSpan
			for _, s := range tr.Spans {
				if s.parent() == "" {
					root = s
				}
			}
			protocols[root.OperationName]++
			if root.tag("react_agent.eval.question") == "" || root.tag("react_agent.eval.model") != "llamacpp:toy" {
				t.Errorf("the run's root %s says %v", root.OperationName, root.Tags)
			}
			runs := 0
			for _, s := range tr.Spans {
				if strings.HasPrefix(s.OperationName, "invoke_agent") && s.parent() == root.SpanID {
					runs++
				}
			}
			if runs != 1 {
				t.Errorf("the trace of %s has %d invoke_agent spans under its root, want 1", root.OperationName, runs)
			}
			if text := everything(tr); strings.Contains(text, key) || strings.Contains(text, password) {
				t.Errorf("an eval trace holds the key or the password")
			}
		}
		if protocols["eval text"] != len(lines) || protocols["eval constrained"] != len(lines) {
			t.Errorf("the eval traces' roots are %v, want each protocol once a question", protocols)
		}
	})
}

// screenshot takes the README's picture of the trace in Jaeger's UI with
// headless Chromium, into path: the waterfall, with the last chat span
// opened on its attributes. Chromium is driven through its DevTools
// protocol, on a loopback port, to open the span as a person would.
func screenshot(t *testing.T, j *jaeger, traceID, path string) {
	t.Helper()
	port := loopbackPort(t)
	page := j.query + "/trace/" + traceID + "?uiEmbed=v0&uiTimelineHideMinimap=1"
	cmd := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+t.TempDir(), fmt.Sprintf("--remote-debugging-port=%d", port), "--remote-allow-origins=http://127.0.0.1", page)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	var ws string
	for deadline := time.Now().Add(time.Minute); ws == ""; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("chromium's DevTools did not answer:\n%s", log.String())
		}
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/json/list", port))
		if err != nil {
			continue
		}
		var targets []struct{ Type, WebSocketDebuggerURL string }
		json.NewDecoder(resp.Body).Decode(&targets)
		resp.Body.Close()
		for _, tg := range targets {
			if tg.Type == "page" {
				ws = tg.WebSocketDebuggerURL
			}
		}
	}
	conn, err := websocket.Dial(ws, "", "http://127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id := 0
	call := func(method string, params map[string]any) json.RawMessage {
		id++
		if err := websocket.JSON.Send(conn, map[string]any{"id": id, "method": method, "params": params}); err != nil {
			t.Fatal(err)
		}
		for {
			var msg struct {
				ID     int             `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := websocket.JSON.Receive(conn, &msg); err != nil {
				t.Fatal(err)
			}
			if msg.ID == id {
				if msg.Error != nil {
					t.Fatalf("%s: %s", method, msg.Error)
				}
				return msg.Result
			}
		}
	}
	eval := func(js string) string {
		var r struct {
			Result struct{ Value any } `json:"result"`
		}
		json.Unmarshal(call("Runtime.evaluate", map[string]any{"expression": js, "returnByValue": true}), &r)
		return fmt.Sprint(r.Result.Value)
	}
	call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 880, "deviceScaleFactor": 1, "mobile": false})
	// The last chat span's row, once the trace is drawn: opened, its
	// attributes shown below the rows of the others.
	const row = `[...document.querySelectorAll(".span-name")].findLast(e => e.textContent.includes("chat"))`
	for deadline := time.Now().Add(30 * time.Second); eval(row+` ? "yes" : "no"`) != "yes"; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Jaeger's UI did not draw the trace within 30s:\n%s", eval("document.body.innerText"))
		}
	}
	eval(row + ".click()")
	time.Sleep(time.Second)
	eval(`[...document.querySelectorAll(".AccordianKeyValues--header")].forEach(e => { if (e.textContent.startsWith("Tags")) e.click() })`)
	time.Sleep(time.Second)
	// The table of attributes scrolls: to its end, where the response's
	// model, finish reasons and tokens are, past the stop sequences.
	eval(`document.querySelectorAll(".KeyValueTable").forEach(e => { e.scrollTop = e.scrollHeight })`)
	time.Sleep(500 * time.Millisecond)
	var shot struct{ Data []byte }
	json.Unmarshal(call("Page.captureScreenshot", map[string]any{"format": "png",
		"clip": map[string]any{"x": 0, "y": 0, "width": 1200, "height": 820, "scale": 1}}), &shot)
	if len(shot.Data) == 0 {
		t.Fatal("chromium took no screenshot")
	}
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the trace %s in Jaeger's UI is in %s", traceID, path)
}
