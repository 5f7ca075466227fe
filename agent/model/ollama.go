package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
)

// ollama is the client of Ollama's own API: /api/chat generates, and
// /api/show says the longest context a model takes. It asks for the
// context window it needs (num_ctx), and asks Ollama neither to cut a
// prompt too long ("truncate": false) nor to drop the start of the window
// when the reply fills it ("shift": false): both are errors, never a
// reply to a question the model did not see whole.
type ollama struct {
	base   string
	hc     *http.Client
	window *window
}

// openOllama opens the Ollama server r resolves to.
func openOllama(ctx context.Context, r Resolved, cfg Config, hc *http.Client) (opened, error) {
	c := &ollama{base: r.URL, hc: hc}
	numCtx := cfg.NumCtx
	if n := intOf(cfg.Options["num_ctx"]); n > 0 {
		numCtx = n // the window asked for as an option is asked for all the same
	}
	c.window = newWindow(numCtx, c.contextLength(ctx, r.Model))
	return opened{client: c, numCtx: c.window.now(), images: true,
		con: fixed(ModeSchema, ollamaAPI, "the JSON object protocol, bound by a JSON schema in Ollama's format")}, nil
}

// ollamaRequest is the body of Ollama's /api/chat, as its own
// api.ChatRequest has it: the fields in the order of their names, and
// the model options, which Ollama takes freely, in Options.
type ollamaRequest struct {
	Format    json.RawMessage `json:"format,omitempty"`
	KeepAlive any             `json:"keep_alive,omitempty"`
	Messages  []ollamaMessage `json:"messages"`
	Model     string          `json:"model"`
	Options   map[string]any  `json:"options"`
	Shift     any             `json:"shift"`
	Stream    bool            `json:"stream"`
	Think     any             `json:"think,omitempty"`
	Tools     []llms.Tool     `json:"tools,omitempty"`
	Truncate  any             `json:"truncate"`
}

