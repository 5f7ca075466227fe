package logs_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/react-agent/react-agent/agent/logs"
)

func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "logs")
	defer os.RemoveAll(dir)
	store, err := logs.Open(ctx, filepath.Join(dir, "logs.db"), logs.WithSecrets("my-api-key-123"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	// A run, written as the agent reports it.
	rec, err := store.Start(ctx, logs.Run{Conversation: "c0ffee000001", Question: "What is 17 * 23 + 4?", Model: "qwen2.5:7b"})
	if err != nil {
		log.Fatal(err)
	}
	rec.Add(ctx, logs.Event{Kind: "action", Iteration: 1, Tool: "calculator", Args: map[string]any{"expression": "17 * 23 + 4"}})
	rec.Add(ctx, logs.Event{Kind: "observation", Iteration: 1, Tool: "calculator", Text: "395"})
	rec.Finish(ctx, logs.Outcome{Answer: "395", StopReason: "final_answer"})

	// Search it, and continue it.
	list, _ := store.List(ctx, logs.Query{Text: "calculator"})
	for _, c := range list {
		fmt.Println(c.ID, c.Status, c.Question)
	}
	latest, _ := store.Latest(ctx)
	turns, _ := store.Turns(ctx, latest)
	fmt.Printf("%+v\n", turns)
	// Output:
	// c0ffee000001 answered What is 17 * 23 + 4?
	// [{Question:What is 17 * 23 + 4? Answer:395}]
}
