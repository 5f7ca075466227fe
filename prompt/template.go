package prompt

import (
	"embed"
	"errors"
	"fmt"
	"strings"
	"text/template"

	"github.com/react-agent/react-agent/tools/bounded"
)

//go:embed templates/*.tmpl
var builtin embed.FS

// Data is what a template is executed with. The fields are the documented
// interface of a user's template file (--prompt-file):
//
//	{{.Tools}}      the tools, each with .Name, .Description, .Args
//	                (each with .Name, .Type, .Description, .Required),
//	                .Primary and .Example (a sample Action Input)
//	{{.ToolNames}}  the tool names joined with ", "
//	{{.Context}}    extra text for the system part (--system), possibly empty
//	{{.Question}}   the question of this run
//
// A template renders the system part only. The question and the steps follow
// in the scratchpad, in the canonical protocol (see [FormatStep]). Putting
// {{.Question}} in the system part works, but then a conversation no longer
// shares its prompt prefix from one question to the next.
type Data struct {
	// Tools lists the tools the model may call, sorted by name.
	Tools []Tool
	// ToolNames is the tool names joined with ", ".
	ToolNames string
	// Context is extra text for the system part, as a product's business
	// context would be.
	Context string
	// Question is the question being answered.
	Question string
}

// Tool is what the prompt tells the model about one tool.
type Tool struct {
	// Name is the name the model writes after "Action:".
	Name string
	// Description says what the tool does.
	Description string
	// Args describes the arguments, primary first by convention.
	Args []Arg
	// Primary names the argument that takes an input which is not an object.
	Primary string
}

// Arg describes one argument of a tool.
type Arg struct {
	// Name is the key in the Action Input object.
	Name string
	// Type is a JSON type name such as "string" or "number".
	Type string
	// Description says what the argument is for.
	Description string
	// Required is true when a call without it is an error.
	Required bool
}

// Summary returns the first sentence of the tool's description (up to a
// full stop followed by a space or a line break), or the whole description
// when it has one sentence: what a short prompt tells of the tool.
func (t Tool) Summary() string {
	d := strings.TrimSpace(t.Description)
	for i := 0; i+1 < len(d); i++ {
		if d[i] == '.' && (d[i+1] == ' ' || d[i+1] == '\n') {
			return d[:i+1]
		}
		if d[i] == '\n' {
			return strings.TrimSpace(d[:i])
		}
	}
	return d
}

// Example returns a sample Action Input for the tool, such as
// {"expression": "..."}, naming its primary or first argument.
func (t Tool) Example() string {
	name := t.Primary
	if name == "" && len(t.Args) > 0 {
		name = t.Args[0].Name
	}
	if name == "" {
		return "{}"
	}
	return FormatArgs(map[string]any{name: "..."})
}

// Template renders the system part of the prompt and knows the few fixed
// phrases of the scratchpad in its language. A Template is safe for
// concurrent use.
type Template struct {
	name   string
	system *template.Template
	words  words
	object func() *Template // the JSON object protocol's template of the same style; nil for JSONObject
}

// words are the phrases the scratchpad writes around the protocol, whose
// labels stay in English whatever the language.
type words struct {
	question    string // the label before the question
	finalPrompt string // the request for a final answer when a limit is reached
	object      bool   // steps are JSON objects (FormatObject), not labelled lines
}

var english = words{
	question: "Question: ",
	finalPrompt: "You cannot use any more tools. From what you have found so far, " +
		"write your best answer now, in exactly this form:\n" +
		"Thought: ...\nFinal Answer: ...\n",
}

var chinese = words{
	question: "问题：",
	finalPrompt: "你不能再使用任何工具了。请根据目前得到的信息，现在就给出你最好的答案，" +
		"严格使用以下格式：\nThought: ...\nFinal Answer: ...\n",
}

var objectWords = words{
	question: "Question: ",
	finalPrompt: "You cannot use any more tools. From what you have found so far, " +
		"write your best answer now, as exactly this JSON object:\n" +
		`{"thought": "...", "action": "Final Answer", "action_input": "..."}` + "\n",
	object: true,
}

// JSONObject returns the built-in English template of the JSON object
// protocol, whose steps are one JSON object each, {"thought", "action",
// "action_input"}, as a server that binds the reply to a JSON schema asks
// for; its scratchpad writes the steps so (see FormatObject).
func JSONObject() *Template { return mustBuiltin("object", objectWords, nil) }

// English returns the built-in English template.
func English() *Template { return mustBuiltin("en", english, JSONObject) }

