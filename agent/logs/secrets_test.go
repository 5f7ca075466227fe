package logs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingSecretIsStored writes a run full of secrets, then scans the
// database files' bytes, the write-ahead log included, for any of them.
func TestNothingSecretIsStored(t *testing.T) {
	const apiKey = "local-key-5f2a9c"
	secrets := []string{apiKey, "hunter2pw", "AbC123qsKey", "tok3nB3arer", "sk-ant-api03-abcdefghijklmnopqrst", "p4ssJSON",
		// The shapes json.Marshal and the first redactor let through.
		"qTok3nAmp", "qKeyAmp99", "qSigAmp77", "qAuthAmp55", "curlPass42", "xAuthTok3n", "wJalrXUtnFEMIK7MDENG",
		"fe5f80f77d5fa3be", "jsonTok3n", "dozjgNryP4J3jVmNHl0w", "mysqlPw11", "two words"}
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
		{Kind: "action", Iteration: 2, Tool: "http_request", Args: map[string]any{
			"url":     "https://api.example.com/v1?a=1&token=qTok3nAmp&key=qKeyAmp99&sig=qSigAmp77&auth=qAuthAmp55",
			"headers": map[string]any{"X-Auth-Token": "xAuthTok3n"},
			"body":    map[string]any{"token": "jsonTok3n", "password": "a two words c"}}},
		{Kind: "action", Iteration: 3, Tool: "shell", Args: map[string]any{"command": "curl -u admin:curlPass42 -H 'X-Auth-Token: xAuthTok3n' " +
			"'https://b.s3.amazonaws.com/o?X-Amz-Signature=fe5f80f77d5fa3be&x=1' && AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENG aws s3 ls && mysql -u root -pmysqlPw11 shop"}},
		{Kind: "observation", Iteration: 3, Tool: "shell", Text: `{"token": "jsonTok3n", "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}` +
			"\npassword: \"a two words c\""},
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
	if a := runs[0].Events[3].Args; a == nil || a["url"] != "https://api.example.com/v1?a=1&token=REDACTED&key=REDACTED&sig=REDACTED&auth=REDACTED" {
		t.Errorf("the arguments of the second action read back as %v", a)
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
