// Package constrain turns a tool registry into the constraints that bind a
// model's step to the registered tools, on the servers that can sample
// under one:
//
//   - a GBNF grammar of the whole reply for llama.cpp, which binds a line
//     that starts with the "Action:" label: the tool name is one of the
//     registered ones and the Action Input is JSON that fits that tool's
//     argument schema, while the thought, a <think> block at the start and
//     a final answer stay free (it needs no trigger pattern, which
//     llama.cpp would match against the whole reply at every token);
//   - the same binding as an xgrammar structural tag, for vLLM and SGLang;
//   - one JSON schema of the JSON object protocol, {"thought", "action",
//     "action_input"}, with a branch a tool and one for the final answer,
//     for Ollama's format and response_format json_schema (LM Studio,
//     OpenAI in its strict form).
//
// The schemas of a tool's arguments come from the tool: the JSON schema
// its server declared when it has one (MCP tools, see tools.SchemaDeclarer), else
// its tools.Schema. A schema feature a grammar cannot express narrows to
// "any JSON value" for that value; the grammar is never broken. A tool
// whose schema would make the constraints larger than a request should
// carry takes any JSON object as its arguments (see Set.Narrowed); the
// others stay bound. Writing the constraints takes time in proportion to
// the schemas, and stops when its context ends (see Set.Build).
//
//	set := constrain.For(reg)    // once per registry: the grammars are cached
//	if err := set.Build(ctx); err != nil { … }
//	reply, err := m.Generate(ctx, model.Request{Messages: msgs, Constraint: set.Step()})
package constrain
