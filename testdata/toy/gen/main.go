// Command gen writes what the toy model learns from and is judged on:
// ReAct transcripts of arithmetic questions, run through the agent's own
// loop with its compact prompt and its calculator, so that every prompt is
// the one the agent sends and every observation the one it reads.
//
//	go run ./testdata/toy/gen -out /tmp/toy
//
// With -native, transcripts of the native protocol too: the agent's loop
// with native tool calls, each prompt rendered as llama-server and as
// Ollama render it (package chatml), each call written after its thought
// as that server's template writes it in the history.
//
// writes, in the folder given:
//
//   - train.jsonl: one model call a line, {"f", "p", "s", "r", "t"}: its
//     family (protocol and tools), the prompt as the chat template renders
//     it, the length in bytes of the prompt's start that every call of the
//     family shares (the system part), the reply the model is taught, and
//     where the prompt holds earlier replies it is taught (the steps of
//     the scratchpad, mistakes left out);
//   - heldout-calls.jsonl: the calls of the held-back questions, in the
//     same form, which training never sees;
//
// and the held-back question set, for eval, to -questions
// (testdata/toy/heldout.jsonl).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/react-agent/react-agent/agent"
	"github.com/react-agent/react-agent/agent/modeltest/chatml"
	"github.com/react-agent/react-agent/parser"
	"github.com/react-agent/react-agent/prompt"
	"github.com/react-agent/react-agent/tools"
)

func main() {
	seed := flag.Uint64("seed", 1, "the seed of the random draws")
	n := flag.Int("n", 60000, "training questions")
	held := flag.Int("heldout", 24, "held-back questions")
	out := flag.String("out", "", "the folder to write train.jsonl and heldout-calls.jsonl to")
	questions := flag.String("questions", "", "the file to write the held-back question set to, for eval")
	trainSeed := flag.Uint64("train-seed", 0, "the seed of the training draws, when not -seed (the held-back set stays -seed's)")
	leadins := flag.Float64("leadins", 0, "the share of training questions worded as a lead-in of neutral words and the quantity")
	native := flag.Int("native", 0, "the weight of each native family (the calculator's tool calls as llama-server and as Ollama render them) "+
		"beside the text protocol's 4 and 2 and the object protocol's 2 and 1; 0 for none, held-back calls included")
	bare := flag.Bool("bare", false, `write the native protocol's answers as the number alone, without "The answer is" (the first part of the toy's third stage)`)
	flag.Parse()
	if *trainSeed == 0 {
		*trainSeed = *seed
	}
	if *out == "" {
		log.Fatal("gen: -out is needed: the folder to write the transcripts to")
	}
	if *native < 0 {
		log.Fatal("gen: -native is a weight, 0 or more")
	}
	if err := run(context.Background(), *seed, *trainSeed, *leadins, *native, *bare, *n, *held, *out, *questions); err != nil {
		log.Fatal(err)
	}
}

// A family is a protocol and a set of tools: each has a system part of
// its own.
type family struct {
	name   string
	object bool // the JSON object protocol
	all    bool // every default tool, not the calculator alone
	weight int
	// native is the server whose rendering of the native protocol's
	// prompts the family's are; empty for the text and object protocols.
	native chatml.Server
	// bare writes the native protocol's answers as the number alone.
	bare bool
}

// familiesOf returns the families transcripts are written in, the native
// ones with the weight native (none when 0). The native protocol offers
// the calculator alone: the definitions of the three default tools take
// more tokens than the toy model's window holds. bare writes their
// answers as the number alone.
func familiesOf(native int, bare bool) []family {
	fs := []family{
		{name: "text/calculator", weight: 4},
		{name: "text/all", all: true, weight: 2},
		{name: "object/calculator", object: true, weight: 2},
		{name: "object/all", object: true, all: true, weight: 1},
	}
	if native > 0 {
		fs = append(fs, family{name: "native-llama/calculator", native: chatml.LlamaServer, weight: native, bare: bare},
			family{name: "native-ollama/calculator", native: chatml.Ollama, weight: native, bare: bare})
	}
	return fs
}

