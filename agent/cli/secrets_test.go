package cli

import (
	"slices"
	"testing"
)

func TestArgSecretsFindsEveryKeyAndPassword(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"the key after its flag", []string{"ask", "--api-key", "sk-1", "hi"}, []string{"sk-1"}},
		{"the key after =", []string{"--api-key=sk-2", "hi"}, []string{"sk-2"}},
		{"the password of --base-url", []string{"--base-url", "http://bob:pw@host:8080/v1", "hi"}, []string{"pw"}},
		{"a password with @ and : in it", []string{"--base-url=http://bob:p@ss:w@host/v1"}, []string{"p@ss:w"}},
		{"a password with escapes", []string{"--search-url", "https://bob:p%40ss@host"}, []string{"p%40ss"}},
		{"no password, only a user", []string{"--base-url", "http://bob@host"}, nil},
		{"the passwords of eval's models", []string{"eval", "--models", "openai:m@http://a:pw1@h/v1,openai:n@http://b:pw2@h2/v1", "set.jsonl"}, []string{"pw1", "pw2"}},
		{"nothing after --", []string{"--", "--api-key", "sk-3"}, nil},
		{"a flag at the end, with no value", []string{"hi", "--base-url"}, nil},
		{"a question that holds a URL", []string{"what is http://bob:pw@host?"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range argSecrets(tt.args) {
				got = append(got, tt.args[s.arg][s.start:s.end])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("secrets %q, want %q", got, tt.want)
			}
		})
	}
}
