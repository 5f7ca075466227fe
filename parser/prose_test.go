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
