package model

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// ErrCannotConstrain is matched by the error of a run that was asked to
// constrain its replies on a server that cannot.
var ErrCannotConstrain = errors.New("the server cannot constrain the model's replies")

// Mode is how a server binds the model's reply to the registered tools.
type Mode string

// The modes of a constrained call.
const (
	// ModeNone binds nothing: the reply is free text.
	ModeNone Mode = ""
	// ModeGrammar is a GBNF grammar of the whole reply on llama.cpp's
	// /completion endpoint (or its OpenAI-compatible one): the text
	// protocol stays free, but for a line that starts with an "Action:"
	// label, whose tool name and arguments are bound.
	ModeGrammar Mode = "grammar"
	// ModeTag is an xgrammar structural tag in response_format, as vLLM
	// and SGLang take it: the same binding of the text protocol.
	ModeTag Mode = "structural_tag"
	// ModeSchema binds the whole reply to one JSON object of the JSON
	// object protocol, {"thought", "action", "action_input"}: Ollama's
	// format, or response_format json_schema (LM Studio, OpenAI,
	// llama.cpp's OpenAI-compatible endpoint).
	ModeSchema Mode = "json_schema"
)

// Text reports whether replies in mode m speak the text protocol, as
// unconstrained ones do; ModeSchema replies are JSON objects.
func (m Mode) Text() bool { return m != ModeSchema }

// Constraint is what a call binds the model's reply to, in each form a
// server may take (see Request.Constraint); a provider uses the form its
// server takes and ignores the others. Package agent/constrain builds one
// from a tool registry.
type Constraint struct {
	// Grammar is a GBNF grammar of the whole reply, which binds what
	// follows an "Action:" label at the start of a line and leaves the
	// rest, and a reasoning block at the start, free.
	Grammar string `json:"grammar,omitempty"`
	// ThinkingGrammar is Grammar for a reply that starts inside a
	// reasoning block, when the chat template opened one in the prompt:
	// nothing is bound before the block's end.
	ThinkingGrammar string `json:"thinking_grammar,omitempty"`
	// Tag is the structural tag of vLLM and SGLang.
	Tag *StructuralTag `json:"structural_tag,omitempty"`
	// Schema is the JSON schema of the whole reply in the JSON object
	// protocol.
	Schema json.RawMessage `json:"schema,omitempty"`
	// StrictSchema is Schema in the subset of JSON schema that OpenAI's
	// strict mode takes, or empty when the tools' arguments do not fit it.
	StrictSchema json.RawMessage `json:"strict_schema,omitempty"`
	// Name names the schema, for response_format's json_schema.name.
	Name string `json:"name,omitempty"`
}

// StructuralTag is xgrammar's structural tag in the form vLLM and SGLang
// both take: the reply is free until it writes one of Triggers, which must
// then go on as one of Structures: its Begin, JSON fitting its Schema,
// and its End.
type StructuralTag struct {
	Structures []Structure `json:"structures"`
	Triggers   []string    `json:"triggers"`
}

// Structure is one structure of a StructuralTag.
type Structure struct {
	Begin  string          `json:"begin"`
	Schema json.RawMessage `json:"schema"`
	End    string          `json:"end"`
}

// Constrainer is implemented by the models of New, and by recorders and
// replays of them: it says how their server binds replies.
type Constrainer interface {
	// Constraining returns the mode the server binds replies in, ModeNone
	// when it cannot, and how, in a few words for a trace ("a GBNF
	// grammar on llama.cpp's /completion"). It may ask the server what it
	// is, once.
	Constraining(ctx context.Context) (Mode, string)
	// ConstraintRefused returns the server's error when it refused the
	// constraint (HTTP 400); the calls since go without it.
	ConstraintRefused() error
}

// Constraining returns the mode m binds replies in, and how; a model that
// is no Constrainer binds none.
func Constraining(ctx context.Context, m llms.Model) (Mode, string) {
	if c, ok := m.(Constrainer); ok {
		return c.Constraining(ctx)
	}
	return ModeNone, ""
}

// Binding is how a call asked its server to bind the reply: the mode,
// and the request fields that carried it, each in the form its server
// takes.
type Binding struct {
	Mode   Mode          `json:"mode"`
	Fields BindingFields `json:"fields"`
}

