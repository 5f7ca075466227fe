package score_test

import (
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/parser/score"
)

func Example() {
	corpus := `{"id": 1, "text": "Thought: look it up\nAction: Search\nAction Input: zig", "expect": {"action": "Search", "input": "zig"}}
{"id": 2, "text": "Final Answer: Zig is a language.", "expect": {"final_answer_prefix": "Zig"}}
{"id": 3, "text": "Action: None needed.", "expect": {"final_answer": "no"}}
{"id": 4, "text": "not a case"}
`
	c, err := score.Read(strings.NewReader(corpus))
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, _ := score.Names("Search")
	rep := c.Score(tools)
	fmt.Printf("%d of %d (%.0f%%)\n", rep.Passed, rep.Total, 100*rep.Accuracy())
	for _, f := range rep.Failures {
		fmt.Printf("line %d: %s\n", f.Line, f.Reason)
	}
	for _, m := range rep.Malformed {
		fmt.Println(m)
	}
	// Output:
	// 2 of 3 (67%)
	// line 3: a parse error where a step is labelled
	// line 4: not a labelled reply: no "expect"
}
