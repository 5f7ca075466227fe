package parser_test

import (
	"errors"
	"fmt"

	"github.com/react-agent/react-agent/parser"
)

func ExampleParser_Parse() {
	p := parser.New(builtins)
	st, err := p.Parse("**Thought:** I need to multiply.\n**Action:** Calculator\n**Action Input:** {'expression': '6 * 7',}\nObservation: 42")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(st.Kind, st.Action, st.Args, st.Thought)
	// Output: action calculator map[expression:6 * 7] I need to multiply.
}

func ExampleParser_Parse_inlineCall() {
	p := parser.New(builtins)
	st, _ := p.Parse("Thought 2: I should look it up.\nAction 2: web_search[Colorado orogeny]")
	fmt.Println(st.Action, st.Args)
	// Output: web_search map[query:Colorado orogeny]
}

func ExampleParser_Parse_finalAnswer() {
	p := parser.New(builtins)
	st, _ := p.Parse("思考：不需要工具。\n最终答案：二加二等于四。")
	fmt.Println(st.Kind, st.FinalAnswer)
	// Output: final 二加二等于四。
}

func ExampleParser_Parse_error() {
	p := parser.New(builtins)
	_, err := p.Parse("Thought: I should search.\nAction: web_search")
	fmt.Println(errors.Is(err, parser.ErrNoActionInput))
	fmt.Println(err)
	// Output:
	// true
	// Your reply has "Action: web_search" but no Action Input, and web_search needs "query". Write the tool's arguments as a JSON object on the next line, for example:
	//
	// Action: web_search
	// Action Input: {"query": "..."}
}

func ExampleParser_Args() {
	p := parser.New(builtins)
	name, args := p.Args("Web Search", "golang generics")
	fmt.Println(name, args)
	// Output: web_search map[query:golang generics]
}

func ExampleParser_ParseWith() {
	p := parser.New(builtins)
	// The model copied its last step from the transcript before its answer.
	last := parser.PastStep{
		Step:        parser.Step{Kind: parser.KindAction, Action: "calculator", Args: map[string]any{"expression": "6*7"}},
		Observation: "42",
	}
	reply := "Action: calculator\nAction Input: {\"expression\": \"6*7\"}\nObservation: 42\nThought: I know it.\nFinal Answer: 42"
	st, _ := p.ParseWith(reply, parser.Options{Previous: []parser.PastStep{last}})
	fmt.Println(st.Kind, st.FinalAnswer)

	// The server stopped the reply at its token limit: half an answer is
	// no answer.
	_, err := p.ParseWith("Final Answer: The answer is forty", parser.Options{Truncated: true})
	fmt.Println(errors.Is(err, parser.ErrTruncated))
	// Output:
	// final 42
	// true
}

func ExampleScanner() {
	p := parser.New(builtins)
	s := p.NewScanner()
	for _, piece := range []string{"Thought: I will add.\nAction: calc", "ulator\nAction Input: 2 + 2\nObserv", "ation: 4\nThought: so it is 4."} {
		s.WriteString(piece)
		if cut := s.Cut(); cut >= 0 {
			fmt.Printf("cut after %q\n", s.Text()[:cut])
			break
		}
		fmt.Printf("no cut yet after %q\n", piece)
	}
	// Output:
	// no cut yet after "Thought: I will add.\nAction: calc"
	// no cut yet after "ulator\nAction Input: 2 + 2\nObserv"
	// cut after "Thought: I will add.\nAction: calculator\nAction Input: 2 + 2\n"
}

func ExampleParser_ActionEnd() {
	p := parser.New(builtins)
	reply := "<think>Action: calculator\nObservation: 1</think>\nAction: calculator\nAction Input: 2 + 2\nObservation: 4"
	fmt.Printf("%q\n", reply[:p.ActionEnd(reply)])
	// Output: "<think>Action: calculator\nObservation: 1</think>\nAction: calculator\nAction Input: 2 + 2\n"
}
