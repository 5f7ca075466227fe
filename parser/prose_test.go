package parser_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// TestProseThatIsNotAnAnswer reads testdata/parser/prose.jsonl: replies
// with no labels, each marked as an honest answer or as prose that is not
// one (a plan, a stock line, the tool gate, a sentence cut off, code).
// Every honest answer must stay the final answer, as written, and every
// other reply must be a parse error that tells the model what to write.
func TestProseThatIsNotAnAnswer(t *testing.T) {
	f, err := os.Open("../testdata/parser/prose.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := parser.New(builtins)
	var kept, answers, caught, others int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ex struct {
			Text   string
			Answer bool
			Kind   string
		}
		if err := json.Unmarshal(sc.Bytes(), &ex); err != nil {
			t.Fatal(err)
		}
		st, err := p.Parse(ex.Text)
		if ex.Answer {
			answers++
			if err != nil || st.Kind != parser.KindFinal || st.FinalAnswer != ex.Text {
				t.Errorf("honest answer %q: got %+v, %v", ex.Text, st, err)
				continue
			}
			kept++
			continue
		}
		others++
		if !errors.Is(err, parser.ErrNotAnAnswer) {
			t.Errorf("%s %q: got %+v, %v; want ErrNotAnAnswer", ex.Kind, ex.Text, st, err)
			continue
		}
		caught++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("honest answers kept: %d of %d; other prose caught: %d of %d", kept, answers, caught, others)
}

func TestGateAnswer(t *testing.T) {
	runCases(t, []parseCase{
		{"gate, then AI", "Do I need to use a tool? No\nAI: Paris is the capital.", final("", "Paris is the capital.")},
		{"gate as a thought, then AI", "Thought: Do I need to use a tool? No\nAI: 4", final("", "4")},
	})
}

func TestAnAnswerAfterAStockLine(t *testing.T) {
	runCases(t, []parseCase{
		{"after the stock line, on the next line", "I now know the final answer.\nParis is the capital.", final("I now know the final answer.", "Paris is the capital.")},
		{"after a colon", "I now know the final answer: Paris.", final("I now know the final answer", "Paris.")},
		{"after a stock line with a word of praise", "Thought: I now can give a great answer\n\nSales grew 5%.", final("I now can give a great answer", "Sales grew 5%.")},
		{"in a thought", "Thought: The page says so. I now know the final answer.\nZig is a language.", final("The page says so. I now know the final answer.", "Zig is a language.")},
		{"in a thought, after a colon", "Thought: I have the final answer: 42", final("I have the final answer", "42")},
		{"a question echoed before", "Question: 2+2?\nThought: I now know the final answer\n4", final("I now know the final answer", "4")},
		{"an action after it wins", "Thought: I now know the final answer.\nAction: calculator\nAction Input: 1", action("I now know the final answer.", "calculator", obj{"expression": "1"})},
	})
	p := parser.New(builtins)
	for _, text := range []string{
		"Thought: I now know the final answer",                      // nothing after it
		"Thought: I now know the answer. I will search to confirm.", // a plan after it
	} {
		if st, err := p.Parse(text); !errors.Is(err, parser.ErrNoAction) {
			t.Errorf("Parse(%q) = %+v, %v; want ErrNoAction", text, st, err)
		}
	}
}

// gateBranches are LangChain's conversational tool gate inside a line,
// and inside an unclosed <think>: 2e78e25 read the gate only where it
// began its line, and so took some of these for answers.
var gateBranches = shapeTable{why: "the conversational agent's tool gate is read anywhere in a line, and inside an unclosed <think>", tools: builtins,
	cases: []parseCase{
		{"answered No inside an unclosed think", "<think>The user thanks me, so no lookup is needed. Do I need to use a tool? No\nAI: Glad to help.",
			final("", "Glad to help.")},
		{"after a dash inside an unclosed think", "<think>\nThe user says hi — do I need to use a tool? No\nAI: Hi there!", final("", "Hi there!")},
		{"with words after No inside an unclosed think", "<think>Let me see. Do I need to use a tool? No. I can answer directly.\nAI: Paris.", final("", "Paris.")},
		{"the answer on the gate's line", "The user greets me. Do I need to use a tool? No AI: Hello!", final("", "Hello!")},
		{"the answer on the gate's line, after a thought's label", "Thought: The user greets me. Do I need to use a tool? No. AI: Hello!", final("", "Hello!")},
		{"the answer on the gate's line inside an unclosed think", "<think>The user greets me. Do I need to use a tool? No AI: Hello!", final("", "Hello!")},
		{"answered Yes, the call on its line", "The user asks for the weather. Do I need to use a tool? Yes Action: web_search Action Input: Lisbon weather",
			action("The user asks for the weather. Do I need to use a tool? Yes", "web_search", obj{"query": "Lisbon weather"})},
		{"answered Yes, the call on its line and below it", "The user asks for the weather. Do I need to use a tool? Yes, Action: web_search\nAction Input: Lisbon weather",
			action("The user asks for the weather. Do I need to use a tool? Yes,", "web_search", obj{"query": "Lisbon weather"})},
		{"answered Yes inside an unclosed think", "<think>The user asks for the weather. Do I need to use a tool? Yes Action: web_search Action Input: Lisbon weather",
			action("Do I need to use a tool? Yes", "web_search", obj{"query": "Lisbon weather"})},
	},
	errors: []errCase{
		{"answered No and no answer", "Thought: The user thanks me. Do I need to use a tool? No", parser.ErrNotAnAnswer, "says no tool is needed"},
		{"answered Yes and no call", "The user asks for the weather. Do I need to use a tool? Yes", parser.ErrNotAnAnswer, "asks whether a tool is needed"},
	}}

func TestTheToolGateIsReadAnywhereInALine(t *testing.T) {
	gateBranches.run(t)
}

func TestWhatIsNoToolGateStaysWhatItWas(t *testing.T) {
	runCases(t, []parseCase{
		{"the gate opening its line", "Do I need to use a tool? No\nAI: Glad to help.", final("", "Glad to help.")},
		{"answered Yes and words before the Action below", "Do I need to use a tool? Yes, the search.\nAction: web_search\nAction Input: zig",
			action("Do I need to use a tool? Yes, the search.", "web_search", obj{"query": "zig"})},
		{"a Final Answer after the gate", "The user greets me. Do I need to use a tool? No\nFinal Answer: Hi", final("The user greets me. Do I need to use a tool? No", "Hi")},
		{"another question", "I wonder whether I need to use a tool? No idea, so: Paris.", final("", "I wonder whether I need to use a tool? No idea, so: Paris.")},
		{"the question inside a word", "Tododo I need to use a tool? No AI: x", final("", "Tododo I need to use a tool? No AI: x")},
	})
}
