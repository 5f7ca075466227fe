package model

import "encoding/json"

// OptionValue reads the value of a model option as written on a command
// line or in a file: JSON when it is a JSON number, boolean, null, array
// or object ("0.9", "true", `["a"]`), else the text itself.
func OptionValue(text string) any {
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		if _, isString := v.(string); !isString {
			return v
		}
	}
	return text
}
