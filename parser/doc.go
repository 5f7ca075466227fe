// Package parser turns what a model wrote into the next step of a ReAct
// loop: a thought and either a tool call or a final answer.
//
// Models rarely write the protocol cleanly, so the parser is tolerant. It
// accepts labels in any case, wrapped in markdown, numbered, with full-width
// colons or in Chinese; Action Input as JSON, fenced JSON, Python-style
// dicts and tuples, quoted strings or raw text; inline calls such as
// "Action: calculator(2+2)"; JSON-object protocols; and it ignores
// everything after a hallucinated "Observation:". When the input is not an
// object with the tool's own keys, it is put onto the tool's primary
// argument, which the parser learns through the Tools interface.
//
// A streamed reply is read as it comes by a Scanner, which finds where
// its first action is complete (ActionEnd), so that the stream can be
// cut before an observation the model made up. It reads the labels with
// the same reading as Parse, each line once, however small the pieces.
//
// A reply that is not a step is an *Error written for the model: an
// Action that names no tool, prose that only plans or announces, an
// answer cut off mid-sentence. What only the loop knows comes through
// Options and ParseWith: that the server cut the reply at its token
// limit, and the steps before it, which a model may copy before its own.
//
// The parser uses plain string scanning and Go's linear-time regexp
// package only: its running time grows linearly with the input whatever
// the input's shape. Its tables and regular expressions are built on the
// first parse, so that a program that never parses does not pay for them.
// A reply written exactly as the protocol asks takes a short way
// (canonical.go) that gives what the tolerant reading gives.
//
// Where each part is read: parser.go finds the step among the labels;
// labels.go reads the labels that open lines, inline.go those inside a
// line, words.go holds every word list (labels, refusals, placeholders,
// in each language); names.go matches tool names; input.go and json.go
// read an Action Input as written, program.go tells a program written as
// one (which runs on across blank lines) from the commentary after an
// input, python.go reads its Python forms, and args.go fits it to the
// tool's arguments; calls.go reads inline calls, markup.go calls written
// as tags or as code fences tagged with a tool's name, wordcalls.go
// calls written in words, protocol.go JSON-object protocols, prose.go
// replies without labels, reasoning.go <think> blocks, context.go what
// the loop knows (Options), and scan.go a reply as it streams.
package parser
