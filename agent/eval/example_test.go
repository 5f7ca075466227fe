package eval_test

import (
	"context"
	"fmt"
	"os"

	"github.com/react-agent/react-agent/agent/eval"
)

func ExampleReport_WriteTable() {
	n := 395.0
	qs := []eval.Question{{ID: "sum", Question: "What is 17 * 23 + 4?", Number: &n}}
	targets, _ := eval.ParseTargets([]string{"ollama:qwen2.5:7b", "ollama:llama3.1:8b"}, []string{"text"})
	// A real Runner builds the model and the agent; this one pretends.
	run := func(_ context.Context, t eval.Target, q eval.Question) (eval.Result, error) {
		if t.Model == "ollama:qwen2.5:7b" {
			return eval.Result{Answer: "17 * 23 + 4 = 395", Steps: 2}, nil
		}
		return eval.Result{Answer: "391", Steps: 3, ParseErrors: 1}, nil
	}
	r, _ := eval.Run(context.Background(), targets, qs, run, eval.Options{})
	r.HideTime = true
	r.WriteTable(os.Stdout)
	// Output:
	// model               protocol  correct   steps mean/median  format errors  recovered  forced  failed  tokens in/out
	// ollama:qwen2.5:7b   text      1/1 100%  2.0 / 2            0              0          0       0       0 / 0
	// ollama:llama3.1:8b  text      0/1 0%    3.0 / 3            1              0          0       0       0 / 0
}

func ExampleCassette() {
	t := eval.Target{Model: "ollama:qwen2.5:7b@http://127.0.0.1:11434", Protocol: eval.Text}
	for _, id := range []string{"a/1", "a_1", "a:1"} {
		fmt.Println(eval.Cassette(t, eval.Question{ID: id}))
	}
	// Output:
	// ollama_qwen2.5_7b_text_a_1_23ded97a.jsonl
	// ollama_qwen2.5_7b_text_a_1_d90568eb.jsonl
	// ollama_qwen2.5_7b_text_a_1_2a5a9e88.jsonl
}