// ollamaMessage is a message of an ollamaRequest.
type ollamaMessage struct {
	Content    string           `json:"content"`
	Images     []string         `json:"images,omitempty"`
	Role       string           `json:"role"`
	ToolCallID *string          `json:"tool_call_id,omitempty"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   *string          `json:"tool_name,omitempty"`
}

// ollamaToolCall is a tool call of an earlier reply, as Ollama takes it
// back: its arguments an object.
type ollamaToolCall struct {
	Function struct {
		Arguments json.RawMessage `json:"arguments"`
		Name      string          `json:"name"`
	} `json:"function"`
	ID string `json:"id"`
}

// set puts an option of Config.Options where Ollama takes it: its own
// fields at the top of the request, the model's options in Options.
func (b *ollamaRequest) set(key string, v any) {
	switch key {
	case "keep_alive":
		b.KeepAlive = v
	case "think":
		b.Think = v
	case "truncate":
		b.Truncate = v
	case "shift":
		b.Shift = v
	case "format":
		if raw, err := jsonBody(v); err == nil {
			b.Format = raw
		}
	default:
		b.Options[key] = merged(b.Options[key], v)
	}
}

// body returns the request of k, asking for a window of numCtx tokens,
// and the bound it sets on the reply's tokens (0 for none).
func (c *ollama) body(k *call, numCtx int) ([]byte, int, error) {
	o := k.o
	// The model's options are free (Ollama's own api.ChatRequest has them
	// as a map): the client's go first, and Config.Options over them.
	options := make(map[string]any, 8+len(k.options))
	options["num_ctx"], options["temperature"] = numCtx, o.Temperature
	if n := k.maxTokens(); n > 0 {
		options["num_predict"] = n
	}
	if o.TopP != 0 {
		options["top_p"] = o.TopP
	}
	if o.TopK != 0 {
		options["top_k"] = o.TopK
	}
	if o.Seed != 0 {
		options["seed"] = o.Seed
	}
	if len(o.StopWords) > 0 {
		options["stop"] = o.StopWords
	}
	if o.FrequencyPenalty != 0 {
		options["frequency_penalty"] = o.FrequencyPenalty
	}
	if o.PresencePenalty != 0 {
		options["presence_penalty"] = o.PresencePenalty
	}
	body := ollamaRequest{Model: k.model, Messages: ollamaMessages(k.msgs), Stream: k.stream(), Options: options,
		Truncate: false, Shift: false, Tools: o.Tools}
	if o.JSONMode {
		body.Format = json.RawMessage(`"json"`)
	}
	if k.bind != nil && len(k.bind.Fields.Format) > 0 {
		body.Format = k.bind.Fields.Format
	}
	for key, v := range k.options {
		if key != "num_ctx" {
			// The window, asked for as an option too, is the window's to
			// send: within its bounds, and as it grows.
			body.set(key, v)
		}
	}
	for _, p := range k.drop {
		delete(options, p)
	}
	data, err := jsonBody(body)
	return data, intOf(options["num_predict"]), err
}

// ollamaMessages returns msgs as Ollama takes them: text, images apart,
// tool calls and their results.
func ollamaMessages(msgs []llms.MessageContent) []ollamaMessage {
	out := make([]ollamaMessage, 0, len(msgs))
	for _, m := range msgs {
		msg := ollamaMessage{Role: Role(m.Role), Content: textOf(m)}
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.BinaryContent:
				msg.Images = append(msg.Images, base64.StdEncoding.EncodeToString(p.Data))
			case llms.ToolCall:
				if p.FunctionCall != nil {
					var tc ollamaToolCall
					tc.ID, tc.Function.Name, tc.Function.Arguments = p.ID, p.FunctionCall.Name, argumentsObject(p.FunctionCall.Arguments)
					msg.ToolCalls = append(msg.ToolCalls, tc)
				}
			case llms.ToolCallResponse:
				msg.Content, msg.ToolCallID, msg.ToolName = p.Content, &p.ToolCallID, &p.Name
			}
		}
		out = append(out, msg)
	}
	return out
}

// argumentsObject returns the arguments of a tool call, a JSON object as
// text, as the object Ollama takes; arguments that are no object are
// given as the one argument "input".
func argumentsObject(args string) json.RawMessage {
	trimmed := strings.TrimSpace(args)
	if strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	b, _ := json.Marshal(map[string]string{"input": args})
	return b
}

// ollamaLine is a message of Ollama's /api/chat reply: one line of its
// stream, or the whole reply.
type ollamaLine struct {
	Message struct {
		Content   string `json:"content"`
		Thinking  string `json:"thinking"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Index     int             `json:"index"`
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	Model           string `json:"model"`
	Done            bool   `json:"done"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
}

// openaiShape is what a line of an OpenAI-compatible reply has and
// Ollama's has not: llama-server answers /api/chat so.
type openaiShape struct {
	Object  string          `json:"object"` // "chat.completion.chunk", "chat.completion"
	Choices json.RawMessage `json:"choices"`
}

// notOllama is the error of an Ollama call to the server at base,
// answered as another kind of server answers, as how says; it matches
// ErrWrongServer.
type notOllama struct{ base, how string }

func (e notOllama) Error() string {
	return fmt.Sprintf("the server at %s is not Ollama: it %s Ollama's /api/chat as an OpenAI-compatible server does", Redact(e.base), e.how)
}

func (e notOllama) Is(target error) bool { return target == ErrWrongServer }

// decode reads a line of the reply. Ollama sends a tool call whole, its
// arguments an object. A reply whose first line is of the
// OpenAI-compatible protocol is from a server that is not Ollama.
func (c *ollama) decode(last *ollamaLine) decoder {
	first := true
	return func(data []byte) (piece, error) {
		if first {
			// A reply is in one protocol: its first line tells which.
			first = false
			var o openaiShape
			if json.Unmarshal(data, &o) == nil && (strings.HasPrefix(o.Object, "chat.completion") || len(o.Choices) > 0) {
				return piece{}, notOllama{c.base, "answers"}
			}
		}
		var l ollamaLine
		if err := json.Unmarshal(data, &l); err != nil {
			return piece{}, err
		}
		p := piece{text: l.Message.Content, reasoning: l.Message.Thinking, end: l.Done, stop: l.DoneReason, ollama: true, model: l.Model}
		for _, tc := range l.Message.ToolCalls {
			args := string(tc.Function.Arguments)
			var text string
			switch {
			case args == "" || args == "null":
				args = "{}"
			case json.Unmarshal(tc.Function.Arguments, &text) == nil:
				args = text // arguments as text, not the object Ollama sends
			}
			p.calls = append(p.calls, callPart{whole: true, id: tc.ID, name: tc.Function.Name, args: args})
		}
		if l.Done {
			p.usage = &Usage{PromptTokens: l.PromptEvalCount, CompletionTokens: l.EvalCount}
			*last = l
		}
		return p, nil
	}
}

// generate makes the call k. A prompt that does not fit the window grows
// it before it is sent, when the model takes that much; a prompt that
// cannot fit is refused at once. A prompt the server found too long for
// the window, or a reply that filled it, grows the window too, unless it
// grew for this call already: the call then fails with an error that
// says to make it again at once (RetryWindowGrown).
func (c *ollama) generate(ctx context.Context, k *call) (*Reply, error) {
	probe, _, err := c.body(k, c.window.now())
	if err != nil {
		return nil, err
	}
	g, refused := c.window.fit(c.window.tokensOf(len(probe)), k.maxTokens(), 0)
	if refused != nil {
		return nil, refused
	}
	if g != nil {
		c.grew(k, g)
	}
	resp, small, err := c.attempt(ctx, k)
	if small == nil {
		return resp, err
	}
	if g != nil {
		return nil, small.err // grown for this call already
	}
	if g, refused = c.window.fit(small.prompt, small.reply, small.used); refused != nil {
		if refused.PromptTokens > 0 {
			return nil, refused // the sizes: the prompt cannot fit
		}
		return nil, small.err // what the server found
	}
	c.grew(k, g)
	small.err.Temporary, small.err.Retry = true, RetryWindowGrown
	return nil, small.err
}

// fullSlack is how far short of num_ctx Ollama may stop a reply whose
// next batch would not fit the window.
const fullSlack = 64

// tooSmall is a call the window was too small for: the error to give,
// and the tokens the window must hold.
type tooSmall struct {
	err         *Error
	prompt      tokens
	reply, used int // the bound on the reply, and the window of the call
}

// attempt makes the call k once, with the window asked now. It returns a
// tooSmall when the window was too small for the prompt or the reply.
func (c *ollama) attempt(ctx context.Context, k *call) (*Reply, *tooSmall, error) {
	numCtx := c.window.now()
	body, limit, err := c.body(k, numCtx)
	if err != nil {
		return nil, nil, err
	}
	resp, err := post(ctx, c.hc, c.base+"/api/chat", body, nil)
	var se *statusError
	if errors.As(err, &se) && se.object && se.detail.Type != "" && !se.inStream {
		// Ollama's own API writes its errors as strings: this server
		// is another kind, whatever it refused.
		return nil, nil, &Error{Err: notOllama{c.base, "refuses"}, Detail: se.Error()}
	}
	if err != nil {
		if errors.Is(err, ErrContextOverflow) {
			e := Classify(ctx, err)
			e.ContextTokens = numCtx
			return nil, &tooSmall{err: e, prompt: c.window.tokensOf(len(body)), reply: limit, used: numCtx}, nil
		}
		return nil, nil, err
	}
	var last ollamaLine
	r := newReply(k, limit)
	if err := read(ctx, resp, c.decode(&last), r); err != nil {
		return nil, nil, err
	}
	prompt := last.PromptEvalCount
	switch {
	case last.Done && prompt >= numCtx:
		// Ollama cut the prompt to fit (keeping its first few tokens
		// and its end): the model did not see the instructions and the
		// tools at its start.
		e := &Error{ContextTokens: numCtx, Err: fmt.Errorf("%w: the server cut the prompt to the %d tokens of its context window, "+
			"and said nothing", ErrContextOverflow, numCtx)}
		p := c.window.tokensOf(len(body))
		p.least, p.plausible, p.estimate = max(p.least, prompt), max(p.plausible, prompt), max(p.estimate, prompt)
		return nil, &tooSmall{err: e, prompt: p, reply: limit, used: numCtx}, nil
	case last.Done && last.DoneReason == "length" && (limit <= 0 || last.EvalCount < limit) && prompt+last.EvalCount >= numCtx-fullSlack:
		// Asked not to shift the window, Ollama ends a reply that fills
		// it so: the window is full, not the reply's bound reached.
		e := &Error{PromptTokens: prompt, ContextTokens: numCtx, Err: fmt.Errorf("%w: %d tokens of prompt and %d of reply, in a window of %d",
			ErrContextFull, prompt, last.EvalCount, numCtx)}
		return nil, &tooSmall{err: e, prompt: tokens{prompt, prompt, prompt}, reply: limit, used: numCtx}, nil
	}
	c.window.learn(len(body), prompt)
	return r.result(), nil, nil
}

// grew says that the window grew, and what that costs.
func (c *ollama) grew(k *call, g *growth) {
	if g.already {
		return // the call that grew it said so
	}
	keep := "for its keep-alive (OLLAMA_KEEP_ALIVE where it runs, 5 minutes unless set)"
	if v, ok := k.options["keep_alive"]; ok {
		keep = fmt.Sprintf("for the keep-alive asked (%v)", v)
	}
	what := "the prompt does not fit"
	if g.prompt > g.from {
		what = fmt.Sprintf("the prompt, about %d tokens, does not fit", g.prompt)
	}
	k.say(fmt.Sprintf("%s Ollama's context window of %d tokens: asking for %d; "+
		"Ollama loads the model again for it, with memory for the larger window, and keeps it loaded so %s",
		what, g.from, g.to, keep))
}

// info returns what is known of the window.
func (c *ollama) info(context.Context) Window { return c.window.info() }

// hint says more of an error of the call: how large the window can be,
// whether the model is missing, or the address is no Ollama's, and which
// provider fits a server that answered as another kind does. For a
// missing model it lists the installed ones.
func (c *ollama) hint(ctx context.Context, e *Error) {
	switch {
	case e.Retry == RetryWindowGrown:
		e.Detail, e.Hint = overflowWhat(e)+fmt.Sprintf("; the window asked for is now %d tokens", c.window.now()), ""
	case errors.Is(e, ErrContextOverflow):
		c.window.explain(e)
	case errors.Is(e, ErrWrongServer):
		e.Fitting = fittingOpenAI(ctx, c.hc, c.base)
		e.Fix, e.Hint = SettingProvider, fmt.Sprintf("the %s provider fits it", e.Fitting)
	case errors.Is(e, ErrNoModel):
		infos, err := ollamaInfos(ctx, c.hc, c.base)
		switch {
		case err != nil:
		case len(infos) == 0:
			e.Detail += ", and no model is installed yet"
		default:
			e.Models = names(infos)
			e.Detail += " (installed: " + strings.Join(e.Models, ", ") + ")"
		}
	case e.StatusCode == http.StatusNotFound:
		// Anything else answering 404 at /api/chat is not Ollama's API
		// (a base URL ending in /v1, or another server).
		e.Fix, e.Detail = SettingBaseURL, fmt.Sprintf("the server at %s has no Ollama API at /api/chat", Redact(c.base))
		e.Hint = "check that it is an Ollama server, and that its address does not end in /v1"
	}
}

// fittingOpenAI returns the provider that fits a server at base that
// answers in the OpenAI-compatible protocol: llamacpp for a llama-server,
// which its /props tells, else openai.
func fittingOpenAI(ctx context.Context, hc *http.Client, base string) string {
	if props, err := llamacppProps(ctx, hc, llamaBase(base)); err == nil && props.nCtx() > 0 {
		return llamacppProvider.Name
	}
	return openaiProvider.Name
}

// contextLength asks the server for the longest context the model takes,
// from its /api/show: the "context_length" of its architecture; 0 when it
// does not say.
func (c *ollama) contextLength(ctx context.Context, model string) float64 {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	body, _ := json.Marshal(struct {
		Model string `json:"model"`
	}{model})
	resp, err := post(ctx, c.hc, c.base+"/api/show", body, nil)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var show struct {
		ModelInfo map[string]any `json:"model_info"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&show) != nil {
		return 0
	}
	arch, _ := show.ModelInfo["general.architecture"].(string)
	n, _ := show.ModelInfo[arch+".context_length"].(float64)
	return n
}

// ollamaLoaded asks the Ollama server at base for the context window the
// model is loaded with, from its /api/ps; 0 when it is not loaded or the
// server does not say.
func ollamaLoaded(ctx context.Context, hc *http.Client, base, model string) int {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := get(ctx, hc, base+"/api/ps", "")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name          string  `json:"name"`
			Model         string  `json:"model"`
			ContextLength float64 `json:"context_length"`
		} `json:"models"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&ps) != nil {
		return 0
	}
	for _, m := range ps.Models {
		if m.Name == model || m.Model == model || m.Name == model+":latest" {
			return clampWindow(m.ContextLength)
		}
	}
	return 0
}

// get asks the server for url, with key as a bearer token when not "".
func get(ctx context.Context, hc *http.Client, url, key string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, sendError(ctx, err)
	}
	return resp, nil
}

// intOf returns a number of a request body as an int, within the int32
// range, or 0 for what is no number.
func intOf(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case float64:
		if math.IsNaN(n) {
			return 0
		}
		return int(math.Max(math.Min(n, math.MaxInt32), math.MinInt32))
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}

// jsonBody encodes v as a request body, leaving <, > and & as they are.
func jsonBody(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
