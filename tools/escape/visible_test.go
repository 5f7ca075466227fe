package escape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/react-agent/react-agent/tools/escape/escapetest"
)

func TestVisibleEscapesEveryInvisibleCharacter(t *testing.T) {
	for _, c := range escapetest.Invisibles {
		t.Run(c.Name, func(t *testing.T) {
			in := "cd /tmp/safe" + string(c.R) + "; touch MARK"
			got := Visible(in)
			if strings.ContainsRune(got, c.R) {
				t.Fatalf("Visible(%q) = %q keeps %U", in, got, c.R)
			}
			if want := "cd /tmp/safe" + escapeOf(c.R) + "; touch MARK"; got != want {
				t.Errorf("Visible(%q) = %q, want %q", in, got, want)
			}
			if Hidden(in) == "" {
				t.Errorf("Hidden(%q) finds nothing", in)
			}
		})
	}
}

// escapeOf is a rune above U+007F as Go writes it in a string literal.
func escapeOf(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

func TestVisible(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text, tabs and newlines are kept", "plain text\n\twith a tab", "plain text\n\twith a tab"},
		{"control characters are escaped", "bell\a and \x7f", `bell\x07 and \x7f`},
		{"a carriage return cannot hide what came before", "rm -rf ~ #\r ls", `rm -rf ~ #\x0d ls`},
		{"a byte that is not UTF-8 is escaped", "bad \xff byte", `bad \xff byte`},
		{"a C1 control is told from a byte that is not UTF-8", "a\u009bb\x9b", `a\u009bb\x9b`},
		{"a real replacement character stays", "a real \uFFFD stays", "a real \uFFFD stays"},
		{"a clipboard write is escaped", "\x1b]52;c;ZWNobyBoaQ==\a", `\x1b]52;c;ZWNobyBoaQ==\x07`},
		{"a right-to-left override is escaped", "abc\u202efdp.exe", `abc\u202efdp.exe`},
		{"tags hiding a message are escaped one by one", "hi\U000E0041\U000E0042", `hi\U000e0041\U000e0042`},
		{"Chinese text is unchanged", "最终答案：四", "最终答案：四"},
		{"an emoji's presentation selector stays", "I \u2764\uFE0F Go", "I \u2764\uFE0F Go"},
		{"a keycap emoji stays", "press 1\uFE0F\u20E3", "press 1\uFE0F\u20E3"},
		{"a digit's selector without a keycap is escaped", "rm 1\uFE0F", `rm 1\ufe0f`},
		{"a family joined by zero-width joiners stays", "\U0001F468\u200D\U0001F469\u200D\U0001F467", "\U0001F468\u200D\U0001F469\u200D\U0001F467"},
		{"a rainbow flag stays", "\U0001F3F3\uFE0F\u200D\U0001F308", "\U0001F3F3\uFE0F\u200D\U0001F308"},
		{"a coder with a skin tone stays", "\U0001F469\U0001F3FD\u200D\U0001F4BB", "\U0001F469\U0001F3FD\u200D\U0001F4BB"},
		{"a joiner after an emoji and before a letter is escaped", "\U0001F600\u200Drm", `` + "\U0001F600" + `\u200drm`},
		{"a joiner at the end is escaped", "ok\u200D", `ok\u200d`},
		{"Persian's non-joiner between letters stays", "می\u200Cخواهم", "می\u200Cخواهم"},
		{"Hindi's joiner between letters stays", "क्\u200Dष", "क्\u200Dष"},
		{"a non-joiner between Persian and Latin letters is escaped", "م\u200Ca", `م\u200ca`},
		{"the tags of a subdivision flag are escaped", "\U0001F3F4\U000E0067\U000E007F", "\U0001F3F4" + `\U000e0067\U000e007f`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Visible(tt.in); got != tt.want {
				t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if (Hidden(tt.in) == "") != (tt.in == tt.want) {
				t.Errorf("Hidden(%q) = %q, but Visible changes it: %v", tt.in, Hidden(tt.in), tt.in != tt.want)
			}
		})
	}
}

