// Package score measures the parser on a labelled corpus of model
// replies, for people who test ReAct parsers.
//
// A corpus is JSON Lines, one reply a line:
//
//	{"id": "a1", "text": "Action: Search\nAction Input: zig", "expect": {"action": "Search", "input": "zig"}}
//	{"id": "a2", "text": "Final Answer: 4", "expect": {"final_answer": "4"}}
//	{"id": "a3", "text": "Here is a long answer…", "expect": {"final_answer_prefix": "Here is"}}
//	{"id": "a4", "text": "Thought: hmm", "expect": {"unparseable": true}}
//
// A line may also say what the loop would have known: "truncated": true
// for a reply the server cut at its token limit, and "previous", the
// steps before it ({"action", "input", "observation"}), for a reply that
// may copy them (see parser.Options).
//
// The tools the replies call come from ReadTools, in the shapes MCP,
// Anthropic and OpenAI list them, or from names alone (Names).
package score
