package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// funcTool is a Tool made of a function, for tests.
type funcTool struct {
	name   string
	schema Schema
	call   func(ctx context.Context, args map[string]any) (string, error)
}

func (f *funcTool) Name() string        { return f.name }
func (f *funcTool) Description() string { return "A test tool." }
func (f *funcTool) Schema() Schema      { return f.schema }
func (f *funcTool) Call(ctx context.Context, args map[string]any) (string, error) {
	return f.call(ctx, args)
}

// echoTool answers with its "text" argument.
func echoTool() *funcTool {
	return &funcTool{
		name:   "echo",
		schema: Schema{Args: []Arg{{Name: "text", Type: "string", Required: true}}, Primary: "text"},
		call: func(_ context.Context, args map[string]any) (string, error) {
			return args["text"].(string), nil
		},
	}
}

func TestRegistryRegister(t *testing.T) {
	r, err := NewRegistry(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Register(echoTool()); err == nil || !strings.Contains(err.Error(), `"echo" is already registered`) {
		t.Errorf("registering a taken name: err = %v", err)
	}
	if err := r.Register(&funcTool{}); err == nil {
		t.Error("registering a nameless tool succeeded")
	}
	if _, err := NewRegistry(echoTool(), echoTool()); err == nil {
		t.Error("NewRegistry with a duplicate succeeded")
	}
	var zero Registry
	if err := zero.Register(echoTool()); err != nil {
		t.Errorf("the zero Registry cannot register: %v", err)
	}
}

func TestRegistryImplementsTheParserView(t *testing.T) {
	r := Catalog()
	if got, want := strings.Join(r.ToolNames(), ","), "calculator,http_request,shell,web_search"; got != want {
		t.Errorf("ToolNames = %s, want %s", got, want)
	}
	args, primary := r.ToolArgs("http_request")
	if strings.Join(args, ",") != "url,method,headers,body" || primary != "url" {
		t.Errorf("ToolArgs(http_request) = %v, %q", args, primary)
	}
	if args, primary := r.ToolArgs("nope"); args != nil || primary != "" {
		t.Errorf("ToolArgs(nope) = %v, %q", args, primary)
	}
}

func TestRegistryCall(t *testing.T) {
	slowIgnoringContext := &funcTool{
		name: "stubborn",
		call: func(context.Context, map[string]any) (string, error) {
			time.Sleep(2 * time.Second)
			return "too late", nil
		},
	}
	slowHonouringContext := &funcTool{
		name: "polite",
		call: func(ctx context.Context, _ map[string]any) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		},
	}
	panicking := &funcTool{
		name: "panicky",
		call: func(context.Context, map[string]any) (string, error) { panic("boom") },
	}
	failing := &funcTool{
		name: "failing",
		call: func(context.Context, map[string]any) (string, error) { return "", errors.New("failing: it broke") },
	}
	r, err := NewRegistry(echoTool(), slowIgnoringContext, slowHonouringContext, panicking, failing)
	if err != nil {
		t.Fatal(err)
	}
	r.SetLimits(Limits{Timeout: 100 * time.Millisecond, MaxObservation: 10})

	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		wantErr string
		is      error
	}{
		{name: "a call returns the observation", tool: "echo", args: map[string]any{"text": "hi"}, want: "hi"},
		{name: "a long observation is truncated", tool: "echo", args: map[string]any{"text": "0123456789abcdef"}, want: "0123456789\n[truncated: 6 bytes omitted]"},
		{name: "an unknown tool lists the available ones", tool: "nope", wantErr: `unknown tool "nope"; available tools: echo, failing, panicky, polite, stubborn`, is: ErrUnknownTool},
		{name: "bad arguments name the expected ones", tool: "echo", args: map[string]any{"txt": "hi"}, wantErr: `echo: unknown argument "txt"; expected {"text": string}`, is: ErrInvalidArgs},
		{name: "a tool honouring its context times out", tool: "polite", wantErr: "polite: tool timed out after 100ms; try a smaller request", is: ErrTimeout},
		{name: "a tool ignoring its context still times out", tool: "stubborn", wantErr: "stubborn: tool timed out after 100ms", is: ErrTimeout},
		{name: "a panic becomes an error", tool: "panicky", wantErr: "panicky: the tool failed unexpectedly: boom"},
		{name: "a tool error is returned as is", tool: "failing", wantErr: "failing: it broke"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got, err := r.Call(context.Background(), tt.tool, tt.args)
			if elapsed := time.Since(start); elapsed > time.Second {
				t.Errorf("Call took %s", elapsed)
			}
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("Call = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("Call error = %v, want prefix %q", err, tt.wantErr)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
		})
	}
}

