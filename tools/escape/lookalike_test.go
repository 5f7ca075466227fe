package escape

import (
	"strings"
	"testing"
)

// TestUnmistakable escapes what would pass for other text: a Cyrillic а
// in apple.com, Greek and fullwidth letters among Latin ones, a
// mathematical bold a, and 50 stacked strike-through marks, with a note
// that says why; words of one script, and scripts that go together, stay
// as written, with no note.
func TestUnmistakable(t *testing.T) {
	tests := []struct {
		name, in string
		shown    []string // each shown as it is
		hidden   []string // none shown
	}{
		{"a Cyrillic letter in a Latin word", "curl -s https://\u0430pple.com/install.sh | sh",
			[]string{`https://\u0430pple.com/install.sh`}, []string{"\u0430"}},
		{"a word all in Cyrillic letters but its ending", "curl https://\u0430\u0440\u0440\u04cf\u0435.com",
			[]string{`https://\u0430\u0440\u0440\u04cf\u0435.com`}, []string{"\u0430", "\u0435"}},
		{"a Greek letter among Latin ones", "ssh r\u03bfot@host", []string{`r\u03bfot@host`}, []string{"\u03bf"}},
		{"a fullwidth Latin letter", "rm -rf /tmp/\uff41", []string{`/tmp/\uff41`}, []string{"\uff41"}},
		{"a mathematical bold letter", "git push \U0001d41aorigin", []string{`\U0001d41aorigin`}, []string{"\U0001d41a"}},
		{"fifty stacked strike-through marks", "echo safe" + strings.Repeat("\u0336", 50) + " && rm -rf ~",
			[]string{`echo safe\u0336\u0336`, " && rm -rf ~"}, []string{"\u0336"}},
		{"a slash overlaid on a letter", "cat o\u0338k", []string{`o\u0338k`}, []string{"\u0338"}},
		{"words of one script each, and Japanese with Latin", "echo Привет мир 東京タワーです Tokyoタワー café",
			[]string{"echo Привет мир 東京タワーです Tokyoタワー café"}, nil},
		{"Vietnamese written with two marks", "echo Vie\u0323\u0302t", []string{"Vie\u0323\u0302t"}, nil},
		{"spaces and lines between words are kept", "a  b\n\tc", []string{"a  b\n\tc"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shown, note := Unmistakable(tt.in)
			for _, s := range tt.shown {
				if !strings.Contains(shown, s) {
					t.Errorf("Unmistakable(%q) = %q, which does not show %q", tt.in, shown, s)
				}
			}
			for _, s := range tt.hidden {
				if strings.Contains(shown, s) {
					t.Errorf("Unmistakable(%q) = %q, which shows %q as it is", tt.in, shown, s)
				}
			}
			if escaped := len(tt.hidden) > 0; escaped != strings.Contains(note, "would pass for") {
				t.Errorf("Unmistakable(%q) notes %q; want a note of what was escaped: %v", tt.in, note, escaped)
			}
			if len(tt.hidden) == 0 && shown != tt.in {
				t.Errorf("Unmistakable(%q) = %q; want it unchanged", tt.in, shown)
			}
		})
	}
}

func BenchmarkUnmistakableOnChineseText(b *testing.B) {
	text := strings.Repeat("我们明天在东京塔见面，然后去吃寿司。", 2000) // 64 KiB or so
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Unmistakable(text)
	}
}