func run(ctx context.Context, seed, trainSeed uint64, leadins float64, native int, bare bool, n, nheld int, out, questions string) error {
	families := familiesOf(native, bare)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	all, err := tools.Builtins(tools.DefaultOptions())
	if err != nil {
		return err
	}
	calc, _ := all.Get("calculator")
	only, err := tools.NewRegistry(calc)
	if err != nil {
		return err
	}

	// The held-back questions first, from a source of their own, with
	// the held-back wordings.
	hg := &gen{r: rand.New(rand.NewPCG(seed, 0x4e1d))}
	var heldout []problem
	seen := map[string]bool{}
	for len(heldout) < nheld {
		m := heldMix[len(heldout)%len(heldMix)]
		p := m(hg, true)
		key := p.sig
		if key == "" {
			key = p.question
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		heldout = append(heldout, p)
	}

	calls, err := create(filepath.Join(out, "heldout-calls.jsonl"))
	if err != nil {
		return err
	}
	var set []map[string]any
	for i, p := range heldout {
		for _, f := range families {
			reg := only
			if f.all {
				reg = all
			}
			ex, answer, err := transcript(ctx, p, f, reg, calc)
			if err != nil {
				return fmt.Errorf("held-back question %q: %w", p.question, err)
			}
			for _, e := range ex {
				calls.write(e)
			}
			if f.name == "text/calculator" {
				q := map[string]any{"id": fmt.Sprintf("h%02d-%s", i+1, p.kind), "question": p.question, "tools": []string{"calculator"}}
				if p.contains != "" {
					q["contains"] = p.contains
				} else {
					v, err := strconv.ParseFloat(answer, 64)
					if err != nil {
						return fmt.Errorf("held-back question %q: the answer %q is not a number", p.question, answer)
					}
					q["number"] = v
				}
				set = append(set, q)
			}
		}
	}
	if err := calls.close(); err != nil {
		return err
	}
	if questions != "" {
		if err := writeQuestions(questions, seed, set); err != nil {
			return err
		}
	}

	g := &gen{r: rand.New(rand.NewPCG(trainSeed, 0x7a1)), leadins: leadins}
	train, err := create(filepath.Join(out, "train.jsonl"))
	if err != nil {
		return err
	}
	total := 0
	for _, f := range families {
		total += f.weight
	}
	for made := 0; made < n; {
		p := g.draw(false)
		if seen[p.sig] || seen[p.question] {
			continue // the numbers or the question of a held-back one
		}
		k := g.r.IntN(total)
		f := families[0]
		for _, f = range families {
			if k < f.weight {
				break
			}
			k -= f.weight
		}
		reg := only
		if f.all {
			reg = all
		}
		ex, _, err := transcript(ctx, p, f, reg, calc)
		if err != nil {
			return fmt.Errorf("question %q: %w", p.question, err)
		}
		for _, e := range ex {
			train.write(e)
		}
		made++
	}
	return train.close()
}

// heldMix is the mix of the held-back set, in turn: per eight questions,
// two calculations written out, two quantities named in words, three
// questions that join two of them, and one answered without the
// calculator or from its error.
var heldMix = []func(*gen, bool) problem{arithmetic, compound, single, compound, arithmetic, single, compound, direct,
	arithmetic, compound, single, compound, arithmetic, single, compound, negativeRoot}

// An example is one model call and the reply the model is taught.
type example struct {
	Family string `json:"f"`
	Prompt string `json:"p"`
	Shared int    `json:"s"`
	Reply  string `json:"r"`
	// Steps are the byte ranges of the prompt that hold earlier replies
	// the model is taught.
	Steps [][2]int `json:"t,omitempty"`
}

// transcript runs the agent on p, with the replies the plan of p says,
// and returns the calls the model is taught (those that are not
// mistakes) and the final answer.
func transcript(ctx context.Context, p problem, f family, reg *tools.Registry, calc tools.Tool) ([]example, string, error) {
	var replies []string
	var calls []*llms.ContentChoice // the native protocol's replies
	var taught []bool
	obs := map[int]string{}
	answer := p.answer
	format := prompt.FormatStep
	tmpl := prompt.Compact()
	if f.object {
		format, tmpl = prompt.FormatObject, tmpl.Object()
	}
	reply := func(st parser.Step) (string, error) {
		if f.native == "" {
			return format(st), nil
		}
		if st.Kind == parser.KindFinal {
			calls = append(calls, &llms.ContentChoice{Content: st.FinalAnswer, StopReason: "stop"})
			return st.FinalAnswer, nil
		}
		// The call comes after the thought, as the text protocol's does:
		// what the model means to do is said in the history the next
		// call reads, and it is what tells a question that needs one
		// more call from one that is answered.
		args := prompt.FormatArgs(st.Args)
		calls = append(calls, &llms.ContentChoice{Content: st.Thought, StopReason: "tool_calls", ToolCalls: []llms.ToolCall{{
			ID: fmt.Sprintf("call_%d", len(calls)+1), Type: "function", FunctionCall: &llms.FunctionCall{Name: st.Action, Arguments: args}}}})
		call, err := chatml.Call(f.native, st.Action, args)
		return st.Thought + "\n" + call, err
	}
	for i, s := range p.steps {
		expr, thought := s.expr, s.thought
		for j, o := range obs {
			expr = strings.ReplaceAll(expr, fmt.Sprintf("{%d}", j), o)
			thought = strings.ReplaceAll(thought, fmt.Sprintf("{%d}", j), o)
		}
		out, err := calc.Call(ctx, map[string]any{"expression": expr})
		if s.mistake && err == nil {
			continue // the calculator reads it: no mistake to learn from
		}
		if err == nil {
			obs[i] = out
			if p.answer == "" {
				answer = out
			}
		} else if !s.mistake && p.contains == "" {
			return nil, "", fmt.Errorf("the calculator cannot compute %q: %w", expr, err)
		}
		r, err := reply(parser.Step{Kind: parser.KindAction, Thought: thought, Action: "calculator",
			Args: map[string]any{"expression": expr}})
		if err != nil {
			return nil, "", err
		}
		replies = append(replies, r)
		taught = append(taught, !s.mistake)
	}
	thought := finalThought
	if len(p.steps) == 0 {
		thought = "I can answer this without a tool."
	}
	final := answer
	if f.native != "" && p.contains == "" && !f.bare {
		// A native answer has no label before it: a few words lead to
		// the number, as the text protocol's "Final Answer:" does.
		final = "The answer is " + answer + "."
	}
	r, err := reply(parser.Step{Kind: parser.KindFinal, Thought: thought, FinalAnswer: final})
	if err != nil {
		return nil, "", err
	}
	replies = append(replies, r)
	taught = append(taught, true)

	m := &scripted{replies: replies, calls: calls, server: f.native}
	opts := []agent.Option{agent.WithTemplate(tmpl), agent.WithConstrain(agent.ConstrainOff), agent.WithRetries(0, 0, 0)}
	if f.native != "" {
		opts = append(opts, agent.WithProtocol(agent.ProtocolNative))
	}
	a := agent.New(m, reg, opts...)
	res, err := a.Run(ctx, p.question)
	if err != nil {
		return nil, "", err
	}
	if res.Answer != final || len(m.prompts) != len(replies) {
		return nil, "", fmt.Errorf("the agent answered %q in %d calls; the plan was %q in %d", res.Answer, len(m.prompts), final, len(replies))
	}
	var ex []example
	for i, pr := range m.prompts {
		if !taught[i] {
			continue
		}
		e := example{Family: f.name, Prompt: pr.text, Shared: pr.shared, Reply: replies[i]}
		// The earlier replies stand in the scratchpad as the model wrote
		// them: it learns from them there too. Ollama's template writes a
		// native call's text without the call when there is text: that
		// much of the reply stands there.
		at := pr.shared
		for j := range i {
			shown := replies[j]
			k := strings.Index(pr.text[at:], shown)
			if k < 0 && f.native != "" && calls[j].Content != "" {
				shown = calls[j].Content
				k = strings.Index(pr.text[at:], shown)
			}
			if k < 0 {
				return nil, "", fmt.Errorf("reply %d is not in the scratchpad of call %d", j+1, i+1)
			}
			at += k
			if taught[j] {
				e.Steps = append(e.Steps, [2]int{at, at + len(shown)})
			}
			at += len(shown)
		}
		ex = append(ex, e)
	}
	return ex, answer, nil
}

// scripted is a model that replies from a script and keeps each prompt
// as the chat template renders it: the text protocol's replies, or the
// native protocol's calls and answer, rendered as server renders them.
type scripted struct {
	replies []string
	calls   []*llms.ContentChoice
	server  chatml.Server
	prompts []rendered
}

// rendered is a prompt as the model reads it, and the length of its
// system part.
type rendered struct {
	text   string
	shared int
}

func (m *scripted) GenerateContent(_ context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	i := len(m.prompts)
	if i >= len(m.replies) {
		return nil, errors.New("gen: the script has no more replies")
	}
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	server := m.server
	if server == "" {
		if len(msgs) != 2 || msgs[0].Role != llms.ChatMessageTypeSystem || msgs[1].Role != llms.ChatMessageTypeHuman {
			return nil, fmt.Errorf("gen: the text protocol sends a system and a user message, not %d messages", len(msgs))
		}
		// The toy model's chat template (gguf.ToolsTemplate, and Ollama's
		// version of it) renders a system and a user message alike on
		// both servers.
		server = chatml.LlamaServer
	}
	text, err := chatml.Render(server, msgs, o.Tools)
	if err != nil {
		return nil, err
	}
	// The system part ends where the user's turn starts.
	const user = "<|im_end|>\n<|im_start|>user\n"
	shared := strings.Index(text, user)
	if shared < 0 {
		return nil, fmt.Errorf("gen: no user's turn in the prompt %q", text)
	}
	m.prompts = append(m.prompts, rendered{text, shared + len(user)})
	if m.server == "" {
		return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: m.replies[i], StopReason: "stop"}}}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{m.calls[i]}}, nil
}

func (m *scripted) Call(ctx context.Context, p string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, p, opts...)
}

// jsonl writes JSON Lines to a file.
type jsonl struct {
	f   *os.File
	w   *bufio.Writer
	err error
}

func create(path string) (*jsonl, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &jsonl{f: f, w: bufio.NewWriter(f)}, nil
}

func (j *jsonl) write(v any) {
	if j.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		j.err = err
		return
	}
	j.w.Write(b)
	j.err = j.w.WriteByte('\n')
}

func (j *jsonl) close() error {
	if err := j.w.Flush(); j.err == nil {
		j.err = err
	}
	if err := j.f.Close(); j.err == nil {
		j.err = err
	}
	return j.err
}

// writeQuestions writes the held-back question set for eval.
func writeQuestions(path string, seed uint64, set []map[string]any) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The toy model's held-back questions (go run ./testdata/toy/gen -seed %d): numbers and wordings\n", seed)
	b.WriteString("# it never saw in training. Each answer is judged by its number, or by a text it must hold.\n")
	for _, q := range set {
		line, err := json.Marshal(q)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
