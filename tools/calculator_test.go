package tools

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCalculator(t *testing.T) {
	tests := []struct {
		expression string
		want       string
		wantErr    string
	}{
		{expression: "1 + 2 * 3", want: "7"},
		{expression: "(1 + 2) * 3", want: "9"},
		{expression: "7 / 2", want: "3.5"},
		{expression: "10 / 2", want: "5"},
		{expression: "10 % 3", want: "1"},
		{expression: "5.5 % 2", want: "1.5"},
		{expression: "2 ** 10", want: "1024"},
		{expression: "2 ^ 10", want: "1024"},
		{expression: "2 ** 0.5", want: "1.4142135623731"},
		{expression: "-3 + +1", want: "-2"},
		{expression: "0.1 + 0.2", want: "0.3"},
		{expression: "-0 * 1", want: "0"},
		{expression: "2 ** 53", want: "9007199254740992"},
		{expression: "2 ** 62", want: "4.61168601842739e+18"},
		{expression: "sqrt(16)", want: "4"},
		{expression: "pow(2, 8)", want: "256"},
		{expression: "abs(-3.25)", want: "3.25"},
		{expression: "floor(2.7) + ceil(2.2)", want: "5"},
		{expression: "round(2.5)", want: "3"},
		{expression: "min(4, 2, 8)", want: "2"},
		{expression: "max(4, 2, 8)", want: "8"},
		{expression: "log(e)", want: "1"},
		{expression: "log10(1000)", want: "3"},
		{expression: "exp(0)", want: "1"},
		{expression: "sin(pi / 2) + cos(0) + tan(0)", want: "2"},
		{expression: "pi", want: "3.14159265358979"},
		{expression: " 1+1 ", want: "2"},

		{expression: "1 / 0", wantErr: "calculator: division by zero: 1 / 0"},
		{expression: "5 % 0", wantErr: "calculator: division by zero: 5 % 0"},
		{expression: "0 ** -1", wantErr: "calculator: division by zero: 0 ** -1"},
		{expression: "2 ** 100000", wantErr: "calculator: overflow: 2 ** 100000 is too large"},
		{expression: "1e308 * 10", wantErr: "calculator: overflow: 1e+308 * 10 is too large"},
		{expression: "exp(1000)", wantErr: "calculator: overflow: exp(1000) is too large"},
		{expression: "sqrt(-1)", wantErr: "calculator: sqrt(-1): the square root of a negative number is not a real number"},
		{expression: "log(0)", wantErr: "calculator: log(0): the logarithm is defined only for positive numbers"},
		{expression: "(-8) ** (1/3)", wantErr: "calculator: -8 ** 0.333333333333333 is not a real number"},
		{expression: "pi()", wantErr: "calculator: pi is a constant, not a function: write pi, not pi()"},
		{expression: "sqrt", wantErr: "calculator: sqrt is a function: call it, as in sqrt(2)"},
		{expression: "sqrt(1, 2)", wantErr: "calculator: too many arguments to call sqrt"},
		{expression: "os", wantErr: `calculator: unknown name "os"; use numbers`},
		{expression: "env.HOME", wantErr: `calculator: unknown name "env"`},
		{expression: `len("abc")`, wantErr: `calculator: "abc" is not arithmetic`},
		{expression: "now()", wantErr: `calculator: unknown function "now"`},
		{expression: "1 < 2", wantErr: `calculator: operator "<" is not arithmetic`},
		{expression: "not 1", wantErr: `calculator: operator "not" is not arithmetic`},
		{expression: "1..1000000", wantErr: `calculator: operator ".." is not arithmetic`},
		{expression: "[1, 2]", wantErr: "calculator: [1, 2] is not arithmetic"},
		{expression: "let x = 2; x * x", wantErr: `calculator: unknown name "x"`},
		{expression: "1 +", wantErr: "calculator: unexpected token EOF"},
		{expression: "7 // 2", wantErr: "calculator: // is not floor division here; write floor(a / b) for it"},
		{expression: "1 + 2 /* + 40 */", wantErr: "calculator: comments are not allowed"},
		{expression: "floor(7 / 2)", want: "3"},
		{expression: "", wantErr: `calculator: argument "expression" is empty; expected {"expression": string}`},
	}
	reg, err := NewRegistry(newCalculator())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.expression, func(t *testing.T) {
			got, err := reg.Call(context.Background(), "calculator", map[string]any{"expression": tt.expression})
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Errorf("calculator(%q) = %q, %v; want %q", tt.expression, got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
				t.Errorf("calculator(%q) error = %v, want prefix %q", tt.expression, err, tt.wantErr)
			}
		})
	}
}

func TestCalculatorBoundsItsWork(t *testing.T) {
	tests := []struct {
		name       string
		expression string
		wantErr    string
	}{
		{"a huge power", "2 ** 100000", "overflow"},
		{"a 100 KB expression", strings.Repeat("1 + ", 25_000) + "1", "the expression is 100001 bytes long; the limit is 4096"},
		{"deeply nested parentheses", strings.Repeat("(", 50_000) + "1" + strings.Repeat(")", 50_000), "the limit is 4096"},
		{"nesting just over the limit", strings.Repeat("(", 65) + "1" + strings.Repeat(")", 65), "nests brackets more than 64 deep"},
		{"many nodes within the byte limit", strings.Repeat("1+", 2040) + "1", ""},
		{"a long chain of unary minus", strings.Repeat("-", 4000) + "1", ""},
	}
	c := newCalculator()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := c.Call(context.Background(), map[string]any{"expression": tt.expression})
			// Milliseconds normally; the bound leaves room for -race on a
			// loaded machine while still catching runaway work.
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("took %s", elapsed)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("error = %v, want a value", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestCalculatorHonoursACancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newCalculator().Call(ctx, map[string]any{"expression": "1+1"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}
