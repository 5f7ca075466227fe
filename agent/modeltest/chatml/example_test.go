package chatml_test

import (
	"fmt"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent/modeltest/chatml"
)

func ExampleCall() {
	for _, s := range chatml.Servers {
		call, err := chatml.Call(s, "calculator", `{"expression":"2 + 2"}`)
		if err != nil {
			fmt.Println(err)
		}
		fmt.Printf("%s:\n%s\n", s, call)
	}
	// Output:
	// llama-server:
	// <tool_call>
	// {"name": "calculator", "arguments": {"expression": "2 + 2"}}
	// </tool_call>
	// ollama:
	// <tool_call>
	// {"name": "calculator", "arguments": {"expression":"2 + 2"}}
	// </tool_call>
}

func ExampleRender() {
	tools := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{Name: "echo", Description: "Say it again.",
		Parameters: map[string]any{"type": "object", "required": []string{"text"},
			"properties": map[string]any{"text": map[string]any{"type": "string", "minLength": 1}}}}}}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Be brief."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Say hi."),
	}
	for _, s := range chatml.Servers {
		prompt, err := chatml.Render(s, msgs, tools)
		if err != nil {
			fmt.Println(err)
		}
		fmt.Printf("%s:\n%s\n", s, prompt)
	}
	// Output:
	// llama-server:
	// <|im_start|>system
	// Be brief.
	//
	// # Tools
	//
	// You may call one or more functions to assist with the user query.
	//
	// You are provided with function signatures within <tools></tools> XML tags:
	// <tools>
	// {"type": "function", "function": {"name": "echo", "description": "Say it again.", "parameters": {"properties": {"text": {"minLength": 1, "type": "string"}}, "required": ["text"], "type": "object"}}}
	// </tools>
	//
	// For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
	// <tool_call>
	// {"name": <function-name>, "arguments": <args-json-object>}
	// </tool_call><|im_end|>
	// <|im_start|>user
	// Say hi.<|im_end|>
	// <|im_start|>assistant
	//
	// ollama:
	// <|im_start|>system
	// Be brief.
	//
	// # Tools
	//
	// You may call one or more functions to assist with the user query.
	//
	// You are provided with function signatures within <tools></tools> XML tags:
	// <tools>
	// {"type": "function", "function": {echo Say it again. {object <nil> <nil> [text] {"text":{"type":"string"}}}}}
	// </tools>
	//
	// For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
	// <tool_call>
	// {"name": <function-name>, "arguments": <args-json-object>}
	// </tool_call><|im_end|>
	// <|im_start|>user
	// Say hi.<|im_end|>
	// <|im_start|>assistant
}
