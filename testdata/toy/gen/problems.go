package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A problem is a question and the steps that answer it: the calculator
// calls, in order, then the final answer.
type problem struct {
	kind     string
	question string
	steps    []step
	// answer is the final answer; for a problem with calls, filled in from
	// the last observation when it is empty.
	answer string
	// sig names the numbers of the question, so that no training question
	// has the numbers of a held-back one.
	sig string
	// judge says how eval judges the answer: by its number, or by text
	// it must contain.
	contains string
}

// A step is one calculator call. Its expression may name the results of
// earlier calls as {0}, {1}…
type step struct {
	thought string
	expr    string
	// mistake marks a call the model is shown failing but never taught to
	// write: the reply after its error is what it learns.
	mistake bool
}

// finalThought is the thought of every final answer, as the compact prompt
// words it.
const finalThought = "I know the answer"

// A maker draws problems of one kind. held says whether it draws the
// held-back set, whose wordings training never uses.
type maker struct {
	kind   string
	weight int
	make   func(g *gen, held bool) problem
}

// gen draws problems from one random source.
type gen struct {
	r *rand.Rand
	// leadins is the share of training questions whose wording is
	// replaced by a lead-in of words that say nothing, so that the model
	// learns to read the quantities and the operations, not the verb.
	leadins float64
}

// wording returns pick's wording of a question whose subject is key
// ("{p}"), or, for a share of training questions, key behind a lead-in
// of neutral words ("Okay so now the number {p}?").
func (g *gen) wording(held bool, key string, train, heldBack []string) string {
	if held || g.leadins == 0 || g.r.Float64() >= g.leadins {
		return g.pick(held, train, heldBack)
	}
	n := 1 + g.r.IntN(4)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = neutral[g.r.IntN(len(neutral))]
	}
	lead := strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:]
	return lead + []string{" ", ": ", ", "}[g.r.IntN(3)] + key + []string{"", ".", "?"}[g.r.IntN(3)]
}

// neutral are the words of lead-ins: none names an operation, a quantity
// or a word of the held-back wordings.
var neutral = strings.Fields(`please now okay so well hey friend quick question next here is the this a
	result value number answer tell me show give find compute calculate need want know see check
	what's what how much would you could can i'd like let's look at try exact final just real good
	one small thing today again also kindly`)

// pick returns one of the training wordings, or one of the held-back ones.
func (g *gen) pick(held bool, train, heldBack []string) string {
	if held {
		return heldBack[g.r.IntN(len(heldBack))]
	}
	return train[g.r.IntN(len(train))]
}

// between returns an integer in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// num writes n as questions do: with a thousands comma half the time.
func (g *gen) num(n int) string {
	s := strconv.Itoa(n)
	if n >= 1000 && g.r.IntN(2) == 0 {
		return commas(s)
	}
	return s
}

