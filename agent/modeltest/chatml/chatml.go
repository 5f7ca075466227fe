package chatml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/tmc/langchaingo/llms"
)

// A Server is a model server whose rendering of the template Render
// follows.
type Server string

// The servers Render follows, at the versions package realserver runs.
const (
	// LlamaServer is llama.cpp's llama-server with --jinja, rendering the
	// OpenAI-compatible request of the llamacpp model client.
	LlamaServer Server = "llama-server"
	// Ollama is Ollama rendering the /api/chat request of the ollama
	// model client.
	Ollama Server = "ollama"
)

// Servers are the servers Render follows.
var Servers = []Server{LlamaServer, Ollama}

// The template's fixed text around the tool definitions.
const (
	toolsHead = "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>"
	toolsTail = "\n</tools>\n\nFor each function call, return a json object with function name and arguments " +
		"within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>"
)

// A message is a message of the chat as the model clients send it.
type message struct {
	role    string
	content string
	calls   []llms.FunctionCall
}

// messages returns msgs as the model clients send them: the text parts
// joined, the tool calls, a tool result as the content.
func messages(msgs []llms.MessageContent) ([]message, error) {
	out := make([]message, 0, len(msgs))
	for i, m := range msgs {
		msg := message{role: model.Role(m.Role)}
		var text strings.Builder
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				text.WriteString(p.Text)
			case llms.ToolCall:
				if p.FunctionCall != nil {
					msg.calls = append(msg.calls, *p.FunctionCall)
				}
			case llms.ToolCallResponse:
				text.Reset()
				text.WriteString(p.Content)
			default:
				return nil, fmt.Errorf("chatml: message %d holds a %T, which Render does not render", i+1, p)
			}
		}
		msg.content = text.String()
		out = append(out, msg)
	}
	return out, nil
}

// Render returns the prompt server s renders from msgs and tools, ready
// for the assistant's reply: what the model reads.
func Render(s Server, msgs []llms.MessageContent, tools []llms.Tool) (string, error) {
	ms, err := messages(msgs)
	if err != nil {
		return "", err
	}
	switch s {
	case LlamaServer:
		return renderLlama(ms, tools)
	case Ollama:
		return renderOllama(ms, tools)
	}
	return "", fmt.Errorf("chatml: no rendering for the server %q", s)
}

// Call returns a tool call as the template writes it in the history on
// server s, which is what a model served there is taught to reply:
//
//	<tool_call>
//	{"name": "calculator", "arguments": {"expression": "2 + 2"}}
//	</tool_call>
//
// arguments is the call's JSON object, as the agent writes it.
func Call(s Server, name, arguments string) (string, error) {
	args, err := callArguments(s, arguments)
	if err != nil {
		return "", err
	}
	return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>", nil
}

// callArguments returns the arguments of a call as server s writes them.
func callArguments(s Server, arguments string) (string, error) {
	switch s {
	case LlamaServer:
		v, err := parse([]byte(arguments))
		if err != nil {
			return "", fmt.Errorf("chatml: the arguments %q: %w", arguments, err)
		}
		var b strings.Builder
		v.tojson(&b)
		return b.String(), nil
	case Ollama:
		// The ollama client sends arguments that are no JSON object as
		// the one argument "input".
		var args map[string]any
		if err := json.Unmarshal([]byte(arguments), &args); err != nil || args == nil {
			args = map[string]any{"input": arguments}
		}
		b, err := json.Marshal(args)
		return string(b), err
	}
	return "", fmt.Errorf("chatml: no rendering for the server %q", s)
}

// renderLlama renders as gguf.ToolsTemplate does in llama.cpp's Jinja
// engine.
func renderLlama(ms []message, tools []llms.Tool) (string, error) {
	var b strings.Builder
	if len(tools) > 0 {
		b.WriteString("<|im_start|>system\n")
		if len(ms) > 0 && ms[0].role == "system" {
			b.WriteString(ms[0].content)
		} else {
			b.WriteString("You are a helpful assistant.")
		}
		b.WriteString(toolsHead)
		// The tools as the client sends them: Go's JSON, without HTML
		// escaping.
		var sent bytes.Buffer
		enc := json.NewEncoder(&sent)
		enc.SetEscapeHTML(false)
		for _, t := range tools {
			sent.Reset()
			if err := enc.Encode(t); err != nil {
				return "", fmt.Errorf("chatml: %w", err)
			}
			v, err := parse(sent.Bytes())
			if err != nil {
				return "", fmt.Errorf("chatml: %w", err)
			}
			b.WriteString("\n")
			v.tojson(&b)
		}
		b.WriteString(toolsTail + "<|im_end|>\n")
	} else if len(ms) > 0 && ms[0].role == "system" {
		b.WriteString("<|im_start|>system\n" + ms[0].content + "<|im_end|>\n")
	}
	for i, m := range ms {
		switch {
		case m.role == "user" || m.role == "system" && i > 0 || m.role == "assistant" && len(m.calls) == 0:
			b.WriteString("<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n")
		case m.role == "assistant":
			b.WriteString("<|im_start|>assistant")
			if m.content != "" {
				b.WriteString("\n" + m.content)
			}
			for _, c := range m.calls {
				args, err := Call(LlamaServer, c.Name, c.Arguments)
				if err != nil {
					return "", err
				}
				b.WriteString("\n" + args)
			}
			b.WriteString("<|im_end|>\n")
		case m.role == "tool":
			if i == 0 || ms[i-1].role != "tool" {
				b.WriteString("<|im_start|>user")
			}
			b.WriteString("\n<tool_response>\n" + m.content + "\n</tool_response>")
			if i == len(ms)-1 || ms[i+1].role != "tool" {
				b.WriteString("<|im_end|>\n")
			}
		}
	}
	b.WriteString("<|im_start|>assistant\n")
	return b.String(), nil
}

