package prompt_test

import (
	"fmt"

	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
)

func ExampleTemplate_Begin() {
	s := prompt.English().Begin("What is 17 * 23 + 4?")
	s.AddStep(parser.Step{
		Kind:    parser.KindAction,
		Thought: "I should compute it.",
		Action:  "calculator",
		Args:    map[string]any{"expression": "17 * 23 + 4"},
	}, "395")
	fmt.Print(s.String())
	// Output:
	// Question: What is 17 * 23 + 4?
	//
	// Thought: I should compute it.
	// Action: calculator
	// Action Input: {"expression":"17 * 23 + 4"}
	// Observation: 395
}

func ExampleTemplate_System() {
	system, err := prompt.English().System(prompt.Data{
		Tools: []prompt.Tool{{
			Name:        "calculator",
			Description: "Evaluates an arithmetic expression.",
			Args:        []prompt.Arg{{Name: "expression", Type: "string", Required: true}},
			Primary:     "expression",
		}},
		Context: "Answer in one sentence.",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(system)
	// Output:
	// You are a careful assistant. You answer the question by thinking step by step and using tools when they help.
	//
	// You can use these tools:
	//
	// - calculator: Evaluates an arithmetic expression.
	//     - expression (string, required)
	//
	// Reply in exactly this format:
	//
	// Thought: what you know so far and what to do next
	// Action: the tool to use, one of [calculator]
	// Action Input: the tool's arguments as one JSON object, for example {"expression":"..."}
	//
	// The tool's result then comes back to you as "Observation: ...", and you continue with another Thought. When you know the answer, reply instead:
	//
	// Thought: I now know the final answer
	// Final Answer: the answer to the question
	//
	// Rules:
	// - Write one Action per reply, then stop: never write "Observation:" yourself.
	// - Action Input is a single JSON object on one line.
	// - If a tool reports an error, read it and try again differently.
	// - Stop as soon as you know the answer and give it after "Final Answer:".
	//
	// Context:
	// Answer in one sentence.
}
