package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedactTextRemovesSecrets(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// URLs and query strings.
		{"a URL's password", "fetch http://bob:hunter2@example.com/x", "fetch http://bob:REDACTED@example.com/x"},
		{"a database URL's password", "postgres://app:s3cr3t@db:5432/x", "postgres://app:REDACTED@db:5432/x"},
		{"a key in a query string", "https://maps.example.com/api?q=tokyo&key=AbC123xyz&z=1", "https://maps.example.com/api?q=tokyo&key=REDACTED&z=1"},
		{"an api_key in a query string", "GET /v1?api_key=s3cr3t", "GET /v1?api_key=REDACTED"},
		{"a token first in a query string", "/cb?access_token=abc.def", "/cb?access_token=REDACTED"},
		{"a token after \\u0026, as json.Marshal writes &", `{"url":"https://x.example/?a=1\u0026token=abc123def"}`, `{"url":"https://x.example/?a=1\u0026token=REDACTED"}`},
		{"a key after \\u0026", `"https://x.example/?a=1\u0026key=AbC123xyz"`, `"https://x.example/?a=1\u0026key=REDACTED"`},
		{"a sig after \\u0026", `?sv=2020\u0026sig=Zm9vYmFy%2Bxyz`, `?sv=2020\u0026sig=REDACTED`},
		{"an auth after &", "/x?a=1&auth=abcdef123", "/x?a=1&auth=REDACTED"},
		{"an AWS presigned URL's signature", "https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIAEXAMPLE%2F20240101&X-Amz-Signature=fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024",
			"https://b.s3.amazonaws.com/o?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED"},
		// Headers.
		{"an Authorization header", "Authorization: Bearer abcdefgh12345", "Authorization: Bearer REDACTED"},
		{"a Basic Authorization header", "authorization: Basic dXNlcjpwYXNz", "authorization: Basic REDACTED"},
		{"an Authorization header in JSON", `{"headers":{"Authorization":"Bearer abcdefgh12345"}}`, `{"headers":{"Authorization":"Bearer REDACTED"}}`},
		{"an Authorization header without a scheme", "Authorization: 0123abcd", "Authorization: REDACTED"},
		{"an X-Auth-Token header", "curl -H 'X-Auth-Token: abc123def' https://api.example.com", "curl -H 'X-Auth-Token: REDACTED' https://api.example.com"},
		{"an X-Api-Key header", "X-Api-Key: k3y-value", "X-Api-Key: REDACTED"},
		{"a Cookie header", "Cookie: session=abc123; theme=dark", "Cookie: REDACTED"},
		{"a bearer token in prose", "use bearer abcdefgh12345 to call it", "use bearer REDACTED to call it"},
		// Environment assignments.
		{"AWS_SECRET_ACCESS_KEY=", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws s3 ls", "AWS_SECRET_ACCESS_KEY=REDACTED aws s3 ls"},
		{"an exported token", "export GITHUB_TOKEN=abc123def456", "export GITHUB_TOKEN=REDACTED"},
		{"a quoted env value, whole", `DB_PASSWORD="a b c" ./run`, `DB_PASSWORD="REDACTED" ./run`},
		{"a COOKIE", "COOKIE=sid=9f8e7d6c5b", "COOKIE=REDACTED"},
		{"a session cookie", "SESSION_COOKIE=9f8e7d6c5b", "SESSION_COOKIE=REDACTED"},
		{"a BEARER", "API_BEARER=9f8e7d6c5b4a", "API_BEARER=REDACTED"},
		{"a JWT by its name", "JWT=abc.def.ghi", "JWT=REDACTED"},
		{"a GH_PAT", "GH_PAT=0123456789abcdef", "GH_PAT=REDACTED"},
		{"a GITLAB_PAT", "export GITLAB_PAT=0123456789abcdef", "export GITLAB_PAT=REDACTED"},
		{"a *_CRED", "SERVICE_CRED=0123456789abcdef", "SERVICE_CRED=REDACTED"},
		{"a PASSCODE", "PASSCODE=246810", "PASSCODE=REDACTED"},
		{"a SESSION", "SESSION=0123456789abcdef", "SESSION=REDACTED"},
		{"a PRIVATE", "APP_PRIVATE=0123456789abcdef", "APP_PRIVATE=REDACTED"},
		{"a *_DSN", "SENTRY_DSN=https://0123abcd@o1.ingest.sentry.io/42", "SENTRY_DSN=REDACTED"},
		{"a *_WEBHOOK_URL", "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T000/B000/XXXXabcd", "SLACK_WEBHOOK_URL=REDACTED"},
		{"a *_PASSPHRASE from an envFile", "SERVICE_PASSPHRASE=correct-horse-battery", "SERVICE_PASSPHRASE=REDACTED"},
		// JSON, YAML, code.
		{"a password in JSON", `{"user":"bob","password":"hunter2"}`, `{"user":"bob","password":"REDACTED"}`},
		{"a token in JSON", `{"token": "abc.def-123"}`, `{"token": "REDACTED"}`},
		{"a token in JSON inside a JSON string", `"{\"token\": \"abc123\"}"`, `"{\"token\": \"REDACTED\"}"`},
		{"a numeric password in JSON stays JSON", `{"password": 123456}`, `{"password": "REDACTED"}`},
		{"an apiKey in camelCase", `{"apiKey":"k-123456"}`, `{"apiKey":"REDACTED"}`},
		{"an api key in YAML", "api-key: s3cr3t-value\nmodel: x", "api-key: REDACTED\nmodel: x"},
		{"a quoted YAML password with spaces, whole", `password: "a b c"`, `password: "REDACTED"`},
		{"a single-quoted YAML password with spaces, whole", `password: 'a b c'`, `password: 'REDACTED'`},
		{"a YAML password alone on its line", "user: bob\npassword: hunter2\n", "user: bob\npassword: REDACTED\n"},
		{"a client_secret in a Python dict", `{'client_secret': 'abc123'}`, `{'client_secret': 'REDACTED'}`},
		{"a password in code", `password = "hunter2"`, `password = "REDACTED"`},
		{"a password in a flow mapping", `{user: bob, password: hunter2}`, `{user: bob, password: REDACTED}`},
		{"a secret inside a value that is none", `{"key": "api_key=abc123"}`, `{"key": "api_key=REDACTED"}`},
		// Command lines.
		{"curl -u user:pass", "curl -u admin:hunter2 https://x.example", "curl -u admin:REDACTED https://x.example"},
		{"curl --user=user:pass", "curl --user=admin:hunter2 https://x.example", "curl --user=admin:REDACTED https://x.example"},
		{"curl -uuser:pass", "curl -uadmin:hunter2 https://x.example", "curl -uadmin:REDACTED https://x.example"},
		{"mysql -pX", "mysql -h db -u root -phunter2 shop", "mysql -h db -u root -pREDACTED shop"},
		{"mysqldump -p'X'", "mysqldump -u root -p'a b' shop", "mysqldump -u root -p'REDACTED' shop"},
		{"a --password flag", "psql --password hunter2 -d x", "psql --password REDACTED -d x"},
		{"a --api-key= flag", "react-agent --api-key=abc123def ask", "react-agent --api-key=REDACTED ask"},
		{"a --token flag, quoted", `gh --token "abc 123"`, `gh --token "abc 123"`},
		// Shapes.
		{"a JWT", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U done",
			"token REDACTED done"},
		{"an OpenAI key anywhere", "my key is sk-proj-abcdefghijklmnop1234", "my key is REDACTED"},
		{"a Google key anywhere", "AIzaSyA1234567890abcdefghijklmnopqrstu", "REDACTED"},
		{"a GitHub token anywhere", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "REDACTED"},
		{"an AWS access key ID", "id AKIAIOSFODNN7EXAMPLE ok", "id REDACTED ok"},
		{"a Hugging Face token", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "REDACTED"},
		{"a PEM private key's body", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
			"-----BEGIN RSA PRIVATE KEY-----REDACTED-----END RSA PRIVATE KEY-----"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Fatalf("Text(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestRedactTextKeepsOrdinaryText holds text that looks a little like a
// secret and is none: it must come back as it is.
func TestRedactTextKeepsOrdinaryText(t *testing.T) {
	innocent := []string{
		"17 * 23 + 4 = 395; see https://example.com/a?b=c",
		"https://example.com/search?q=monkey=1&page=2",
		"ssh://git@example.com/repo",
		"Token: a unit of text that a model reads.",
		"Secret: The Musical opens tonight.",
		"Password: enter it below, then press Enter.",
		"--- PASS: TestRedact (0.00s)",
		"PASS: all tests",
		"The keyboard has a key: the one marked Esc.",
		`{"key": "color", "value": "red"}`,
		`{"primary_key": "id", "sort_key": "created"}`,
		`{"max_tokens": 256, "prompt_tokens": 1722, "total_tokens": 1810}`,
		`{"eos_token": "</s>", "pad_token": "<pad>", "next_page_token": "CAoQAA"}`,
		`{"token_type": "bearer", "expires_in": 3600}`,
		`tokenizer: llama`,
		`{"signature": "func Redact(s string) string"}`,
		"token = tokenizer.encode(text)",
		"def login(user: str, password: str) -> bool:",
		"password: ${DB_PASSWORD}",
		`api_key: "<your-api-key>"`,
		"OPENAI_API_KEY=$OPENAI_API_KEY react-agent ask hi",
		`{"password": ""}`,
		"password_file: /run/secrets/db",
		"api_key_env: OPENAI_API_KEY",
		"require_password: true",
		"PWD=/home/bob/src",
		"the bearer instrument is payable to whoever holds it",
		"sort -u names.txt",
		"docker run -u 1000:1000 -p 8080:80 nginx",
		"ssh -p22 host; nc -p1234 host",
		"pip install -U scikit-learn and sk-learn-is-a-library",
		"An author: Bob; a passenger: Alice; the passport: none.",
		"credentials: {}",
		"Authorization: the act of granting someone access.",
		"Authorization: Bearer",
		"Cookie: a small piece of data a site keeps",
		"mkdir -p /tmp/x && mysql shop < dump.sql",
		"secret_name: my-db-secret",
		"What is 2+2? Use the calculator: 2+2 = 4.",
		"GH_PATH=/usr/local/bin",
		"pattern: [a-z]+ and path=/tmp/x",
		"COOKIE_JAR=/tmp/cookies.txt",
		`{"private": true, "session_timeout": 30}`,
		"Session: the second day of the meeting.",
		"jwt_algorithm: RS256",
		"webhook_name: deploy-notifier",
		"PAT=Patricia",
	}
	for _, s := range innocent {
		if got := Text(s); got != s {
			t.Errorf("RedactText changed ordinary text\n got %q\nwant %q", got, s)
		}
	}
}

func TestRedactTextKeepsJSONValid(t *testing.T) {
	args := map[string]any{
		"url":     `http://u:p"w@h/?token=a\"b&key=x&sig=y`,
		"headers": map[string]any{"Authorization": `Bearer x\"yz12345678`, "X-Api-Key": `k"ey`, "Cookie": "a=b; c=d"},
		"body":    `{"password": "a\"b", "pin": 1234, "token": "t o k"}`,
		"pw":      map[string]any{"password": 123456, "secret": true},
	}
	b, _ := json.Marshal(args)
	out := Text(string(b))
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("redacted JSON is not valid: %v\n%s", err, out)
	}
}

func TestValue(t *testing.T) {
	r := New("local-key-5f2a9c")
	in := map[string]any{
		"url":     "https://api.example.com/?a=1&token=abc123&key=AbC123xyz",
		"headers": map[string]any{"Authorization": "Bearer abcdefgh", "X-Auth-Token": "abc123", "Accept": "text/plain", "Cookie": "s=1"},
		"body":    map[string]any{"password": "a b c", "pin": "1234", "token": 987654, "key": "color"},
		"note":    "the key is local-key-5f2a9c",
		"list":    []any{"Bearer abcdefgh12345", 3.0, nil, true},
	}
	got := r.Value(in).(map[string]any)
	want := map[string]any{
		"url":     "https://api.example.com/?a=1&token=REDACTED&key=REDACTED",
		"headers": map[string]any{"Authorization": "Bearer REDACTED", "X-Auth-Token": "REDACTED", "Accept": "text/plain", "Cookie": "REDACTED"},
		"body":    map[string]any{"password": "REDACTED", "pin": "1234", "token": "REDACTED", "key": "color"},
		"note":    "the key is REDACTED",
		"list":    []any{"Bearer REDACTED", 3.0, nil, true},
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("Value\n got %s\nwant %s", g, w)
	}
	if in["url"] != "https://api.example.com/?a=1&token=abc123&key=AbC123xyz" {
		t.Errorf("Value changed its argument: %v", in["url"])
	}
	t.Run("other Go values are taken as their JSON form", func(t *testing.T) {
		got := r.Value(map[string]string{"api_key": "abc123def"})
		if m, ok := got.(map[string]any); !ok || m["api_key"] != Redacted {
			t.Errorf("Value(map[string]string) = %#v", got)
		}
	})
}

func TestNewRedactorIgnoresShortSecrets(t *testing.T) {
	r := New("", "ollama", "local-key-5f2a9c", "local-key-5f2a9c-longer")
	got := r.Redact("ollama serves it; keys local-key-5f2a9c and local-key-5f2a9c-longer")
	if want := "ollama serves it; keys REDACTED and REDACTED"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (*Redactor)(nil).Redact("Bearer abcdefgh12345"); got != "Bearer REDACTED" {
		t.Errorf("a nil Redactor: %q", got)
	}
}

// hostile are texts built to make a redactor that searches again inside
// each near-miss take time in the square of their length.
var hostile = map[string]string{
	"names that are no secret, each the value of the last": strings.Repeat("key=", 1<<16),
	"quoted values that never close":                       strings.Repeat(`"key": "`, 1<<15),
	"near-misses":                                          strings.Repeat("token_count: 5, key=value monkey=1 ", 1<<13),
	"one endless name":                                     strings.Repeat("token", 1<<16),
	"prose after lone names, on one line":                  strings.Repeat("Token: a ", 1<<15),
	"flags without values":                                 strings.Repeat("--password ", 1<<15),
	"a command named again and again":                      strings.Repeat("mysql ", 1<<15) + "x",
	"schemes without credentials":                          strings.Repeat("Authorization: x ", 1<<14),
	"URLs without hosts":                                   strings.Repeat("http://a:", 1<<15),
	"structures after a secret's name":                     strings.Repeat("password={", 1<<15),
}

// TestRedactTextReadsHostileTextOnce checks that hostile text comes
// back: the redactor reads each name once, so a quadratic redactor would
// not finish these within the test's time limit.
func TestRedactTextReadsHostileTextOnce(t *testing.T) {
	for name, s := range hostile {
		t.Run(name, func(t *testing.T) {
			if got := Text(s); len(got) > len(s)+len(Redacted) {
				t.Errorf("the text grew from %d to %d bytes", len(s), len(got))
			}
		})
	}
}

// BenchmarkRedactHostile measures redaction of hostile text; its time
// per byte stays the same as the text grows.
func BenchmarkRedactHostile(b *testing.B) {
	for name, s := range hostile {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Text(s)
			}
		})
	}
}

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`GET https://api.example/v1?key=AIzaSyA-123&alt=json: 400`, `GET https://api.example/v1?key=REDACTED&alt=json: 400`},
		{`request had Authorization: Bearer sk-abcdef123456`, `request had Authorization: Bearer REDACTED`},
		{`{"authorization": "Basic dXNlcjpwdw=="}`, `{"authorization": "Basic REDACTED"}`},
		{`the key sk-live-secret was refused`, `the key REDACTED was refused`},
		{`nothing secret here`, `nothing secret here`},
	}
	for _, tt := range tests {
		if got := New("sk-live-secret").Redact(tt.in); got != tt.want {
			t.Errorf("New(secret).Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
