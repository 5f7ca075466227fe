package parser_test

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// fakeTools describes the built-in tools the way the tool registry does,
// without importing it: the parser depends on nothing of ours.
type fakeTools map[string][]string // name → args, primary first

func (f fakeTools) ToolNames() []string {
	names := make([]string, 0, len(f))
	for n := range f {
		names = append(names, n)
	}
	return names
}

func (f fakeTools) ToolArgs(name string) ([]string, string) {
	args, ok := f[name]
	if !ok || len(args) == 0 {
		return nil, ""
	}
	return args, args[0]
}

// RequiredArgs takes the primary argument to be the one required.
func (f fakeTools) RequiredArgs(name string) []string {
	if args := f[name]; len(args) > 0 {
		return args[:1]
	}
	return nil
}

var builtins = fakeTools{
	"calculator":   {"expression"},
	"web_search":   {"query", "max_results"},
	"http_request": {"url", "method", "headers", "body"},
	"shell":        {"command"},
	"get_time":     {},
}

// TestSharedExamples loads the shared real-world examples; every one must
// parse as it says.
func TestSharedExamples(t *testing.T) {
	f, err := os.Open("../../shared/parser/examples.jsonl")
	switch {
	case err != nil && os.Getenv("REACT_AGENT_REQUIRE_SHARED") != "":
		t.Fatalf("REACT_AGENT_REQUIRE_SHARED is set, and the shared examples must be beside the project root: %v", err)
	case err != nil:
		t.Skipf("the shared examples are not beside the project root (%v); CI sets REACT_AGENT_REQUIRE_SHARED=1 to require them", err)
	}
	defer f.Close()
	p := parser.New(builtins)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var ex struct {
			ID     string
			Text   string
			Note   string
			Expect struct {
				Kind        string
				Action      string
				Args        map[string]any
				FinalAnswer string `json:"final_answer"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		t.Run(ex.ID, func(t *testing.T) {
			st, err := p.Parse(ex.Text)
			if ex.Expect.Kind == "error" {
				if err == nil {
					t.Fatalf("%s: want an error, got %+v", ex.Note, st)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", ex.Note, err)
			}
			if string(st.Kind) != ex.Expect.Kind {
				t.Fatalf("%s: kind %q, want %q (%+v)", ex.Note, st.Kind, ex.Expect.Kind, st)
			}
			if ex.Expect.Kind == "action" {
				if st.Action != ex.Expect.Action || !reflect.DeepEqual(st.Args, ex.Expect.Args) {
					t.Errorf("%s: got %s %v, want %s %v", ex.Note, st.Action, st.Args, ex.Expect.Action, ex.Expect.Args)
				}
			} else if st.FinalAnswer != ex.Expect.FinalAnswer {
				t.Errorf("%s: final answer %q, want %q", ex.Note, st.FinalAnswer, ex.Expect.FinalAnswer)
			}
		})
	}
	if n == 0 {
		t.Fatal("no examples loaded")
	}
}
