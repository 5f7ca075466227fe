package prompt

import (
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
