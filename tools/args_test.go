package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	schema := Schema{
		Args: []Arg{
			{Name: "query", Type: "string", Required: true},
			{Name: "max_results", Type: "integer"},
			{Name: "ratio", Type: "number"},
			{Name: "verbose", Type: "boolean"},
			{Name: "headers", Type: "object"},
			{Name: "body", Type: "any"},
		},
		Primary: "query",
	}
	tests := []struct {
		name    string
		args    map[string]any
		want    map[string]any
		wantErr string
	}{
		{
			name: "well-typed arguments pass through",
			args: map[string]any{"query": "go", "max_results": 3, "ratio": 0.5, "verbose": true},
			want: map[string]any{"query": "go", "max_results": 3, "ratio": 0.5, "verbose": true},
		},
		{
			name: "JSON numbers become int for integer arguments",
			args: map[string]any{"query": "go", "max_results": float64(7)},
			want: map[string]any{"query": "go", "max_results": 7},
		},
		{
			name: "json.Number is accepted",
			args: map[string]any{"query": "go", "ratio": json.Number("1.5")},
			want: map[string]any{"query": "go", "ratio": 1.5},
		},
		{
			name: "numeric and boolean strings are converted",
			args: map[string]any{"query": "go", "max_results": "4", "verbose": "false"},
			want: map[string]any{"query": "go", "max_results": 4, "verbose": false},
		},
		{
			name: "a number given for a string becomes its text",
			args: map[string]any{"query": 42.0},
			want: map[string]any{"query": "42"},
		},
		{
			name: "null counts as absent",
			args: map[string]any{"query": "go", "ratio": nil},
			want: map[string]any{"query": "go"},
		},
		{
			name: "any accepts an object",
			args: map[string]any{"query": "go", "body": map[string]any{"a": 1.0}},
			want: map[string]any{"query": "go", "body": map[string]any{"a": 1.0}},
		},
		{
			name:    "a missing required argument names the expected arguments",
			args:    map[string]any{},
			wantErr: `t: missing argument "query"; expected {"query": string, "max_results": integer (optional), "ratio": number (optional), "verbose": boolean (optional), "headers": object (optional), "body": any (optional)}`,
		},
		{
			name:    "nil args miss the required argument",
			args:    nil,
			wantErr: `t: missing argument "query"; expected`,
		},
		{
			name:    "an empty required string is refused",
			args:    map[string]any{"query": "  "},
			wantErr: `t: argument "query" is empty`,
		},
		{
			name:    "an unknown argument is named",
			args:    map[string]any{"query": "go", "q": "go"},
			wantErr: `t: unknown argument "q"`,
		},
		{
			name:    "a fractional integer is refused",
			args:    map[string]any{"query": "go", "max_results": 2.5},
			wantErr: `t: argument "max_results" must be an integer, got 2.5`,
		},
		{
			name:    "a word for a number is refused",
			args:    map[string]any{"query": "go", "ratio": "half"},
			wantErr: `t: argument "ratio" must be a number, got "half"`,
		},
		{
			name:    "an object for a string is refused",
			args:    map[string]any{"query": map[string]any{"x": 1.0}},
			wantErr: `t: argument "query" must be a string, got an object`,
		},
		{
			name:    "a string for an object is refused",
			args:    map[string]any{"query": "go", "headers": "Accept: x"},
			wantErr: `t: argument "headers" must be a JSON object, got "Accept: x"`,
		},
		{
			name:    "a word for a boolean is refused",
			args:    map[string]any{"query": "go", "verbose": "maybe"},
			wantErr: `t: argument "verbose" must be true or false, got "maybe"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckArgs("t", schema, tt.args)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("CheckArgs = %v, want error %q", got, tt.wantErr)
				}
				if !errors.Is(err, ErrInvalidArgs) {
					t.Errorf("error %v does not match ErrInvalidArgs", err)
				}
				if msg := err.Error(); len(msg) < len(tt.wantErr) || msg[:len(tt.wantErr)] != tt.wantErr {
					t.Errorf("error = %q, want it to start with %q", msg, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("CheckArgs: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("CheckArgs = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestCheckArgsDoesNotModifyItsInput(t *testing.T) {
	schema := Schema{Args: []Arg{{Name: "n", Type: "integer", Required: true}}}
	in := map[string]any{"n": "3"}
	if _, err := CheckArgs("t", schema, in); err != nil {
		t.Fatal(err)
	}
	if in["n"] != "3" {
		t.Errorf("input changed to %#v", in)
	}
}
