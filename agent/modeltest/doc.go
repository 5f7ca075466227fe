// Package modeltest runs fake model servers that speak the Ollama and
// OpenAI-compatible chat protocols, so that agents and the real langchaingo
// clients can be tested offline, on loopback.
//
// A server answers chat calls with scripted replies, in order. Like a real
// server it cuts each reply at the first of the request's stop sequences,
// so a script may run on past an action into a made-up observation, as
// models do, and test that the client asked to stop there:
//
//	replies, err := modeltest.LoadReplies("testdata/agent/server/two_steps.json")
//	if err != nil {
//		t.Fatal(err)
//	}
//	srv := modeltest.NewOllama(replies, modeltest.Model("qwen2.5:7b"))
//	defer srv.Close()
//	// Point the client at srv.URL.
//
// [NewOllama] serves /api/chat, streaming NDJSON unless the request says
// "stream": false; [NewOpenAI] serves /v1/chat/completions as plain JSON or
// as server-sent events. Options script what goes wrong: [Fail] fails a
// call with an HTTP status, [Model] and [APIKey] reject unknown models and
// wrong keys, and [Hang] keeps every call waiting until the client gives
// up. Every error carries the body the real server would send.
// [Server.Calls] and [Server.Request] tell a test what the client sent.
//
// The fakes imitate what the real servers were seen doing, not what they
// are believed to do: contract tests (contract_test.go) send the same
// requests to a fake and to the real server it imitates, run by package
// realserver, and compare the shape of the answers: status, media type,
// stream framing, the fields of each JSON body and their types, and the
// values that carry meaning, such as why a reply stopped. [NoTools],
// [ContextSize] and [ErrorInStream] imitate a chat template without tools,
// a prompt over the context window and a stream that fails once begun.
//
// Like net/http/httptest, the package is meant for tests. Replies are
// streamed in the pieces model.Chunks cuts, as the replay provider streams
// a cassette, or in pieces of the size [Pieces] gives.
package modeltest
