package configerr

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestLocateNamesTheLineOfTheFault(t *testing.T) {
	tests := []struct {
		name, data string
		json       bool
		line       int
		text       string
	}{
		{"a key without its colon", "model: qwen\nprovider ollama\nmax-iterations: 5\n", false, 2, "provider ollama"},
		{"a key indented under a value", "max-iterations: 5\n  prompt: compact\n", false, 2, "  prompt: compact"},
		{"a list left open to the end", "max-iterations: 5\nprompt: [compact\n", false, 2, "prompt: [compact"},
		{"a tab that indents", "max-iterations: 5\n\tprompt: compact\n", false, 2, "\tprompt: compact"},
		{"an item indented one space too few, deep in a list", "tools:\n  - name: x\n    description: y\n   command: echo\n", false, 4, "   command: echo"},
		{"a server's key indented too few", "mcpServers:\n  a:\n    command: x\n   args: [1]\n", false, 4, "   args: [1]"},
		{"a fault after a list over two lines", "tool: [calculator,\n  web_search]\nbogus line\nmodel: m\n", false, 3, "bogus line"},
		{"a JSON comma before a brace", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}\n", true, 3, `    "a": {"command": "x",}`},
		{"JSON cut short", "{\"mcpServers\": {\n", true, 1, `{"mcpServers": {`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			var err error
			if tt.json {
				err = json.Unmarshal([]byte(tt.data), &v)
			} else {
				err = yaml.Unmarshal([]byte(tt.data), &v)
			}
			if err == nil {
				t.Fatal("the file parses; the test proves nothing")
			}
			var le *LineError
			if got := Locate([]byte(tt.data), err); !errors.As(got, &le) || le.Line != tt.line || le.Text != tt.text || !errors.Is(got, err) {
				t.Errorf("Locate = %v, want line %d (%q)", got, tt.line, tt.text)
			}
		})
	}
}

func TestLocateNamesAnUnknownKey(t *testing.T) {
	data := []byte("tools:\n  - name: x\n    bogus: 1\n    other: 2\n")
	var v struct {
		Tools []struct {
			Name string `yaml:"name"`
		} `yaml:"tools"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(&v)
	want := `line 3 ("    bogus: 1"): unknown key "bogus" (and 1 more mistakes after it)`
	if got := Locate(data, err); got == nil || got.Error() != want || !errors.Is(got, err) {
		t.Errorf("Locate = %v, want %s", got, want)
	}
}

func TestLocateLeavesAnErrorWithoutAPlaceAsItIs(t *testing.T) {
	other := errors.New("no such file")
	if got := Locate(nil, other); got != other {
		t.Errorf("Locate(%v) = %v", other, got)
	}
}

// TestLocateIsBoundedOnALargeFile breaks the second line of a file of
// 20,000 long lines: Locate gives up looking for the fault's own line
// soon, and says the parser's.
func TestLocateIsBoundedOnALargeFile(t *testing.T) {
	data := []byte("a: 1\nb c\n" + strings.Repeat("k: "+strings.Repeat("x", 1000)+"\n", 20000))
	var v any
	err := yaml.Unmarshal(data, &v)
	if err == nil {
		t.Fatal("the file parses")
	}
	start := time.Now()
	got := Locate(data, err)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Locate took %v", d)
	}
	if got == nil {
		t.Error("no error")
	}
}
