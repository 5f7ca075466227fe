package tools

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

const calculatorName = "calculator"

// Bounds on the work one expression may ask for. Together with expr's own
// node budget they keep every expression quick to parse, compile and run.
const (
	maxExpressionBytes = 4096
	maxNesting         = 64
)

// isConstant reports whether name is one of the only names an expression
// may read as a value.
func isConstant(name string) bool { return name == "pi" || name == "e" }

// calcFunctions are the only functions an expression may call.
var calcFunctions = []string{"sqrt", "pow", "abs", "floor", "ceil", "round", "min", "max", "log", "log10", "exp", "sin", "cos", "tan"}

// calcOperators are the binary operators an expression may use.
var calcOperators = []string{"+", "-", "*", "/", "%", "**", "^"}

// calculator evaluates arithmetic with expr, in float64. Its expr
// environment holds only the constants and functions above: built-ins such
// as len or now are disabled, and the syntax tree is checked so that
// strings, comparisons, arrays and the like are refused before compiling.
type calculator struct {
	env     map[string]any
	options []expr.Option
}

func newCalculator() *calculator {
	unary := func(name string, f func(float64) (float64, error)) expr.Option {
		return expr.Function(name, func(p ...any) (any, error) {
			return f(p[0].(float64))
		}, new(func(float64) float64))
	}
	binary := func(name string, f func(x, y float64) (float64, error)) expr.Option {
		return expr.Function(name, func(p ...any) (any, error) {
			return f(p[0].(float64), p[1].(float64))
		}, new(func(float64, float64) float64))
	}
	plain := func(name string, f func(float64) float64) expr.Option {
		return unary(name, func(x float64) (float64, error) { return f(x), nil })
	}
	fold := func(name string, f func(x, y float64) float64) expr.Option {
		return expr.Function(name, func(p ...any) (any, error) {
			acc := p[0].(float64)
			for _, v := range p[1:] {
				acc = f(acc, v.(float64))
			}
			return acc, nil
		}, new(func(float64, ...float64) float64))
	}
	env := map[string]any{"pi": math.Pi, "e": math.E}
	opts := []expr.Option{
		expr.Env(env),
		expr.DisableAllBuiltins(),
		expr.Patch(floatLiterals{}),
		// Operators go through checked functions so that overflow and
		// division by zero are errors, not +Inf.
		binary("_add", checked2("+", func(x, y float64) float64 { return x + y })),
		binary("_sub", checked2("-", func(x, y float64) float64 { return x - y })),
		binary("_mul", checked2("*", func(x, y float64) float64 { return x * y })),
		binary("_div", divide),
		binary("_mod", modulo),
		binary("_pow", power),
		expr.Operator("+", "_add"),
		expr.Operator("-", "_sub"),
		expr.Operator("*", "_mul"),
		expr.Operator("/", "_div"),
		expr.Operator("%", "_mod"),
		expr.Operator("**", "_pow"),
		expr.Operator("^", "_pow"),
		unary("sqrt", func(x float64) (float64, error) {
			if x < 0 {
				return 0, fmt.Errorf("sqrt(%s): the square root of a negative number is not a real number", formatNumber(x))
			}
			return math.Sqrt(x), nil
		}),
		binary("pow", power),
		plain("abs", math.Abs),
		plain("floor", math.Floor),
		plain("ceil", math.Ceil),
		plain("round", math.Round),
		fold("min", math.Min),
		fold("max", math.Max),
		unary("log", logarithm("log", math.Log)),
		unary("log10", logarithm("log10", math.Log10)),
		unary("exp", checked1("exp", math.Exp)),
		plain("sin", math.Sin),
		plain("cos", math.Cos),
		unary("tan", checked1("tan", math.Tan)),
	}
	return &calculator{env: env, options: opts}
}

func (c *calculator) Name() string { return calculatorName }

func (c *calculator) Description() string {
	return "Evaluate an arithmetic expression and return the number. " +
		"Supports + - * / %, ** or ^ for powers, parentheses, the constants pi and e, " +
		"and the functions sqrt, pow, abs, floor, ceil, round, min, max, log (natural), log10, exp, sin, cos and tan (radians). " +
		`Example: {"expression": "sqrt(2) * (3 + 4) ** 2"}.`
}