// renderOllama renders as realserver's Ollama version of the template
// does in Ollama: the system messages joined as its .System, consecutive
// messages of one role but the tool's joined into one, as Ollama collates
// them.
func renderOllama(ms []message, tools []llms.Tool) (string, error) {
	var system []string
	var collated []message
	for _, m := range ms {
		if m.role == "system" {
			system = append(system, m.content)
		}
		if n := len(collated); n > 0 && collated[n-1].role == m.role && m.role != "tool" {
			collated[n-1].content += "\n\n" + m.content
			continue
		}
		collated = append(collated, m)
	}
	var b strings.Builder
	if len(system) > 0 || len(tools) > 0 {
		b.WriteString("<|im_start|>system")
		if len(system) > 0 {
			b.WriteString("\n" + strings.Join(system, "\n\n"))
		}
		if len(tools) > 0 {
			b.WriteString(toolsHead)
			for _, t := range tools {
				f, err := ollamaFunction(t)
				if err != nil {
					return "", err
				}
				b.WriteString("\n{\"type\": \"function\", \"function\": " + f + "}")
			}
			b.WriteString(toolsTail)
		}
		b.WriteString("<|im_end|>\n")
	}
	for i, m := range collated {
		last := i == len(collated)-1
		switch m.role {
		case "user":
			b.WriteString("<|im_start|>user\n" + m.content + "<|im_end|>\n")
		case "assistant":
			b.WriteString("<|im_start|>assistant\n")
			if m.content != "" {
				b.WriteString(m.content)
			} else if len(m.calls) > 0 {
				b.WriteString("<tool_call>\n")
				for _, c := range m.calls {
					args, err := callArguments(Ollama, c.Arguments)
					if err != nil {
						return "", err
					}
					b.WriteString("{\"name\": \"" + c.Name + "\", \"arguments\": " + args + "}\n")
				}
				b.WriteString("</tool_call>")
			}
			if !last {
				b.WriteString("<|im_end|>\n")
			}
		case "tool":
			b.WriteString("<|im_start|>user\n<tool_response>\n" + m.content + "\n</tool_response><|im_end|>\n")
		}
		if m.role != "assistant" && last {
			b.WriteString("<|im_start|>assistant\n")
		}
	}
	return b.String(), nil
}

// ollamaProperty is a property of a tool's parameters as Ollama reads it
// (api.ToolProperty): the keys it lacks are dropped.
type ollamaProperty struct {
	AnyOf       []ollamaProperty `json:"anyOf,omitempty"`
	Type        ollamaType       `json:"type,omitempty"`
	Items       any              `json:"items,omitempty"`
	Description string           `json:"description,omitempty"`
	Enum        []any            `json:"enum,omitempty"`
	Properties  json.RawMessage  `json:"properties,omitempty"`
	Required    []string         `json:"required,omitempty"`
}

// nested reports whether p has properties of its own, whose order
// Ollama keeps as given and Render does not follow.
func (p ollamaProperty) nested() bool {
	if len(p.Properties) > 0 {
		return true
	}
	for _, a := range p.AnyOf {
		if a.nested() {
			return true
		}
	}
	return false
}

// ollamaType is a property's type as Ollama reads it: one type or a list,
// written as a string when it is one.
type ollamaType []string

func (t *ollamaType) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*t = ollamaType{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

func (t ollamaType) MarshalJSON() ([]byte, error) {
	if len(t) == 1 {
		return json.Marshal(t[0])
	}
	return json.Marshal([]string(t))
}

// ollamaFunction returns a tool's function as Ollama 0.24.0 writes
// {{ .Function }}: a struct that has no String method, printed by Go's
// fmt as {name description {type $defs items required properties}}, the
// properties alone as JSON.
func ollamaFunction(t llms.Tool) (string, error) {
	if t.Function == nil {
		return "", errors.New("chatml: a tool without a function")
	}
	data, err := json.Marshal(t.Function.Parameters)
	if err != nil {
		return "", fmt.Errorf("chatml: the parameters of %s: %w", t.Function.Name, err)
	}
	var params struct {
		Type       string                    `json:"type"`
		Defs       any                       `json:"$defs"`
		Items      any                       `json:"items"`
		Required   []string                  `json:"required"`
		Properties map[string]ollamaProperty `json:"properties"`
	}
	if err := json.Unmarshal(data, &params); err != nil {
		return "", fmt.Errorf("chatml: the parameters of %s: %w", t.Function.Name, err)
	}
	nested := params.Defs != nil || params.Items != nil
	for _, p := range params.Properties {
		nested = nested || p.nested()
	}
	if nested {
		return "", fmt.Errorf("chatml: the parameters of %s have $defs, items or nested properties, whose rendering by Ollama Render does not follow", t.Function.Name)
	}
	props := []byte("{}")
	if params.Properties != nil {
		if props, err = json.Marshal(params.Properties); err != nil {
			return "", fmt.Errorf("chatml: the parameters of %s: %w", t.Function.Name, err)
		}
	}
	return fmt.Sprintf("{%s %s {%s <nil> <nil> %v %s}}", t.Function.Name, t.Function.Description, params.Type, params.Required, props), nil
}
