package trace

import "testing"

func TestVisible(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is unchanged", "Paris, 2 141 000 habitants\n\tok", "Paris, 2 141 000 habitants\n\tok"},
		{"an escape sequence is shown, not sent", "a\x1b[2Jb", `a\x1b[2Jb`},
		{"a carriage return cannot hide what came before", "rm -rf ~ #\r ls", `rm -rf ~ #\r ls`},
		{"an OSC 52 clipboard write is shown", "\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`},
		{"a C1 control is shown", "a\u009bb", `a\x9bb`},
		{"a bidi override is shown", "abc\u202edef", `abc\u202edef`},
		{"invalid UTF-8 is shown byte by byte", "a\xffb", `a\xffb`},
		{"Chinese text is unchanged", "最终答案：四", "最终答案：四"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Visible(tt.in); got != tt.want {
				t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
