package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ErrInvalidArgs is matched (with errors.Is) by every error about the
// arguments a tool was called with.
var ErrInvalidArgs = errors.New("invalid tool arguments")

// ArgsError reports arguments that do not fit a tool's schema. Its message
// names the tool, the problem and the expected arguments, so that a model
// reading it knows what to write instead.
type ArgsError struct {
	// Tool is the name of the tool that was called.
	Tool string
	// Problem says what was wrong, for example `missing argument "query"`.
	Problem string
	// Schema is what the tool expects.
	Schema Schema
}

// Error returns, for example,
// `calculator: missing argument "expression"; expected {"expression": string}`.
func (e *ArgsError) Error() string {
	return fmt.Sprintf("%s: %s; expected %s", e.Tool, e.Problem, e.Schema)
}

// Is reports whether target is [ErrInvalidArgs].
func (e *ArgsError) Is(target error) bool { return target == ErrInvalidArgs }

// CheckArgs checks args against the schema of the tool called name and
// returns a new map with each value converted to its declared type: numbers
// become float64 ("number") or int ("integer"), and values a model commonly
// writes loosely are accepted (the string "3" for an integer, the number 42
// for a string, "true" for a boolean). Missing required arguments, unknown
// arguments and values of the wrong type give an [*ArgsError].
func CheckArgs(name string, s Schema, args map[string]any) (map[string]any, error) {
	fail := func(format string, a ...any) error {
		return &ArgsError{Tool: name, Problem: fmt.Sprintf(format, a...), Schema: s}
	}
	declared := make(map[string]bool, len(s.Args))
	for _, a := range s.Args {
		declared[a.Name] = true
	}
	var unknown []string
	for k := range args {
		if !declared[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fail("unknown argument %q", unknown[0])
	}
	out := make(map[string]any, len(args))
	for _, a := range s.Args {
		v, ok := args[a.Name]
		if !ok || v == nil {
			if a.Required {
				return nil, fail("missing argument %q", a.Name)
			}
			continue
		}
		cv, err := convertArg(a.Type, v)
		if err != nil {
			return nil, fail("argument %q %v", a.Name, err)
		}
		if a.Required && a.Type == "string" && strings.TrimSpace(cv.(string)) == "" {
			return nil, fail("argument %q is empty", a.Name)
		}
		out[a.Name] = cv
	}
	return out, nil
}

// convertArg converts v to the JSON type typ, or says why it cannot.
func convertArg(typ string, v any) (any, error) {
	switch typ {
	case "", "any":
		return v, nil
	case "string":
		switch v := v.(type) {
		case string:
			return v, nil
		case bool:
			return strconv.FormatBool(v), nil
		case map[string]any, []any:
			return nil, fmt.Errorf("must be a string, got %s", jsonType(v))
		}
		if f, ok := toFloat(v); ok {
			return strconv.FormatFloat(f, 'f', -1, 64), nil
		}
		return nil, fmt.Errorf("must be a string, got %s", jsonType(v))
	case "number":
		if f, ok := toFloat(v); ok {
			return f, nil
		}
		return nil, fmt.Errorf("must be a number, got %s", describe(v))
	case "integer":
		f, ok := toFloat(v)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("must be an integer, got %s", describe(v))
		}
		return int(f), nil
	case "boolean":
		switch v := v.(type) {
		case bool:
			return v, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
				return b, nil
			}
		}
		return nil, fmt.Errorf("must be true or false, got %s", describe(v))
	case "object":
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
		return nil, fmt.Errorf("must be a JSON object, got %s", describe(v))
	case "array":
		if a, ok := v.([]any); ok {
			return a, nil
		}
		return nil, fmt.Errorf("must be a JSON array, got %s", describe(v))
	}
	return nil, fmt.Errorf("has a type the tool declares wrongly (%q)", typ)
}

// toFloat converts the numeric forms JSON decoding and Go callers produce,
// and numeric strings, to float64.
func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	case uint:
		return float64(v), true
	case uint64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	return 0, false
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case nil:
		return "null"
	}
	if _, ok := toFloat(v); ok {
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// describe shows a short value in error messages, or its type when long.
func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil || len(b) > 40 {
		return jsonType(v)
	}
	return string(b)
}