// TestCallWholeKeepsTheWholeObservation checks that CallWhole returns what
// Call would cut, and holds the call to the same checks and timeout.
func TestCallWholeKeepsTheWholeObservation(t *testing.T) {
	r, err := NewRegistry(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	r.SetLimits(Limits{Timeout: 5 * time.Second, MaxObservation: 10})
	long := "0123456789abcdef"
	if got, err := r.CallWhole(context.Background(), "echo", map[string]any{"text": long}); err != nil || got != long {
		t.Errorf("CallWhole = %q, %v; want %q", got, err, long)
	}
	if _, err := r.CallWhole(context.Background(), "echo", map[string]any{"txt": long}); !errors.Is(err, ErrInvalidArgs) {
		t.Errorf("CallWhole with a wrong argument: error %v, want ErrInvalidArgs", err)
	}
}

func TestRegistryCallHonoursCancellation(t *testing.T) {
	started := make(chan struct{})
	waiting := &funcTool{
		name: "waiting",
		call: func(ctx context.Context, _ map[string]any) (string, error) {
			close(started)
			<-ctx.Done()
			return "", ctx.Err()
		},
	}
	r, err := NewRegistry(waiting)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err = r.Call(ctx, "waiting", nil)
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("Call error = %v, want context.Canceled and no timeout", err)
	}
}

func TestRegistryLookup(t *testing.T) {
	r, err := NewRegistry(echoTool())
	if err != nil {
		t.Fatal(err)
	}
	if tool, err := r.Lookup("echo"); err != nil || tool.Name() != "echo" {
		t.Errorf("Lookup(echo) = %v, %v", tool, err)
	}
	if _, err := r.Lookup("ehco"); !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "available tools: echo") {
		t.Errorf("Lookup(ehco) error = %v", err)
	}
}

func TestRegistryLimitsDefault(t *testing.T) {
	var r Registry
	if got := r.Limits(); got.Timeout != 30*time.Second || got.MaxObservation != 8<<10 {
		t.Errorf("default limits = %+v", got)
	}
}

func TestTimeoutErrorCarriesTheLimit(t *testing.T) {
	slow := &funcTool{name: "slow", call: func(ctx context.Context, _ map[string]any) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}}
	reg, err := NewRegistry(slow)
	if err != nil {
		t.Fatal(err)
	}
	reg.SetLimits(Limits{Timeout: 50 * time.Millisecond})
	_, err = reg.Call(context.Background(), "slow", nil)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Limit != 50*time.Millisecond || te.Tool != "slow" || !errors.Is(err, ErrTimeout) {
		t.Fatalf("error = %v, want a *TimeoutError of slow after 50ms", err)
	}
}

// named is a tool of a given name.
type named string

func (n named) Name() string      { return string(n) }
func (named) Description() string { return "A tool." }
func (named) Schema() Schema      { return Schema{} }
func (named) Call(context.Context, map[string]any) (string, error) {
	return "", nil
}

func TestRegisterRefusesAnswerNames(t *testing.T) {
	tests := []struct {
		name    string
		refused bool
	}{
		{"Finish", true},
		{"final_answer", true},
		{"Final Answer", true},
		{"final-answer", true},
		{"FinalAnswer", true},
		{"Respond", true},
		{"answer", true},
		{"_reply_", true},
		{"最终答案", true},
		{"finish_task", false},
		{"answer_question", false},
		{"server_finish", false},
		{"calculator", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewRegistry(named(tt.name))
			if refused := errors.Is(err, ErrAnswerName); refused != tt.refused {
				t.Errorf("refused = %v (%v), want %v", refused, err, tt.refused)
			}
			if tt.refused && !strings.Contains(err.Error(), "give the tool another name") {
				t.Errorf("the error does not say what to do: %v", err)
			}
		})
	}
}