func TestLiteralEscapesEveryJoinerToo(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a joiner between two emoji", "\U0001F600\u200D\U0001F600", "\U0001F600" + `\u200d` + "\U0001F600"},
		{"an emoji's presentation selector", "\u2764\uFE0F", "\u2764" + `\ufe0f`},
		{"Persian's non-joiner", "می\u200Cخواهم", "می" + `\u200c` + "خواهم"},
		{"a zero-width space, as Visible", "a\u200bb", `a\u200bb`},
		{"emoji without joiners stay", "\U0001F44D\U0001F1EF\U0001F1F5", "\U0001F44D\U0001F1EF\U0001F1F5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Literal(tt.in); got != tt.want {
				t.Errorf("Literal(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestHiddenDescribesTheCharacter(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\x1bb", "the control character U+001B"},
		{"a\u202eb", "the text-direction character U+202E"},
		{"a\u200bb", "the invisible character U+200B"},
		{"a\xffb", "the byte 0xff, which is not UTF-8"},
		{"plain", ""},
	}
	for _, tt := range tests {
		if got := Hidden(tt.in); got != tt.want {
			t.Errorf("Hidden(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLiteralJSONKeepsJSONMeaning(t *testing.T) {
	for _, c := range escapetest.Invisibles {
		t.Run(c.Name, func(t *testing.T) {
			in := map[string]any{"path": "/tmp/safe" + string(c.R)}
			b, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			got := string(LiteralJSON(b))
			if strings.ContainsRune(got, c.R) || Hidden(got) != "" {
				t.Fatalf("LiteralJSON(%s) = %q keeps %U", b, got, c.R)
			}
			var back map[string]any
			if err := json.Unmarshal([]byte(got), &back); err != nil || back["path"] != in["path"] {
				t.Errorf("LiteralJSON(%s) = %s, which reads back as %q (%v)", b, got, back["path"], err)
			}
		})
	}
}

func BenchmarkVisible(b *testing.B) {
	plain := strings.Repeat("The quick brown fox, 最终答案, جواب. ", 100)
	b.Run("plain text", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			Visible(plain)
		}
	})
	hostile := strings.Repeat("a\u200bb\x1b[2J\U000E0041", 300)
	b.Run("hostile text", func(b *testing.B) {
		b.SetBytes(int64(len(hostile)))
		for b.Loop() {
			Visible(hostile)
		}
	})
}

// FuzzVisible checks that what Visible returns is UTF-8 in which nothing
// is hidden, and that text with nothing hidden comes back as it is.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"plain", "a\u200bb", "\x1b[2J", "\xff\xfe", "\U0001F468\u200D\U0001F469", "می\u200Cخواهم", "1\uFE0F\u20E3", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := Visible(s)
		if !utf8.ValidString(v) || Hidden(v) != "" {
			t.Fatalf("Visible(%q) = %q, which hides %s", s, v, Hidden(v))
		}
		if Hidden(s) == "" && v != s {
			t.Fatalf("Visible(%q) = %q, but nothing in it is hidden", s, v)
		}
	})
}

// TestVisibleJSONIsTheSameValue escapes JSON text that holds what Go's
// encoder writes raw and a terminal would act on, and checks that no such
// character is left and that the text decodes to the same value.
func TestVisibleJSONIsTheSameValue(t *testing.T) {
	values := []string{
		"\u009b31m", "\u202eevil", "a\u2066b\u2069", "del\u007f", "zero\u200bwidth", "tag\U000E0041",
		"emoji 👩‍👩‍👧 and ❤️ stay", "plain <b>&</b>", "line\nand\ttab", "\x1b[31m",
	}
	for _, v := range values {
		raw, err := json.Marshal(map[string]string{"k": v})
		if err != nil {
			t.Fatal(err)
		}
		got := VisibleJSON(raw)
		if h := Hidden(string(got)); h != "" {
			t.Errorf("VisibleJSON(%s) = %s, which holds %s", raw, got, h)
		}
		var back map[string]string
		if err := json.Unmarshal(got, &back); err != nil || back["k"] != v {
			t.Errorf("VisibleJSON(%s) = %s, which decodes to %q (%v), not %q", raw, got, back["k"], err, v)
		}
		if strings.Contains(v, "stay") && !bytes.Equal(got, raw) {
			t.Errorf("VisibleJSON(%s) = %s; want it unchanged", raw, got)
		}
	}
}
