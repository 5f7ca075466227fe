package prompt

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func calculatorData() Data {
	return Data{Tools: []Tool{{
		Name:        "calculator",
		Description: "Evaluates an arithmetic expression.",
		Args:        []Arg{{Name: "expression", Type: "string", Description: "The expression.", Required: true}},
		Primary:     "expression",
	}, {
		Name:        "search",
		Description: "Searches the web.",
		Args:        []Arg{{Name: "query", Type: "string", Required: true}, {Name: "limit", Type: "integer"}},
		Primary:     "query",
	}}}
}

func TestSystem(t *testing.T) {
	withContext := calculatorData()
	withContext.Context = "The user is an accountant in Lyon."
	tests := []struct {
		name     string
		tmpl     *Template
		data     Data
		want     []string
		dontWant []string
	}{
		{
			name: "the English template lists the tools, their arguments and the rules",
			tmpl: English(),
			data: calculatorData(),
			want: []string{
				"- calculator: Evaluates an arithmetic expression.",
				"    - expression (string, required): The expression.",
				"    - limit (integer)",
				"one of [calculator, search]",
				`{"expression":"..."}`,
				"Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:",
				"one Action per reply",
			},
			dontWant: []string{"Context:"},
		},
		{
			name: "the Chinese template keeps the protocol labels in English",
			tmpl: Chinese(),
			data: calculatorData(),
			want: []string{"工具", "- calculator：Evaluates", "Action Input:", "Final Answer:", "必填"},
		},
		{
			name:     "without tools the template asks for a final answer only",
			tmpl:     English(),
			data:     Data{},
			want:     []string{"You have no tools", "Final Answer:"},
			dontWant: []string{"Action Input:"},
		},
		{
			name: "extra context ends the system part",
			tmpl: English(),
			data: withContext,
			want: []string{"Context:\nThe user is an accountant in Lyon.\n"},
		},
		{
			name: "the compact template tells each tool in a line and keeps the protocol",
			tmpl: Compact(),
			data: withContext,
			want: []string{
				"- calculator: Evaluates an arithmetic expression. Input: {\"expression\": string}\n",
				`- search: Searches the web. Input: {"query": string, "limit": integer (optional)}`,
				"one of [calculator, search]",
				"Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:",
				"Context:\nThe user is an accountant in Lyon.\n",
			},
			dontWant: []string{"The expression."},
		},
		{
			name:     "the compact template without tools asks for a final answer only",
			tmpl:     Compact(),
			data:     Data{},
			want:     []string{"Final Answer:"},
			dontWant: []string{"Action"},
		},
		{
			name: "the compact template of the JSON object protocol",
			tmpl: Compact().Object(),
			data: calculatorData(),
			want: []string{`"action": "one of [calculator, search]", "action_input": {"expression":"..."}}`, `"action": "Final Answer"`},
		},
		{
			name: "extra context in Chinese",
			tmpl: Chinese(),
			data: withContext,
			want: []string{"背景信息：\nThe user is an accountant in Lyon."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.tmpl.System(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("the system part lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(got, w) {
					t.Errorf("the system part has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestForLang(t *testing.T) {
	tests := []struct {
		lang, want string
		wantErr    bool
	}{
		{"", "en", false},
		{"en", "en", false},
		{"ZH", "zh", false},
		{"fr", "", true},
	}
	for _, tt := range tests {
		got, err := ForLang(tt.lang)
		if (err != nil) != tt.wantErr {
			t.Fatalf("ForLang(%q) error = %v, want error %v", tt.lang, err, tt.wantErr)
		}
		if err == nil && got.Name() != tt.want {
			t.Errorf("ForLang(%q) = %s, want %s", tt.lang, got.Name(), tt.want)
		}
	}
}

func TestBuiltin(t *testing.T) {
	tests := []struct {
		style, lang, want string
		wantErr           string
	}{
		{"", "", "en", ""},
		{"full", "zh", "zh", ""},
		{"Compact", "", "compact", ""},
		{"compact", "en", "compact", ""},
		{"compact", "zh", "", "English only"},
		{"tiny", "en", "", `the style "tiny"; use full or compact`},
		{"full", "fr", "", `the language "fr"`},
	}
	for _, tt := range tests {
		got, err := Builtin(tt.style, tt.lang)
		switch {
		case tt.wantErr != "" && (!errors.Is(err, ErrNoSuchTemplate) || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("Builtin(%q, %q) error = %v, want one matching ErrNoSuchTemplate that says %q", tt.style, tt.lang, err, tt.wantErr)
		case tt.wantErr == "" && err != nil:
			t.Errorf("Builtin(%q, %q): %v", tt.style, tt.lang, err)
		case tt.wantErr == "" && got.Name() != tt.want:
			t.Errorf("Builtin(%q, %q) = %s, want %s", tt.style, tt.lang, got.Name(), tt.want)
		}
	}
}

func TestTheCompactTemplateIsLessThanHalfTheFullOne(t *testing.T) {
	d := calculatorData()
	d.Tools[0].Description = strings.Repeat("Evaluates an arithmetic expression. It supports many functions. ", 4)
	full, _ := English().System(d)
	compact, _ := Compact().System(d)
	if 2*len(compact) > len(full) {
		t.Errorf("the compact system part is %d bytes, the full one %d", len(compact), len(full))
	}
}

func TestObjectKeepsTheStyle(t *testing.T) {
	tests := []struct {
		tmpl *Template
		want string
	}{
		{English(), "object"},
		{Chinese(), "object"},
		{Compact(), "compact-object"},
		{JSONObject(), "object"},
		{Compact().Object(), "compact-object"},
		{mustParse(t, "mine"), "object"},
	}
	for _, tt := range tests {
		if got := tt.tmpl.Object().Name(); got != tt.want {
			t.Errorf("%s.Object() = %s, want %s", tt.tmpl.Name(), got, tt.want)
		}
	}
}

func mustParse(t *testing.T, name string) *Template {
	t.Helper()
	tmpl, err := Parse(name, "{{.ToolNames}}")
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

func TestSummaryIsTheFirstSentence(t *testing.T) {
	tests := []struct{ description, want string }{
		{"Evaluate an expression. Supports + and -.", "Evaluate an expression."},
		{"Search the web (e.g. news). Returns results.", "Search the web (e.g."},
		{"Version 2.5 of the tool", "Version 2.5 of the tool"},
		{"First line\nsecond line", "First line"},
		{"  Ends with a stop.  ", "Ends with a stop."},
		{"", ""},
	}
	for _, tt := range tests {
		if got := (Tool{Description: tt.description}).Summary(); got != tt.want {
			t.Errorf("Summary of %q = %q, want %q", tt.description, got, tt.want)
		}
	}
}

func TestUserTemplate(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		text    string
		want    string
		wantErr string
	}{
		{
			name: "a user template sees every documented field",
			text: "Tools: {{.ToolNames}}.{{range .Tools}} {{.Name}}/{{.Primary}}/{{len .Args}}{{end}} Q={{.Question}} C={{.Context}}",
			want: "Tools: calculator, search. calculator/expression/1 search/query/2 Q=why? C=ctx\n",
		},
		{
			name:    "a syntax error names the file",
			text:    "{{.Tools",
			wantErr: "bad.tmpl",
		},
		{
			name:    "an unknown field fails at execution",
			text:    "{{.Nope}}",
			wantErr: "Nope",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.tmpl")
			if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			tmpl, err := ParseFile(path)
			var got string
			if err == nil {
				d := calculatorData()
				d.Question, d.Context = "why?", "ctx"
				got, err = tmpl.System(d)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := ParseFile(filepath.Join(dir, "missing.tmpl")); err == nil {
		t.Error("ParseFile of a missing file succeeded")
	}
}