// Chinese returns the built-in Chinese template. Its instructions are in
// Chinese and ask for an answer in Chinese; the protocol labels stay in
// English, as the scratchpad writes them.
func Chinese() *Template { return mustBuiltin("zh", chinese, JSONObject) }

// Compact returns the built-in compact English template: the same
// protocol as English in less than half its bytes (a third with the
// built-in tools), each tool told by its description's first sentence and
// its arguments' names and types, for small models and short context
// windows.
func Compact() *Template { return mustBuiltin("compact", english, compactObject) }

// compactObject is the compact template of the JSON object protocol.
func compactObject() *Template { return mustBuiltin("compact-object", objectWords, nil) }

// Object returns the template of the JSON object protocol in t's style,
// for a run whose steps a server binds to a JSON schema: the compact one
// for Compact, JSONObject for the others, and t itself when it is one.
func (t *Template) Object() *Template {
	switch {
	case t.words.object:
		return t
	case t.object != nil:
		return t.object()
	}
	return JSONObject()
}

// Languages returns the languages of the built-in templates, for ForLang.
func Languages() []string { return []string{"en", "zh"} }

// The styles of the built-in templates, for Builtin.
const (
	// Full is the style of English and Chinese: every tool with its
	// whole description and each argument, the format and its rules.
	Full = "full"
	// CompactStyle is the style of Compact.
	CompactStyle = "compact"
)

// Styles returns the styles of the built-in templates, for Builtin.
func Styles() []string { return []string{Full, CompactStyle} }

// ErrNoSuchTemplate is matched by the error of Builtin for a style and a
// language that no built-in template has.
var ErrNoSuchTemplate = errors.New("no such built-in template")

// ForLang returns the built-in template for lang, one of Languages. An
// empty lang means English.
func ForLang(lang string) (*Template, error) { return Builtin(Full, lang) }

// Builtin returns the built-in template of style, one of Styles, in lang,
// one of Languages; empty means Full and English. The compact style is
// written in English only.
func Builtin(style, lang string) (*Template, error) {
	style, lang = strings.ToLower(style), strings.ToLower(lang)
	switch {
	case style != "" && style != Full && style != CompactStyle:
		return nil, fmt.Errorf("prompt: %w: the style %q; use %s", ErrNoSuchTemplate, style, strings.Join(Styles(), " or "))
	case lang != "" && lang != "en" && lang != "zh":
		return nil, fmt.Errorf("prompt: %w: the language %q; use en or zh", ErrNoSuchTemplate, lang)
	case style == CompactStyle && lang == "zh":
		return nil, fmt.Errorf("prompt: %w: the compact template is written in English only", ErrNoSuchTemplate)
	case style == CompactStyle:
		return Compact(), nil
	case lang == "zh":
		return Chinese(), nil
	}
	return English(), nil
}

func mustBuiltin(name string, w words, object func() *Template) *Template {
	text, err := builtin.ReadFile("templates/" + name + ".tmpl")
	if err != nil {
		panic(err) // embedded at build time
	}
	t, err := Parse(name, string(text))
	if err != nil {
		panic(err) // the built-in templates are tested
	}
	t.words, t.object = w, object
	return t
}

// Parse reads a user's template from text: a Go text/template for the
// system part, executed with a [Data]. The scratchpad around it is written
// in English.
func Parse(name, text string) (*Template, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("prompt: template %s: %w", name, err)
	}
	return &Template{name: name, system: t, words: english}, nil
}

// ParseFile reads a user's template from the file at path: a regular
// file of at most [MaxTemplateFile] bytes (a device or a FIFO is refused,
// not waited on). See [Parse] and [Data].
func ParseFile(path string) (*Template, error) {
	text, err := bounded.ReadFile(path, MaxTemplateFile)
	if err != nil {
		return nil, fmt.Errorf("prompt: read template: %w", err)
	}
	return Parse(path, string(text))
}

// Name returns the template's name: "en", "zh", "compact" or the name
// given to Parse.
func (t *Template) Name() string { return t.name }

// System renders the system part of the prompt.
func (t *Template) System(d Data) (string, error) {
	if d.ToolNames == "" && len(d.Tools) > 0 {
		names := make([]string, len(d.Tools))
		for i, tool := range d.Tools {
			names[i] = tool.Name
		}
		d.ToolNames = strings.Join(names, ", ")
	}
	var b strings.Builder
	if err := t.system.Execute(&b, d); err != nil {
		return "", fmt.Errorf("prompt: template %s: %w", t.name, err)
	}
	return strings.TrimSpace(b.String()) + "\n", nil
}

// MaxTemplateFile is the most read of a template's file.
const MaxTemplateFile = 1 << 20
