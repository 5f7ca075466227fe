package model

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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

// ollamaTopLevel are the fields of Ollama's /api/chat that are not model
// options: the others of Config.Options go into its "options" object.
var ollamaTopLevel = map[string]bool{"keep_alive": true, "think": true, "format": true, "truncate": true, "shift": true}

// body returns the request of k, asking for a window of numCtx tokens,
// and the bound it sets on the reply's tokens (0 for none).
func (c *ollama) body(k *call, numCtx int) ([]byte, int, error) {
	options := map[string]any{"num_ctx": numCtx, "temperature": k.o.Temperature}
	if n := k.maxTokens(); n > 0 {
		options["num_predict"] = n
	}
	sampled := map[string]any{}
	k.sample(sampled)
	for key, v := range sampled {
		options[key] = v
	}
	msgs := make([]map[string]any, 0, len(k.msgs))
	for _, m := range k.msgs {
		msg := map[string]any{"role": roleOf(m.Role), "content": textOf(m)}
		var images []string
		var calls []map[string]any
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.BinaryContent:
				images = append(images, base64.StdEncoding.EncodeToString(p.Data))
			case llms.ToolCall:
				if p.FunctionCall != nil {
					calls = append(calls, map[string]any{"id": p.ID,
						"function": map[string]any{"name": p.FunctionCall.Name, "arguments": argumentsObject(p.FunctionCall.Arguments)}})
				}
			case llms.ToolCallResponse:
				msg["content"], msg["tool_call_id"], msg["tool_name"] = p.Content, p.ToolCallID, p.Name
			}
		}
		if len(images) > 0 {
			msg["images"] = images
		}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		msgs = append(msgs, msg)
	}
	body := map[string]any{"model": k.model, "messages": msgs, "stream": k.stream(), "options": options,
		"truncate": false, "shift": false}
	if len(k.o.Tools) > 0 {
		body["tools"] = k.o.Tools
	}
	if k.o.JSONMode {
		body["format"] = "json"
	}
	if _, ok := k.options["num_ctx"]; ok {
		// The window, asked for as an option too, is the window's to
		// send: within its bounds, and as it grows.
		kk := *k
		kk.options = maps.Clone(k.options)
		delete(kk.options, "num_ctx")
		k = &kk
	}
	data, err := k.finish(body, "options", ollamaTopLevel)
	opts, _ := body["options"].(map[string]any)
	return data, intOf(opts["num_predict"]), err
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

// decode reads a line of the reply. Ollama sends a tool call whole, its
// arguments an object.
func (c *ollama) decode(last *ollamaLine) decoder {
	return func(data []byte) (piece, error) {
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

// generate makes the call k. A prompt that does not fit the window, and a
// reply that fills it, grow the window once, to what they need, when the
// model takes that much; a prompt that cannot fit is refused at once.
func (c *ollama) generate(ctx context.Context, k *call) (*llms.ContentResponse, error) {
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
		return nil, small.err // grown once already
	}
	if g, refused = c.window.fit(small.prompt, small.reply, small.used); refused != nil {
		if refused.PromptTokens > 0 {
			return nil, refused // the sizes: the prompt cannot fit
		}
		return nil, small.err // what the server found
	}
	c.grew(k, g)
	resp, small, err = c.attempt(ctx, k)
	if small != nil {
		return nil, small.err
	}
	return resp, err
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
func (c *ollama) attempt(ctx context.Context, k *call) (*llms.ContentResponse, *tooSmall, error) {
	numCtx := c.window.now()
	body, limit, err := c.body(k, numCtx)
	if err != nil {
		return nil, nil, err
	}
	resp, err := post(ctx, c.hc, c.base+"/api/chat", body, nil)
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
	return r.response(), nil, nil
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
// and whether the model is missing or the address is no Ollama's. For a
// missing model it lists the installed ones.
func (c *ollama) hint(ctx context.Context, e *Error) {
	switch {
	case errors.Is(e, ErrContextOverflow):
		c.window.explain(e)
	case errors.Is(e, ErrNoModel):
		infos, err := ollamaInfos(ctx, c.hc, c.base)
		switch {
		case err != nil:
		case len(infos) == 0:
			e.Hint += "; no model is installed yet"
		default:
			e.Models = names(infos)
			e.Hint += "; installed: " + strings.Join(e.Models, ", ")
		}
	case e.StatusCode == http.StatusNotFound:
		// Anything else answering 404 at /api/chat is not Ollama's API
		// (a base URL ending in /v1, or another server).
		e.Fix, e.Hint = SettingBaseURL, fmt.Sprintf("the server at %s has no Ollama API at /api/chat: check that it is an Ollama server, "+
			"and that its address does not end in /v1", Redact(c.base))
	}
}

// contextLength asks the server for the longest context the model takes,
// from its /api/show: the "context_length" of its architecture; 0 when it
// does not say.
func (c *ollama) contextLength(ctx context.Context, model string) float64 {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	body, _ := json.Marshal(map[string]string{"model": model})
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
