package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/tools"
)

// TestAnswerNamesStayAnswers checks that the tools of a server named as
// models write a final answer are renamed, with a warning, and that the
// parser, with them registered, still reads an answer as an answer.
func TestAnswerNamesStayAnswers(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls")
	set := start(t, Options{}, testServer(t, "srv", "-answers", calls))
	for _, want := range []string{"srv_Finish", "srv_final_answer", "srv_Respond", "srv_answer"} {
		if !slices.Contains(names(set), want) {
			t.Errorf("no tool %s among %q", want, names(set))
		}
	}
	if w := strings.Join(set.Warnings(), "\n"); !strings.Contains(w, `MCP server "srv": its tool "Finish" is called "srv_Finish" here, since models write "Finish" for a final answer`) {
		t.Errorf("got warnings %q", set.Warnings())
	}
	reg := registry(t, set, tools.Limits{})
	p := parser.New(reg)
	for _, reply := range []string{
		"Thought: I know it.\nAction: Final Answer\nAction Input: 42",
		"Thought: I know it.\nAction: Finish[42]",
		"finish(answer=\"42\")",
		"Thought: I know it.\nAction: final_answer\nAction Input: {\"answer\": \"42\"}",
		"Thought: I know it.\nAction: Respond\nAction Input: 42",
		"Thought: I know it.\nAction: answer\nAction Input: 42",
	} {
		step, err := p.Parse(reply)
		if err != nil || step.Kind != parser.KindFinal || step.FinalAnswer != "42" {
			t.Errorf("%q: got %+v, %v; want the final answer 42", reply, step, err)
		}
		if step.Kind == parser.KindAction {
			reg.Call(context.Background(), step.Action, step.Args)
		}
	}
	if b, err := os.ReadFile(calls); err == nil {
		t.Errorf("the server's answering tools were called: %q", b)
	}
	t.Run("a renamed tool is still called by its new name", func(t *testing.T) {
		step, err := p.Parse("Thought: the server's.\nAction: srv_Finish\nAction Input: {}")
		if err != nil || step.Kind != parser.KindAction || step.Action != "srv_Finish" {
			t.Fatalf("got %+v, %v", step, err)
		}
		if out, err := reg.Call(context.Background(), step.Action, step.Args); err != nil || out != "taken" {
			t.Errorf("got %q, %v", out, err)
		}
	})
}
