package agent

import "testing"

func TestInReasoning(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"<think>abc", true},
		{"<think>abc</think>done", false},
		{"plain", false},
		{"<think>a</think><think>b", true},
	}
	for _, tt := range tests {
		if got := inReasoning(tt.in); got != tt.want {
			t.Errorf("inReasoning(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