func (c *calculator) Schema() Schema {
	return Schema{
		Args: []Arg{{
			Name:        "expression",
			Type:        "string",
			Description: "The arithmetic expression to evaluate, for example 2 * (3 + 4).",
			Required:    true,
		}},
		Primary: "expression",
	}
}

func (c *calculator) Call(ctx context.Context, args map[string]any) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("calculator: %w", err)
	}
	expression, _ := args["expression"].(string) // checked by the registry
	v, err := c.evaluate(expression)
	if err != nil {
		return "", err
	}
	return formatNumber(v), nil
}

// evaluate computes the value of src, or says in terms a model can act on
// why it cannot.
func (c *calculator) evaluate(src string) (float64, error) {
	src = strings.TrimSpace(src)
	if err := checkSize(src); err != nil {
		return 0, fmt.Errorf("calculator: %w", err)
	}
	// The expression language reads "//" and "/*" as comments, which
	// would silently drop the rest of the expression.
	switch {
	case strings.Contains(src, "//"):
		return 0, errors.New("calculator: // is not floor division here; write floor(a / b) for it")
	case strings.Contains(src, "/*"):
		return 0, errors.New("calculator: comments are not allowed; write only the expression")
	}
	tree, err := parser.Parse(src)
	if err != nil {
		return 0, fmt.Errorf("calculator: %s", exprMessage(err))
	}
	var check arithmeticOnly
	ast.Walk(&tree.Node, &check)
	if err := check.result(); err != nil {
		return 0, fmt.Errorf("calculator: %w", err)
	}
	program, err := expr.Compile(src, c.options...)
	if err != nil {
		return 0, fmt.Errorf("calculator: %s", exprMessage(err))
	}
	out, err := vm.Run(program, c.env)
	if err != nil {
		return 0, fmt.Errorf("calculator: %s", exprMessage(err))
	}
	f, ok := out.(float64)
	if !ok {
		return 0, fmt.Errorf("calculator: the expression gives %T, not a number", out)
	}
	if math.IsNaN(f) {
		return 0, errors.New("calculator: the result is not a number")
	}
	if math.IsInf(f, 0) {
		return 0, errors.New("calculator: overflow: the result is too large")
	}
	return f, nil
}

// checkSize bounds the length and the bracket nesting of src before it
// reaches the recursive-descent parser.
func checkSize(src string) error {
	if src == "" {
		return errors.New("the expression is empty")
	}
	if len(src) > maxExpressionBytes {
		return fmt.Errorf("the expression is %d bytes long; the limit is %d", len(src), maxExpressionBytes)
	}
	depth := 0
	for _, r := range src {
		switch r {
		case '(', '[', '{':
			depth++
			if depth > maxNesting {
				return fmt.Errorf("the expression nests brackets more than %d deep", maxNesting)
			}
		case ')', ']', '}':
			depth--
		}
	}
	return nil
}

// exprMessage turns an expr error into one line: its message and column,
// without the multi-line source snippet.
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fmt.Sprintf("%s (at column %d)", fe.Message, fe.Column+1)
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// allowedSyntax lists, for error messages, what an expression may contain.
const allowedSyntax = "use numbers, + - * / % ** ^, parentheses, pi, e and the functions " +
	"sqrt, pow, abs, floor, ceil, round, min, max, log, log10, exp, sin, cos, tan"

// arithmeticOnly is an ast.Visitor that records the first node that is not
// arithmetic.
type arithmeticOnly struct {
	err error
	// bare holds function names seen as identifiers and not yet found
	// to be the callee of a call (the walk visits children first).
	bare map[*ast.IdentifierNode]bool
}

// result returns the first problem found by the walk.
func (v *arithmeticOnly) result() error {
	if v.err != nil {
		return v.err
	}
	for id := range v.bare {
		return fmt.Errorf("%s is a function: call it, as in %s(2)", id.Value, id.Value)
	}
	return nil
}

