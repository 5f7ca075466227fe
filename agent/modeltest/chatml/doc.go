// Package chatml renders a chat as the real model servers render it with
// the ChatML template that describes tools (gguf.ToolsTemplate on
// llama-server, and its version in Ollama's template language that
// package realserver gives Ollama): the prompt a model served with that
// template reads, from the messages and tool definitions the agent hands
// its model client.
//
// The two servers render the same template differently. llama-server's
// Jinja engine writes each tool definition with its tojson filter, the
// keys in the order the client sent them and ", " and ": " between them.
// Ollama's Go template writes {{ .Function }}, a Go struct that has no
// String method, so Go's fmt prints it: the name, the description and the
// parameters' fields bare, in braces, and only the properties as JSON
// (Go's, compact, with <, > and & escaped); it drops the schema's keys
// its own types lack. The arguments of a call in the history are tojson's
// on llama-server and Go's compact JSON, keys sorted, on Ollama.
//
// The toy model of testdata/toy is trained on these prompts, and
// Call writes the calls it is taught to reply with. Tests against the
// real servers (agent/modeltest/realserver) hold Render to what each
// server renders from the requests the model clients send: a change to
// the clients' bytes, to a server's rendering or to the template fails
// there, and the toy model must then be trained again.
package chatml
