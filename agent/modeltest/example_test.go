package modeltest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// A raw chat call to a fake Ollama server. The scripted reply runs on into
// an observation the model made up, and the server cuts it at the stop
// sequence the client sent, as a real one does.
func ExampleNewOllama() {
	srv := modeltest.NewOllama([]string{
		"Thought: I will add.\nAction: add\nAction Input: {\"a\": 17, \"b\": 25}\nObservation: 99",
	}, modeltest.Model("qwen2.5:7b"))
	defer srv.Close()

	body := `{"model": "qwen2.5:7b", "stream": false,
		"messages": [{"role": "user", "content": "What is 17 + 25?"}],
		"options": {"stop": ["\nObservation:"]}}`
	resp, err := http.Post(srv.URL+"/api/chat", "application/json", strings.NewReader(body))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var reply struct {
		Message struct{ Content string }
	}
	if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(reply.Message.Content)
	fmt.Println(srv.Calls(), "call, for model", srv.Request(0)["model"])
	// Output:
	// Thought: I will add.
	// Action: add
	// Action Input: {"a": 17, "b": 25}
	// 1 call, for model qwen2.5:7b
}

// A fake OpenAI server whose first call fails as an overloaded server's
// does. The failed call uses up no reply, so a retry gets the first one.
func ExampleFail() {
	srv := modeltest.NewOpenAI([]string{"Final Answer: 42"}, modeltest.Fail(1, http.StatusServiceUnavailable))
	defer srv.Close()

	body := `{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "q"}]}`
	for range 2 {
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			fmt.Println(err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var reply struct {
			Choices []struct{ Message struct{ Content string } }
			Error   struct{ Message string }
		}
		json.Unmarshal(b, &reply)
		if resp.StatusCode != http.StatusOK {
			fmt.Println(resp.StatusCode, reply.Error.Message)
			continue
		}
		fmt.Println(resp.StatusCode, reply.Choices[0].Message.Content)
	}
	// Output:
	// 503 The server is overloaded or not ready yet.
	// 200 Final Answer: 42
}