func (v *arithmeticOnly) Visit(node *ast.Node) {
	if v.err != nil {
		return
	}
	switch n := (*node).(type) {
	case *ast.IntegerNode, *ast.FloatNode:
	case *ast.IdentifierNode:
		switch {
		case slices.Contains(calcFunctions, n.Value):
			if v.bare == nil {
				v.bare = make(map[*ast.IdentifierNode]bool)
			}
			v.bare[n] = true
		case !isConstant(n.Value):
			v.err = fmt.Errorf("unknown name %q; %s", n.Value, allowedSyntax)
		}
	case *ast.UnaryNode:
		if n.Operator != "-" && n.Operator != "+" {
			v.err = fmt.Errorf("operator %q is not arithmetic; %s", n.Operator, allowedSyntax)
		}
	case *ast.BinaryNode:
		if !slices.Contains(calcOperators, n.Operator) {
			v.err = fmt.Errorf("operator %q is not arithmetic; %s", n.Operator, allowedSyntax)
		}
	case *ast.BuiltinNode:
		// expr parses names of its built-ins (abs, max, round…) as
		// built-in calls; the compiler, with built-ins disabled, sends
		// them to the functions defined here.
		if !slices.Contains(calcFunctions, n.Name) {
			v.err = fmt.Errorf("unknown function %q; %s", n.Name, allowedSyntax)
		}
	case *ast.CallNode:
		id, ok := n.Callee.(*ast.IdentifierNode)
		switch {
		case !ok:
			v.err = fmt.Errorf("%s cannot be called; %s", n.Callee, allowedSyntax)
		case isConstant(id.Value):
			v.err = fmt.Errorf("%s is a constant, not a function: write %s, not %s()", id.Value, id.Value, id.Value)
		default:
			delete(v.bare, id)
		}
	default:
		v.err = fmt.Errorf("%s is not arithmetic; %s", n, allowedSyntax)
	}
}

// floatLiterals is an ast.Visitor that makes every integer literal a float,
// so that all arithmetic happens in float64 and one set of checked
// operator functions covers it.
type floatLiterals struct{}

func (floatLiterals) Visit(node *ast.Node) {
	if n, ok := (*node).(*ast.IntegerNode); ok {
		ast.Patch(node, &ast.FloatNode{Value: float64(n.Value)})
	}
}

// checked1 wraps f so that an infinite or NaN result from a finite
// argument is an error naming the call.
func checked1(name string, f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		r := f(x)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return 0, fmt.Errorf("overflow: %s(%s) is too large", name, formatNumber(x))
		}
		return r, nil
	}
}

// checked2 wraps the binary operator f so that overflow is an error.
func checked2(op string, f func(x, y float64) float64) func(x, y float64) (float64, error) {
	return func(x, y float64) (float64, error) {
		r := f(x, y)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return 0, fmt.Errorf("overflow: %s %s %s is too large", formatNumber(x), op, formatNumber(y))
		}
		return r, nil
	}
}

func divide(x, y float64) (float64, error) {
	if y == 0 {
		return 0, fmt.Errorf("division by zero: %s / 0", formatNumber(x))
	}
	return checked2("/", func(x, y float64) float64 { return x / y })(x, y)
}

func modulo(x, y float64) (float64, error) {
	if y == 0 {
		return 0, fmt.Errorf("division by zero: %s %% 0", formatNumber(x))
	}
	return math.Mod(x, y), nil
}

func power(x, y float64) (float64, error) {
	if x == 0 && y < 0 {
		return 0, fmt.Errorf("division by zero: 0 ** %s", formatNumber(y))
	}
	r := math.Pow(x, y)
	if math.IsNaN(r) {
		return 0, fmt.Errorf("%s ** %s is not a real number", formatNumber(x), formatNumber(y))
	}
	if math.IsInf(r, 0) {
		return 0, fmt.Errorf("overflow: %s ** %s is too large", formatNumber(x), formatNumber(y))
	}
	return r, nil
}

// logarithm wraps a logarithm so that non-positive arguments are errors.
func logarithm(name string, f func(float64) float64) func(float64) (float64, error) {
	return func(x float64) (float64, error) {
		if x <= 0 {
			return 0, fmt.Errorf("%s(%s): the logarithm is defined only for positive numbers", name, formatNumber(x))
		}
		return f(x), nil
	}
}

// formatNumber prints integer-valued numbers that float64 holds exactly
// without a fractional part, and others with up to 15 significant digits,
// which hides float noise such as 0.1 + 0.2 = 0.30000000000000004.
func formatNumber(f float64) string {
	if f == 0 {
		return "0" // Not "-0".
	}
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	return strconv.FormatFloat(f, 'g', 15, 64)
}