// BindingFields are the request fields that bind a reply; a server takes
// one of them.
type BindingFields struct {
	// Format is the JSON schema of the reply in Ollama's "format".
	Format json.RawMessage `json:"format,omitempty"`
	// Grammar is llama.cpp's GBNF grammar.
	Grammar string `json:"grammar,omitempty"`
	// ResponseFormat is OpenAI's response_format: a JSON schema, or the
	// structural tag of vLLM and SGLang.
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

// ResponseFormat is the response_format of OpenAI's chat API and of the
// servers that speak it: "json_object", a "json_schema", or vLLM's and
// SGLang's "structural_tag".
type ResponseFormat struct {
	JSONSchema *JSONSchemaFormat `json:"json_schema,omitempty"`
	Structures []Structure       `json:"structures,omitempty"`
	Triggers   []string          `json:"triggers,omitempty"`
	Type       string            `json:"type"`
}

// JSONSchemaFormat is the json_schema of a ResponseFormat.
type JSONSchemaFormat struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// binding returns how a reply is bound in mode m on a server of kind
// provider, or nil.
func (c *Constraint) binding(m Mode, provider string) *Binding {
	if c == nil {
		return nil
	}
	b := &Binding{Mode: m}
	switch m {
	case ModeGrammar:
		g := c.Grammar
		if provider == llamacppThinking {
			g = c.ThinkingGrammar
		}
		if g == "" {
			return nil
		}
		b.Fields.Grammar = g
	case ModeTag:
		if c.Tag == nil {
			return nil
		}
		b.Fields.ResponseFormat = &ResponseFormat{Type: "structural_tag", Structures: c.Tag.Structures, Triggers: c.Tag.Triggers}
	case ModeSchema:
		if len(c.Schema) == 0 {
			return nil
		}
		if provider == ollamaAPI {
			b.Fields.Format = c.Schema
			return b
		}
		schema, strict := c.Schema, false
		if provider == openaiHosted && len(c.StrictSchema) > 0 {
			schema, strict = c.StrictSchema, true
		}
		name := c.Name
		if name == "" {
			name = "step"
		}
		b.Fields.ResponseFormat = &ResponseFormat{Type: "json_schema", JSONSchema: &JSONSchemaFormat{Name: name, Schema: schema, Strict: strict}}
	default:
		return nil
	}
	return b
}

// Kinds of servers that take a schema in a form of their own: OpenAI's
// own API, which takes the strict form, and Ollama's own API, which takes
// it in "format".
const (
	openaiHosted = "openai-hosted"
	ollamaAPI    = "ollama-api"
)

// constrainer is what a provider knows of binding replies on its server.
type constrainer struct {
	// detect finds the mode of the server, the kind of server it is
	// (which picks the form of a schema) and how it binds, for a trace.
	detect func(ctx context.Context) (mode Mode, kind, how string)

	mu        sync.Mutex
	detected  bool
	mode      Mode
	kind, how string
	// refused is the server's refusal of the constraint, once a call
	// without it went through; trial is a refusal that the next call,
	// made without the constraint, tries out: a call that fails again
	// was not refused for its constraint alone, and the calls after bind
	// their replies again.
	refused, trial error
}

// fixed returns a constrainer of a server known to bind in mode.
func fixed(mode Mode, kind, how string) *constrainer {
	return &constrainer{detect: func(context.Context) (Mode, string, string) { return mode, kind, how }}
}

func (c *constrainer) get(ctx context.Context) (Mode, string, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.detected {
		c.mode, c.kind, c.how = c.detect(ctx)
		c.detected = ctx.Err() == nil // a cancelled look is not an answer
	}
	return c.mode, c.kind, c.how
}

func (c *constrainer) refusal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// refuse notes that the server refused the constraint with err: the next
// call goes without it.
func (c *constrainer) refuse(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.trial = err
}

// tried takes the outcome of a call made without the constraint after
// the server refused it: a call that went through makes the refusal
// stand.
func (c *constrainer) tried(ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trial != nil && ok {
		c.refused = c.trial
	}
	c.trial = nil
}

// dropped reports whether the next call goes without the constraint.
func (c *constrainer) dropped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused != nil || c.trial != nil
}

// Constraining returns the mode the model's server binds replies in.
func (m *served) Constraining(ctx context.Context) (Mode, string) {
	if m.con == nil {
		return ModeNone, ""
	}
	mode, _, how := m.con.get(ctx)
	return mode, how
}

// ConstraintRefused returns the server's error when it refused the
// constraint's fields; the calls since go without them.
func (m *served) ConstraintRefused() error {
	if m.con == nil {
		return nil
	}
	return m.con.refusal()
}

// binding returns how a call bound by c binds its reply on the model's
// server, or nil.
func (m *served) binding(ctx context.Context, c *Constraint) *Binding {
	if m.con == nil || c == nil || m.con.dropped() {
		return nil
	}
	mode, kind, _ := m.con.get(ctx)
	return c.binding(mode, kind)
}

// refusesConstraint reports whether a failed call may have failed for its
// constraint: a 400 that is not about the prompt's size, or a server that
// said it could not make a grammar of it (Ollama's 500 "invalid JSON
// schema in format").
func refusesConstraint(e *Error) bool {
	switch {
	case errors.Is(e, ErrContextOverflow), errors.Is(e, ErrNotUTF8):
		return false
	case errors.Is(e, errSchemaRefused):
		return true
	}
	return e.StatusCode == http.StatusBadRequest
}
