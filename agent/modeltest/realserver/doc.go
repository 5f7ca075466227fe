// Package realserver runs real model servers for tests: llama.cpp's
// llama-server and Ollama, each on a loopback port of its own, with its own
// folders, serving a tiny model written with package gguf, and stopped when
// the test ends.
//
//	srv := realserver.LlamaServer(t, realserver.Spell("Final Answer: 4"))
//	// Point the client at srv.URL; ask for the model srv.Model.
//
// The binaries are found through environment variables, else where CI
// puts them (see LlamaServerPath and OllamaPath). A test that asks for a
// server that is not there is skipped, unless REACT_AGENT_REQUIRE_SERVERS
// is 1, as in CI: then it fails and says how to get the server.
//
// What the servers do, as they were seen doing it, is what the fakes of
// package modeltest imitate; the contract tests beside them hold the fakes
// to it.
package realserver