// commas puts a comma between the thousands of the digits s.
func commas(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// operand draws an operand: mostly small, sometimes in the hundreds or
// thousands.
func (g *gen) operand() int {
	switch g.r.IntN(10) {
	case 0, 1:
		return g.between(100, 999)
	case 2:
		return g.between(1000, 9999)
	}
	return g.between(2, 99)
}

// An op is an arithmetic operator as expressions and questions write it.
type op struct {
	sym   string
	words []string
}

var ops = []op{
	{"+", []string{"plus"}},
	{"-", []string{"minus"}},
	{"*", []string{"times", "multiplied by", "x"}},
	{"/", []string{"divided by"}},
}

// arithmetic is a question about two or three operands and operators,
// written with symbols or in words: one call.
func arithmetic(g *gen, held bool) problem {
	n := 2 + g.r.IntN(2)
	vals := make([]int, n)
	syms := make([]op, n-1)
	for i := range vals {
		vals[i] = g.operand()
	}
	for i := range syms {
		syms[i] = ops[g.r.IntN(len(ops))]
		if syms[i].sym == "/" {
			// An exact division: the left operand a multiple of the right.
			vals[i+1] = g.between(2, 20)
			vals[i] = vals[i+1] * g.between(2, 60)
		}
	}
	var q, expr, said strings.Builder
	tight := g.r.IntN(4) == 0 // 17*23+4
	verbal := g.r.IntN(3) == 0
	for i, v := range vals {
		shown := g.num(v)
		if i > 0 {
			o := syms[i-1]
			fmt.Fprintf(&expr, " %s ", o.sym)
			switch {
			case verbal:
				fmt.Fprintf(&q, " %s ", o.words[g.r.IntN(len(o.words))])
			case tight:
				q.WriteString(o.sym)
			default:
				fmt.Fprintf(&q, " %s ", o.sym)
			}
		}
		q.WriteString(shown)
		expr.WriteString(strconv.Itoa(v))
	}
	said.WriteString(q.String())
	e := expr.String()
	if !verbal && !strings.Contains(said.String(), ",") {
		e = said.String() // copied as the question writes it
	}
	question := fill(g.wording(held, "{e}", []string{
		"What is {e}?", "Compute {e}.", "Calculate {e}.", "What is the value of {e}?", "How much is {e}?",
		"Please compute {e}.", "Evaluate {e}.", "What does {e} equal?", "Find {e}.", "{e} = ?",
		"What is {e}", "what is {e}?", "Can you compute {e}?", "I need {e}.", "Give me {e}.",
		"{e}", "{e}?", "Quick: {e}", "Help me with {e}.", "What's {e}?", "Figure out {e}.", "Work this out: {e}",
		"How much do you get from {e}?", "Do the math: {e}", "Please calculate {e} for me.", "What number is {e}?",
		"I'd like to know {e}.", "Result of {e}?", "Tell me {e}.", "Could you find {e}?", "Answer this: {e}",
	}, []string{
		"Work out {e}.", "Tell me what {e} comes to.", "What do you get for {e}?", "Solve {e}.",
	}), "{e}", said.String())
	p := problem{kind: "arithmetic", question: question, sig: sig(vals...),
		steps: []step{{thought: "I will compute " + said.String() + ".", expr: e}}}
	return withMistake(g, held, p, said.String(), verbal || strings.Contains(said.String(), ","))
}

// A part is a quantity a question names in words, which one call computes.
type part struct {
	phrase string // "the square root of 144"
	expr   string // "sqrt(144)"
	naive  string // how a careless model writes it: "square root of 144"
	vals   []int
}

// partOf draws a part: a square root, a square, a cube, a power or a
// percentage.
func (g *gen) partOf(held bool) part {
	switch g.r.IntN(5) {
	case 0:
		n := g.between(2, 40)
		s := g.num(n * n)
		return part{"the square root of " + s, fmt.Sprintf("sqrt(%d)", n*n), "square root of " + s, []int{n * n}}
	case 1:
		n := g.between(2, 60)
		return part{fmt.Sprintf("%d squared", n), fmt.Sprintf("%d ** 2", n), fmt.Sprintf("%d squared", n), []int{n, 2}}
	case 2:
		n := g.between(2, 30)
		return part{fmt.Sprintf("%d cubed", n), fmt.Sprintf("%d ** 3", n), fmt.Sprintf("%d cubed", n), []int{n, 3}}
	case 3:
		n, k := g.between(2, 12), g.between(2, 9)
		phrase := g.pick(held, []string{"%d to the power of %d", "%d to the %dth power", "%d raised to %d"}, []string{"%d to the power of %d"})
		if strings.Contains(phrase, "th power") && k < 4 {
			phrase = "%d to the power of %d"
		}
		return part{fmt.Sprintf(phrase, n, k), fmt.Sprintf("%d ** %d", n, k), fmt.Sprintf("%d to the power of %d", n, k), []int{n, k}}
	}
	p := percents[g.r.IntN(len(percents))]
	n := g.between(1, 80) * 20
	if g.r.IntN(3) == 0 {
		n = g.between(1, 99) * 100
	}
	ns := g.num(n)
	word := g.pick(held, []string{" percent", "%"}, []string{" percent", "%"})
	return part{p + word + " of " + ns, fmt.Sprintf("%d * %s / 100", n, p), p + "% of " + ns, []int{n, pctSig(p)}}
}

var percents = []string{"5", "10", "12.5", "15", "20", "25", "30", "40", "50", "75", "2.5", "3.5", "7.5", "8", "6", "45", "60", "35", "1.5", "18"}

// pctSig turns a percentage into an integer for a signature.
func pctSig(p string) int {
	f, _ := strconv.ParseFloat(p, 64)
	return int(f * 10)
}

// single is a question about one part: one call.
func single(g *gen, held bool) problem {
	pt := g.partOf(held)
	question := fill(g.wording(held, "{p}", []string{
		"What is {p}?", "Compute {p}.", "Calculate {p}.", "What is {p}", "How much is {p}?", "Find {p}.",
		"What's {p}?", "Please work out {p}.", "Tell me {p}.", "I need {p}.", "What is the value of {p}?",
		"Give me {p}.", "Evaluate {p}.", "Quick: {p}?", "Do the math: {p}", "Can you compute {p}?", "{p}?",
		"How much do you get from {p}?", "Figure out {p}.", "Please calculate {p} for me.", "What number is {p}?",
		"I'd like to know {p}.", "Answer this: what is {p}?", "Could you find {p}?", "Help me with {p}.",
	}, []string{
		"Work out {p}.", "What do you get for {p}?", "Determine {p}.",
	}), "{p}", pt.phrase)
	p := problem{kind: "single", question: question, sig: sig(pt.vals...),
		steps: []step{{thought: "I will compute " + pt.phrase + ".", expr: pt.expr}}}
	if !held && g.r.IntN(6) == 0 {
		p.steps = append([]step{{thought: p.steps[0].thought, expr: pt.naive, mistake: true}}, p.steps...)
		p.steps[1].thought = "That did not work. I will write " + pt.expr + "."
	}
	return p
}

// A combination joins two quantities: its wordings, and the expression of
// the results.
type combination struct {
	train, held []string // with {x} and {y}
	expr        string   // with {x} and {y}
}

var combinations = []combination{
	{[]string{"Add {x} to {y}.", "What is {x} plus {y}?", "What is the sum of {x} and {y}?", "Add {x} and {y}.",
		"Compute {x} plus {y}.", "How much is {x} added to {y}?", "Find the sum of {x} and {y}.", "Sum {x} and {y}.",
		"What do {x} and {y} make together?", "Take {x}, then add {y}."},
		[]string{"Take {x} and add {y} to it.", "What do you get when you add {x} and {y}?"}, "{x} + {y}"},
	{[]string{"What is {x} minus {y}?", "What is the difference between {x} and {y}?", "Take {y} away from {x}.",
		"Compute {x} minus {y}.", "Find {x} minus {y}.", "What is left of {x} after taking away {y}?", "Take {x}, then subtract {y}."},
		[]string{"How much is {x} minus {y}?", "From {x}, take away {y}."}, "{x} - {y}"},
	{[]string{"Subtract {y} from {x}."}, []string{"What remains when you subtract {y} from {x}?"}, "{x} - {y}"},
	{[]string{"Multiply {x} by {y}.", "What is {x} times {y}?", "What is the product of {x} and {y}?",
		"Compute {x} times {y}.", "Find the product of {x} and {y}.", "Take {x}, then multiply it by {y}.", "How much is {x} multiplied by {y}?"},
		[]string{"What do you get when you multiply {x} by {y}?"}, "{x} * {y}"},
}

// compound is a question that joins two quantities, one or both of which
// a call computes first: two or three calls.
func compound(g *gen, held bool) problem {
	c := combinations[g.r.IntN(len(combinations))]
	wording := g.pick(held, c.train, c.held)
	x, y := g.partOf(held), g.partOf(held)
	plain := g.r.IntN(3)
	if plain > 0 { // one of the two is a plain number
		n := g.operand()
		pn := part{phrase: g.num(n), expr: strconv.Itoa(n), vals: []int{n}}
		if plain == 1 {
			x = pn
		} else {
			y = pn
		}
	}
	question := fill(fill(wording, "{x}", x.phrase), "{y}", y.phrase)
	var steps []step
	refs := map[string]string{}
	first := true
	// The parts are computed in the order the question names them.
	order := []struct {
		key string
		pt  part
	}{{"{x}", x}, {"{y}", y}}
	if strings.Index(wording, "{y}") < strings.Index(wording, "{x}") {
		order[0], order[1] = order[1], order[0]
	}
	for _, o := range order {
		if len(o.pt.vals) == 1 && o.pt.naive == "" {
			refs[o.key] = o.pt.expr
			continue
		}
		lead := "First, "
		if !first {
			lead = "Next, "
		}
		first = false
		refs[o.key] = fmt.Sprintf("{%d}", len(steps))
		steps = append(steps, step{thought: lead + o.pt.phrase + ".", expr: o.pt.expr})
	}
	combined := fill(fill(c.expr, "{x}", refs["{x}"]), "{y}", refs["{y}"])
	steps = append(steps, step{thought: "Now I compute " + combined + ".", expr: combined})
	return problem{kind: "compound", question: question, steps: steps, sig: sig(append(append([]int{}, x.vals...), y.vals...)...)}
}

// withMistake gives a training problem, now and then, a first call the
// calculator cannot read (a thousands comma, operators in words, "x"), so
// that the model learns the reply to an error.
func withMistake(g *gen, held bool, p problem, said string, readable bool) problem {
	if held || !readable || g.r.IntN(4) != 0 {
		return p
	}
	good := p.steps[0]
	p.steps = []step{
		{thought: good.thought, expr: said, mistake: true},
		{thought: "That did not work. I will write " + good.expr + ".", expr: good.expr},
	}
	return p
}

// negativeRoot asks for the square root of a negative number: the
// calculator's error is the answer.
func negativeRoot(g *gen, held bool) problem {
	n := g.between(2, 30)
	s := strconv.Itoa(n * n)
	question := fill(g.pick(held, []string{"What is the square root of -{n}?", "Compute the square root of -{n}.", "Find the square root of -{n}."},
		[]string{"Work out the square root of -{n}."}), "{n}", s)
	return problem{kind: "error", question: question, sig: sig(-n * n),
		steps:    []step{{thought: "I will compute the square root of -" + s + ".", expr: "sqrt(-" + s + ")"}},
		answer:   "-" + s + " has no real square root.",
		contains: "no real square root"}
}

var words = strings.Fields(`apple river blue green stone cloud seven orange tiger paper window silver
	garden music yellow rabbit winter summer bridge candle forest ocean purple mountain coffee lemon
	pencil rocket simple quiet happy little bright golden`)

var capitals = [][2]string{{"France", "Paris"}, {"Germany", "Berlin"}, {"Italy", "Rome"}, {"Spain", "Madrid"},
	{"Japan", "Tokyo"}, {"Canada", "Ottawa"}, {"Egypt", "Cairo"}, {"Peru", "Lima"}, {"Norway", "Oslo"},
	{"Kenya", "Nairobi"}, {"Greece", "Athens"}, {"Poland", "Warsaw"}}

// phrase draws two to four words.
func (g *gen) phrase() string {
	n := 2 + g.r.IntN(3)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[g.r.IntN(len(words))]
	}
	return strings.Join(ws, " ")
}

