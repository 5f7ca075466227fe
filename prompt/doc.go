// Package prompt writes the text the agent sends to the model: the system
// part (instructions, the tool list, the reply format and its rules, and any
// extra context) and the scratchpad (the question and every step so far).
//
// The scratchpad only ever grows: the prompt of step N+1 starts with the
// exact bytes of the prompt of step N, so servers that cache the prompt
// prefix (llama.cpp, Ollama, vLLM) reuse their work from one step to the
// next. Steps are written with [FormatStep], the canonical form the parser
// reads back.
//
// Two templates ship with the package, [English] and [Chinese]; [Parse] and
// [ParseFile] read a user's own Go text/template, which is given a [Data].
package prompt
