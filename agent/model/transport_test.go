package model

import (
	"net/url"
	"testing"
)

func TestARedirectIsFollowedOnlyWithinTheServer(t *testing.T) {
	from, _ := url.Parse("http://127.0.0.1:8080/v1/chat/completions")
	tests := []struct {
		to   string
		same bool
	}{
		{"http://127.0.0.1:8080/v2/chat/completions", true},
		{"HTTP://127.0.0.1:8080/v1/", true},
		{"http://127.0.0.1:8081/v1/chat/completions", false},
		{"https://127.0.0.1:8080/v1/chat/completions", false},
		{"http://localhost:8080/v1/chat/completions", false},
		{"http://127.0.0.1:8080@evil.example:8080/v1", false},
		{"http://127.0.0.1/v1", false},
	}
	for _, tt := range tests {
		to, err := from.Parse(tt.to)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameServer(from, to); got != tt.same {
			t.Errorf("a redirect to %s is within the server: %v, want %v", tt.to, got, tt.same)
		}
	}
	plain, _ := url.Parse("https://api.example/v1")
	explicit, _ := url.Parse("https://api.example:443/v1/x")
	if !sameServer(plain, explicit) {
		t.Errorf("https://api.example and https://api.example:443 are one server")
	}
}