// direct is a question the model answers without a tool.
func direct(g *gen, held bool) problem {
	const thought = "I can answer this without a tool."
	switch g.r.IntN(4) {
	case 0, 1:
		ph := g.phrase()
		q := fill(g.wording(held, "{w}", []string{"Repeat after me: {w}", "Say \"{w}\".", "Repeat these words: {w}", "Write {w}.", "Please say: {w}"},
			[]string{"Echo these words: {w}", "Copy this: {w}"}), "{w}", ph)
		return problem{kind: "direct", question: q, answer: ph, contains: ph, steps: nil}
	case 2:
		c := capitals[g.r.IntN(len(capitals))]
		q := fill(g.pick(held, []string{"What is the capital of {c}?", "Which city is the capital of {c}?", "Name the capital of {c}.", "What's the capital of {c}?"},
			[]string{"Tell me the capital city of {c}."}), "{c}", c[0])
		return problem{kind: "direct", question: q, answer: c[1], contains: c[1]}
	}
	q := g.pick(held, []string{"Hello!", "Hi.", "Hello, who are you?", "Good morning!", "Hey there."}, []string{"Hi there!"})
	return problem{kind: "direct", question: q, answer: "Hello! Ask me a question and I will answer it.", contains: "Hello"}
}

var makers = []maker{
	{"arithmetic", 30, arithmetic},
	{"single", 20, single},
	{"compound", 35, compound},
	{"error", 4, negativeRoot},
	{"direct", 11, direct},
}

// draw returns a problem of a kind drawn by weight.
func (g *gen) draw(held bool) problem {
	total := 0
	for _, m := range makers {
		total += m.weight
	}
	n := g.r.IntN(total)
	for _, m := range makers {
		if n < m.weight {
			return m.make(g, held)
		}
		n -= m.weight
	}
	panic("unreachable")
}

// fill replaces key in s with v.
func fill(s, key, v string) string { return strings.ReplaceAll(s, key, v) }

// sig names a question's numbers, in order.
func sig(vals ...int) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, " ")
}
