package agent

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/react-agent/react-agent/prompt"
)

// NewTracePrinter returns an event function (see WithEvents) that writes
// the run to w, usually os.Stderr, for a person to follow:
//
//	[1] Thought: I should compute it. (1.2s)
//	[1] Action: calculator {"expression":"17*23+4"}
//	[1] Observation: 395 (1ms)
//	[2] Final Answer: 395 (0.8s)
//
// Reasoning text is shown indented under "thinking:"; long observations are
// shortened to their first lines.
func NewTracePrinter(w io.Writer) func(Event) {
	var mu sync.Mutex
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		tag := fmt.Sprintf("[%d] ", e.Iteration)
		if e.Reasoning != "" {
			b.WriteString(tag + "thinking:\n" + indent(shorten(e.Reasoning, 2000), "    ") + "\n")
		}
		switch e.Kind {
		case EventThought:
			if e.Text != "" {
				fmt.Fprintf(&b, "%sThought: %s%s\n", tag, e.Text, took(e.Duration))
			}
		case EventAction:
			fmt.Fprintf(&b, "%sAction: %s %s\n", tag, e.Tool, prompt.FormatArgs(e.Args))
		case EventObservation:
			label := "Observation"
			if e.Failed {
				label = "Observation (error)"
			}
			fmt.Fprintf(&b, "%s%s: %s%s\n", tag, label, indent(shorten(e.Text, 800), "    ")[4:], took(e.Duration))
		case EventFinal:
			forced := ""
			if e.Forced {
				forced = fmt.Sprintf(" [forced: %s]", e.StopReason)
			}
			fmt.Fprintf(&b, "%sFinal Answer: %s%s%s\n", tag, e.Text, forced, took(e.Duration))
		case EventError:
			fmt.Fprintf(&b, "%serror: %s\n", tag, e.Text)
		case EventWarning:
			fmt.Fprintf(&b, "%swarning: %s\n", tag, e.Text)
		}
		io.WriteString(w, b.String())
	}
}

func took(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return " (" + d.Round(time.Millisecond).String() + ")"
}

func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return fmt.Sprintf("%s … (%d more bytes)", s[:cut], len(s)-cut)
}

func indent(s, pad string) string {
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}
