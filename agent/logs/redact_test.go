package logs

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a URL's password", "fetch http://bob:hunter2@example.com/x", "fetch http://bob:REDACTED@example.com/x"},
		{"a URL with a user alone is kept", "ssh://git@example.com/repo", "ssh://git@example.com/repo"},
		{"a key in a query string", "https://maps.example.com/api?q=tokyo&key=AbC123xyz&z=1", "https://maps.example.com/api?q=tokyo&key=REDACTED&z=1"},
		{"an api_key in a query string", "GET /v1?api_key=s3cr3t", "GET /v1?api_key=REDACTED"},
		{"a token first in a query string", "/cb?access_token=abc.def", "/cb?access_token=REDACTED"},
		{"an ordinary query string is kept", "https://example.com/search?q=monkey=1&page=2", "https://example.com/search?q=monkey=1&page=2"},
		{"an Authorization header", "Authorization: Bearer abcdefgh12345", "Authorization: Bearer REDACTED"},
		{"a Basic Authorization header", "authorization: Basic dXNlcjpwYXNz", "authorization: Basic REDACTED"},
		{"an Authorization header in JSON", `{"headers":{"Authorization":"Bearer abcdefgh12345"}}`, `{"headers":{"Authorization":"Bearer REDACTED"}}`},
		{"a bearer token in prose", "use bearer abcdefgh12345 to call it", "use bearer REDACTED to call it"},
		{"a password in JSON", `{"user":"bob","password":"hunter2"}`, `{"user":"bob","password":"REDACTED"}`},
		{"an api key in YAML", "api-key: s3cr3t-value\nmodel: x", "api-key: REDACTED\nmodel: x"},
		{"an OpenAI key anywhere", "my key is sk-proj-abcdefghijklmnop1234", "my key is REDACTED"},
		{"a Google key anywhere", "AIzaSyA1234567890abcdefghijklmnopqrstu", "REDACTED"},
		{"a GitHub token anywhere", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "REDACTED"},
		{"text without secrets is kept", "17 * 23 + 4 = 395; see https://example.com/a?b=c", "17 * 23 + 4 = 395; see https://example.com/a?b=c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Redact(tt.in); got != tt.want {
				t.Fatalf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestRedactKeepsJSONValid(t *testing.T) {
	args := map[string]any{
		"url":     `http://u:p"w@h/?token=a\"b`,
		"headers": map[string]any{"Authorization": `Bearer x\"yz12345678`, "X-Api-Key": `k"ey`},
		"body":    `{"password": "a\"b"}`,
	}
	b, _ := json.Marshal(args)
	out := Redact(string(b))
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("redacted JSON is not valid: %v\n%s", err, out)
	}
}

// TestNothingSecretIsStored writes a run full of secrets, then scans the
// database files' bytes, the write-ahead log included, for any of them.
func TestNothingSecretIsStored(t *testing.T) {
	const apiKey = "local-key-5f2a9c"
	secrets := []string{apiKey, "hunter2pw", "AbC123qsKey", "tok3nB3arer", "sk-ant-api03-abcdefghijklmnopqrst", "p4ssJSON"}
	s := openTemp(t, WithSecrets(apiKey, "", "short"))
	ctx := context.Background()
	rec, err := s.Start(ctx, Run{Conversation: "c", Question: "Fetch http://admin:hunter2pw@10.0.0.1/status with key " + apiKey + " (plain-marker-7731)",
		Context: "curl -H 'Authorization: Bearer tok3nB3arer' https://api.example.com/?key=AbC123qsKey"})
	if err != nil {
		t.Fatal(err)
	}
	events := []Event{
		{Kind: "thought", Iteration: 1, Text: "I will call it with sk-ant-api03-abcdefghijklmnopqrst", Reasoning: "the key is " + apiKey},
		{Kind: "action", Iteration: 1, Tool: "http_request", Args: map[string]any{
			"url": "https://api.example.com/?key=AbC123qsKey", "headers": map[string]any{"Authorization": "Bearer tok3nB3arer"},
			"body": map[string]any{"password": "p4ssJSON"}}},
		{Kind: "observation", Iteration: 1, Tool: "http_request", Text: "401: the key " + apiKey + " is wrong", Failed: true},
		{Kind: "error", Iteration: 2, Text: "POST http://admin:hunter2pw@10.0.0.1/: refused", StopReason: "error"},
	}
	for _, e := range events {
		if err := rec.Add(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	rec.Finish(ctx, Outcome{Error: "Authorization: Bearer tok3nB3arer rejected", StopReason: "error"})

	runs, err := s.Runs(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if a := runs[0].Events[1].Args; a == nil || a["url"] != "https://api.example.com/?key=REDACTED" {
		t.Errorf("the redacted arguments do not read back as JSON: %v", a)
	}
	if !strings.Contains(runs[0].Question, "http://admin:REDACTED@10.0.0.1/status") {
		t.Errorf("question stored as %q", runs[0].Question)
	}
	// Read the files while the store is open, as a crash leaves them,
	// and again once it is closed and checkpointed.
	check := func(when string) {
		files, _ := filepath.Glob(s.Path() + "*")
		var all []byte
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, data...)
			for _, secret := range secrets {
				if bytes.Contains(data, []byte(secret)) {
					t.Errorf("%s: %s holds the secret %q", when, filepath.Base(f), secret)
				}
			}
		}
		// The scan sees the text that is stored: a word that is no
		// secret is there.
		if !bytes.Contains(all, []byte("plain-marker-7731")) {
			t.Fatalf("%s: the files at %s do not hold the question's text; the scan proves nothing", when, s.Path())
		}
	}
	check("while open")
	s.Close()
	check("after closing")
}
