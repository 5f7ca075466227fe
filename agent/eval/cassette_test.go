package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCassetteNamesAreOnePerRun(t *testing.T) {
	text := Target{Model: "ollama:qwen2.5:7b", Protocol: Text}
	tests := []struct {
		name string
		a, b Target
		p, q string
	}{
		{"ids with a slash and an underscore", text, text, "a/1", "a_1"},
		{"ids with a colon and an underscore", text, text, "a:1", "a_1"},
		{"ids that differ in case", text, text, "A", "a"},
		{"ids that differ in a space", text, text, "a 1", "a1"},
		{"ids with other scripts", text, text, "東京", "大阪"},
		{"protocols", text, Target{Model: text.Model, Protocol: Native}, "a", "a"},
		{"models whose names differ in a colon", text, Target{Model: "ollama:qwen2.5_7b", Protocol: Text}, "a", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" get files of their own", func(t *testing.T) {
			x, y := Cassette(tt.a, Question{ID: tt.p}), Cassette(tt.b, Question{ID: tt.q})
			if strings.EqualFold(x, y) {
				t.Fatalf("Cassette gives %q and %q", x, y)
			}
		})
	}
	t.Run("the server's URL is left out, so that a recording replays offline", func(t *testing.T) {
		live := Cassette(Target{Model: "ollama:neat@http://127.0.0.1:4000", Protocol: Text}, Question{ID: "sum"})
		offline := Cassette(Target{Model: "ollama:neat", Protocol: Text}, Question{ID: "sum"})
		if live != offline {
			t.Fatalf("%q recorded, %q replayed", live, offline)
		}
		if !strings.HasPrefix(live, "ollama_neat_text_sum_") || !strings.HasSuffix(live, ".jsonl") {
			t.Errorf("the name %q does not read as its run", live)
		}
	})
	t.Run("any id is a name the file system takes", func(t *testing.T) {
		dir := t.TempDir()
		for _, id := range []string{"../../etc/passwd", "/", ".", "..", "a\x00b", strings.Repeat("long ", 200), "CON", ""} {
			name := Cassette(text, Question{ID: id})
			if filepath.Base(name) != name || strings.HasPrefix(name, ".") || len(name) > 160 {
				t.Errorf("Cassette(id %q) = %q", id, name)
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, name), nil, 0o600); err != nil {
				t.Errorf("id %q: %v", id, err)
			}
		}
	})
}

func TestCheckCassettes(t *testing.T) {
	qs := []Question{{ID: "a/1"}, {ID: "a_1"}, {ID: "a:1"}}
	tests := []struct {
		name    string
		targets []string
		qs      []Question
		want    string
	}{
		{"ids alike but not the same are fine", []string{"ollama:neat"}, qs, ""},
		{"an id given twice is an error", []string{"ollama:neat"}, append(qs, Question{ID: "a_1"}), `two questions have the id "a_1"`},
		{"a model given twice is an error", []string{"ollama:neat", "ollama:neat"}, qs, `the model "ollama:neat" is given twice`},
		{"models that differ in their URL alone are an error", []string{"ollama:neat@http://a:1", "ollama:neat@http://b:1"}, qs, "differ only in their server's URL"},
		{"the same model under two providers is fine", []string{"ollama:neat", "openai:neat"}, qs, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			targets, err := ParseTargets(tt.targets, []string{Text, Native})
			if err != nil {
				t.Fatal(err)
			}
			err = CheckCassettes(targets, tt.qs)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("CheckCassettes = %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("CheckCassettes = %v, want %q", err, tt.want)
			}
		})
	}
}
