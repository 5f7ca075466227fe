package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hinshun/vt10x"

	"github.com/react-agent/react-agent/agent/modeltest"
)

// openPTY opens a pseudo-terminal pair (Linux): the test holds the
// master, the program gets the slave as its terminal.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlocking the pty: %w", err)
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("numbering the pty: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	// A real terminal has a size; line editors and progress lines read it.
	size := [4]uint16{24, 80, 0, 0} // rows, columns, pixels
	if err := ioctl(master, syscall.TIOCSWINSZ, unsafe.Pointer(&size)); err != nil {
		master.Close()
		slave.Close()
		return nil, nil, fmt.Errorf("sizing the pty: %w", err)
	}
	return master, slave, nil
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// terminal is the binary running on a pseudo-terminal, with everything it
// wrote there.
type terminal struct {
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	screen bytes.Buffer
	done   chan struct{}
}

// startTerminal runs the binary with stdin, stdout and stderr on a new
// pseudo-terminal that is its controlling terminal; with pipedStdin,
// stdin is a pipe instead, and the terminal is only reachable as /dev/tty.
func startTerminal(t *testing.T, in invocation, pipedStdin ...bool) *terminal {
	t.Helper()
	return onTerminal(t, command(t, in), len(pipedStdin) > 0 && pipedStdin[0])
}

// onTerminal starts cmd as startTerminal starts the binary: a shell, say.
func onTerminal(t *testing.T, cmd *exec.Cmd, pipedStdin bool) *terminal {
	t.Helper()
	master, slave, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	cmd.Env = append([]string{"TERM=xterm"}, cmd.Env...) // a test's own TERM wins
	stdin := cmd.Stdin
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if pipedStdin {
		cmd.Stdin = stdin
		cmd.SysProcAttr.Ctty = 2
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	term := &terminal{t: t, cmd: cmd, master: master, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			term.mu.Lock()
			term.screen.Write(buf[:n])
			term.mu.Unlock()
			if err != nil {
				return // EIO once the program has ended
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		master.Close()
	})
	return term
}

func (term *terminal) text() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.screen.String()
}

// lines returns the screen as a person sees it: what a terminal emulator
// shows after everything written so far (colours, erased lines, a
// redrawn spinner, the cursor moving back), one string a line, without
// trailing blanks and empty lines at the end.
func (term *terminal) lines() []string { return term.linesAt(80) }

// linesAt is lines on an emulator of width columns: wider than the pty,
// it shows a line the program wrote too wide as it is, unwrapped.
func (term *terminal) linesAt(width int) []string {
	vt := vt10x.New(vt10x.WithSize(width, 300))
	vt.Write([]byte(term.text()))
	lines := strings.Split(vt.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \x00")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// waitText waits until the terminal shows want.
func (term *terminal) waitText(want string) {
	term.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(term.text(), want) {
			return
		}
	}
	term.t.Fatalf("the terminal never showed %q; it shows:\n%q", want, term.text())
}

// waitLastLine waits until the last line of the screen, as lines shows
// it, is want.
func (term *terminal) waitLastLine(want string) {
	term.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if l := term.lines(); len(l) > 0 && l[len(l)-1] == want {
			return
		}
	}
	term.t.Fatalf("the last line of the terminal is not %q; it shows:\n%s", want, strings.Join(term.lines(), "\n"))
}

// waitLine waits until a line of the screen, as lines shows it, holds
// want.
func (term *terminal) waitLine(want string) {
	term.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for _, l := range term.lines() {
			if strings.Contains(l, want) {
				return
			}
		}
	}
	term.t.Fatalf("no line of the terminal showed %q; it shows:\n%s", want, strings.Join(term.lines(), "\n"))
}

// typeLine types a line ended with a line feed (Ctrl-J).
func (term *terminal) typeLine(s string) {
	if _, err := term.master.Write([]byte(s + "\n")); err != nil {
		term.t.Fatal(err)
	}
}

// enterLine types a line as a person does, ended with the Enter key: a
// carriage return, which the terminal turns into a line feed unless a
// line editor left it in raw mode.
func (term *terminal) enterLine(s string) {
	if _, err := term.master.Write([]byte(s + "\r")); err != nil {
		term.t.Fatal(err)
	}
}

// wait waits for the program to end and returns its exit status.
func (term *terminal) wait() int {
	term.t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- term.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		term.t.Fatalf("the program did not end; the terminal shows:\n%q", term.text())
	}
	select {
	case <-term.done:
	case <-time.After(5 * time.Second):
	}
	return term.cmd.ProcessState.ExitCode()
}

func TestTerminalConfirmsShellCommand(t *testing.T) {
	for _, answer := range []string{"y", "n", "a"} {
		t.Run("answering "+answer, func(t *testing.T) {
			s := ollama(t, "shell_confirm.json")
			term := startTerminal(t, invocation{args: []string{"ask", "--allow-shell", "--base-url", s.URL, "What does the shell say?"}})
			term.waitText("echo confirmed-$((6*7))")
			term.waitText("[y/N")
			term.typeLine(answer)
			code := term.wait()
			screen := term.text()
			ran := strings.Contains(screen, "confirmed-42")
			if code != 0 || ran != (answer != "n") {
				t.Fatalf("answer %q: exit %d, command ran: %v; the terminal shows:\n%s", answer, code, ran, screen)
			}
			if strings.Contains(screen, "$((6*7))The agent") {
				t.Errorf("the question is glued to the streamed text:\n%q", screen)
			}
			for _, line := range term.lines() {
				if regexp.MustCompile(`^\[\d+\] \(\d+(\.\d+)?m?s\)$`).MatchString(line) {
					t.Errorf("a step's time stands on a line of its own after the confirmation: %q\n%s", line, strings.Join(term.lines(), "\n"))
				}
			}
			if answer == "n" && !strings.Contains(screen, "not") {
				t.Errorf("a refused command should be reported; the terminal shows:\n%s", screen)
			}
			if !strings.Contains(screen, "[y/N, or a: always shell in this run]") {
				t.Errorf("a one-shot ask's question says a allows the shell longer than the run:\n%s", screen)
			}
		})
	}
}

// TestTerminalChatConfirmsShellCommand answers a shell confirmation in
// chat, where the line editor reads the questions: the answer typed and
// Enter pressed reach the confirmation as they do in ask, and the session
// goes on. With "a", a second command of the shell runs unasked.
func TestTerminalChatConfirmsShellCommand(t *testing.T) {
	for _, answer := range []string{"y", "n", "a"} {
		t.Run("answering "+answer, func(t *testing.T) {
			t.Parallel()
			s := ollama(t, "shell_confirm.json", modeltest.Repeat())
			term := startTerminal(t, invocation{args: []string{"chat", "--allow-shell", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
			term.waitText("> ")
			term.enterLine("What does the shell say?")
			term.waitText("[y/N")
			term.enterLine(answer)
			term.waitText("the shell answered")
			ran := strings.Count(term.text(), "confirmed-42")
			if answer != "n" && ran == 0 || answer == "n" && ran > 0 {
				t.Fatalf("answer %q: the command ran: %v; the terminal shows:\n%s", answer, ran > 0, strings.Join(term.lines(), "\n"))
			}
			if !strings.Contains(strings.Join(term.lines(), "\n"), "[y/N, or a: always shell in this chat] "+answer) {
				t.Errorf("the answer typed is not shown after the question:\n%s", strings.Join(term.lines(), "\n"))
			}
			term.waitText("\n> ")
			term.enterLine("Once more?")
			if answer == "a" {
				// No second question: the shell runs at once.
				for deadline := time.Now().Add(20 * time.Second); strings.Count(term.text(), "the shell answered") < 2; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) || strings.Count(term.text(), "[y/N") > 1 {
						t.Fatalf("after \"a\", the second command was asked about or never ran:\n%s", strings.Join(term.lines(), "\n"))
					}
				}
				if !strings.Contains(strings.Join(term.lines(), "\n"), "[allowed: you answered a, always shell in this chat]") {
					t.Errorf("the second command ran without a line that says why it was not asked about:\n%s", strings.Join(term.lines(), "\n"))
				}
			} else {
				for deadline := time.Now().Add(20 * time.Second); strings.Count(term.text(), "[y/N") < 2; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the second command was not asked about:\n%s", strings.Join(term.lines(), "\n"))
					}
				}
				term.enterLine("n")
				for deadline := time.Now().Add(20 * time.Second); strings.Count(term.text(), "the shell answered") < 2; time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the second answer never came:\n%s", strings.Join(term.lines(), "\n"))
					}
				}
			}
			time.Sleep(200 * time.Millisecond) // the prompt comes back
			term.enterLine("/exit")
			if code := term.wait(); code != 0 {
				t.Fatalf("exit %d; the terminal shows:\n%s", code, strings.Join(term.lines(), "\n"))
			}
		})
	}
}

// TestTerminalToolAsksOnce: tool runs one call, so its question offers
// no "a, always", and a refusal is told to the person, not as advice to
// the model.
func TestTerminalToolAsksOnce(t *testing.T) {
	term := startTerminal(t, invocation{args: []string{"tool", "--allow-shell", "shell", "echo hi"}, env: []string{"NO_COLOR=1"}})
	term.waitText("[y/N")
	term.typeLine("n")
	if code := term.wait(); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	screen := strings.Join(term.lines(), "\n")
	if !strings.Contains(screen, "Run it? [y/N] n\nreact-agent: shell: not run: you did not allow it") || strings.Contains(screen, "retry") {
		t.Errorf("want a yes-or-no question, then that the call did not run:\n%s", screen)
	}
}

func TestTerminalConfirmsOnDevTTYWhenStdinIsAPipe(t *testing.T) {
	s := ollama(t, "shell_confirm.json")
	term := startTerminal(t, invocation{
		args:  []string{"ask", "--allow-shell", "--base-url", s.URL},
		stdin: "What does the shell say?",
		env:   []string{"NO_COLOR=1"},
	}, true)
	term.waitText("[y/N")
	term.typeLine("y")
	if code := term.wait(); code != 0 || !strings.Contains(term.text(), "confirmed-42") {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, term.text())
	}
	if body := fmt.Sprint(s.Request(0)); !strings.Contains(body, "What does the shell say?") {
		t.Errorf("the question did not come from stdin: %s", body)
	}
}

func TestTerminalColour(t *testing.T) {
	demo := []string{"ask", "--provider", "replay", "--replay", "testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"}
	tests := []struct {
		name   string
		env    []string
		colour bool
	}{
		{"a terminal gets colour", nil, true},
		{"NO_COLOR turns it off", []string{"NO_COLOR=1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := startTerminal(t, invocation{args: demo, env: tt.env})
			if code := term.wait(); code != 0 {
				t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
			}
			screen := term.text()
			if got := sgr.MatchString(screen); got != tt.colour {
				t.Errorf("colour: %v, want %v; the terminal shows:\n%q", got, tt.colour, screen)
			}
			if !strings.Contains(screen, "17 * 23 + 4 = 395") {
				t.Errorf("no answer on the terminal:\n%q", screen)
			}
		})
	}
}

func TestTerminalChat(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Repeat())
	term := startTerminal(t, invocation{args: []string{"chat", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
	term.waitText("> ")
	term.typeLine("What is 17 * 23 + 4?")
	term.waitText("17 * 23 + 4 = 395")
	term.typeLine("/tools")
	term.waitText("expression")
	term.typeLine("/exit")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
}

func TestTerminalChatCtrlC(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Hang())
	term := startTerminal(t, invocation{args: []string{"chat", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
	term.waitText("> ")
	term.typeLine("What is 17 * 23 + 4?")
	waitFor(t, "the model call", func() bool { return s.Calls() > 0 })
	term.master.Write([]byte{3}) // Ctrl-C, as typed
	term.waitText("interrupted")
	if strings.Count(term.text(), "> ") < 2 {
		term.waitText("\n> ")
	}
	term.typeLine("/exit")
	if code := term.wait(); code != 0 {
		t.Fatalf("after Ctrl-C stopped an answer, /exit should end the session with 0; exit %d; the terminal shows:\n%q", code, term.text())
	}

	t.Run("Ctrl-C on a half-typed line clears it and the session goes on", func(t *testing.T) {
		s := ollama(t, "calculator.json", modeltest.Repeat())
		term := startTerminal(t, invocation{args: []string{"chat", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
		term.waitText("> ")
		term.master.Write([]byte("half typed"))
		term.waitText("half typed")
		term.master.Write([]byte{3})
		term.waitText("^C")
		term.master.Write([]byte{3}) // on the empty line: how to leave
		term.waitText("(Ctrl-D or /exit ends the session)")
		term.typeLine("exit")
		if code := term.wait(); code != 0 {
			t.Fatalf("exit %d, want 0 from a bare exit after Ctrl-C cleared the line; the terminal shows:\n%q", code, term.text())
		}
		if n := s.Calls(); n != 0 {
			t.Errorf("%d model calls: the cleared line or exit was asked", n)
		}
	})
}

// TestTerminalShowsEscapesAsText runs a model whose reply holds terminal
// escapes: on a terminal, neither the trace nor the answer sends them.
func TestTerminalShowsEscapesAsText(t *testing.T) {
	s := ollama(t, "hostile.json")
	term := startTerminal(t, invocation{args: []string{"ask", "--base-url", s.URL, "hi"}, env: []string{"NO_COLOR=1"}})
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	screen := term.text()
	for _, escape := range []string{"\x1b[2J", "\x1b]0;", "\x1b]52;"} {
		if strings.Contains(screen, escape) {
			t.Errorf("the terminal received %q:\n%q", escape, screen)
		}
	}
	if !strings.Contains(screen, `safe\x1b]0;pwned\x07 and`) {
		t.Errorf("the answer is not shown with its escapes as text:\n%q", screen)
	}
}

// TestTerminalCtrlCAtAConfirmationKeepsTheNextLine presses Ctrl-C at a
// shell confirmation in chat: the answer stops, and the next line typed is
// the next question, not swallowed by the confirmation.
func TestTerminalCtrlCAtAConfirmationKeepsTheNextLine(t *testing.T) {
	s := ollama(t, "shell_confirm.json")
	term := startTerminal(t, invocation{args: []string{"chat", "--allow-shell", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
	term.waitText("> ")
	term.typeLine("What does the shell say?")
	term.waitText("[y/N")
	term.master.Write([]byte{3})
	term.waitText("interrupted")
	time.Sleep(300 * time.Millisecond) // the prompt comes back
	term.typeLine("And now?")
	term.waitText("the shell answered")
	term.typeLine("/exit")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	if strings.Contains(term.text(), "confirmed-42") {
		t.Errorf("the command ran after Ctrl-C:\n%q", term.text())
	}
}

// TestTerminalRefusesACommandItCannotShow has the model ask for a shell
// command whose start a carriage return and an erase would hide: nobody is
// asked to confirm what they cannot see, and nothing runs.
func TestTerminalRefusesACommandItCannotShow(t *testing.T) {
	s := ollama(t, "shell_hidden.json")
	term := startTerminal(t, invocation{args: []string{"ask", "--allow-shell", "--base-url", s.URL, "List the files"}, env: []string{"NO_COLOR=1"}})
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	screen := term.text()
	if strings.Contains(screen, "[y/N") || strings.Contains(screen, "hidden-part-ran\r\n") || !strings.Contains(screen, "control character U+000D") {
		t.Fatalf("want the command refused before any question, and shown with its escapes as text:\n%q", screen)
	}
	if !strings.Contains(screen, `# \r\u001b[K ls -la"}`) {
		t.Errorf("the action is not shown as written:\n%q", screen)
	}
}

// TestTerminalShowsTheAnswerOnce runs the README's first command on a
// terminal: the answer is there once, on a line of its own, and so is a
// chat's.
func TestTerminalShowsTheAnswerOnce(t *testing.T) {
	term := startTerminal(t, invocation{args: []string{"ask", "--provider", "replay", "--replay", "testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"},
		env: []string{"NO_COLOR=1"}})
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	// Read as a person reads the screen: the answer once, on a line of
	// its own; every line of the trace tagged with its step; nothing left
	// of the spinner.
	screen := term.lines()
	answers := 0
	for _, l := range screen {
		if strings.Contains(l, "17 * 23 + 4 = 395") {
			answers++
			if !strings.HasSuffix(l, "Final Answer: 17 * 23 + 4 = 395") && l != "17 * 23 + 4 = 395" {
				t.Errorf("the answer shares its line: %q", l)
			}
		}
		if strings.Contains(l, "thinking…") || strings.Contains(l, "running calculator") {
			t.Errorf("a spinner's text is left on the screen: %q", l)
		}
	}
	if answers != 1 {
		t.Errorf("the answer shows %d times, want once:\n%s", answers, strings.Join(screen, "\n"))
	}
	// Each step starts a line of its own, tagged with its number.
	for _, step := range []string{"[1] ", "[2] ", "[3] "} {
		if !slices.ContainsFunc(screen, func(l string) bool { return strings.HasPrefix(l, step) }) {
			t.Errorf("no line starts step %q:\n%s", step, strings.Join(screen, "\n"))
		}
	}
	t.Logf("the screen:\n%s", strings.Join(screen, "\n"))

	s := ollama(t, "calculator.json", modeltest.Repeat())
	chat := startTerminal(t, invocation{args: []string{"chat", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
	chat.waitText("> ")
	chat.typeLine("What is 17 * 23 + 4?")
	chat.waitText("395")
	chat.typeLine("/exit")
	if code := chat.wait(); code != 0 {
		t.Fatalf("chat: exit %d; the terminal shows:\n%q", code, chat.text())
	}
	screen = chat.lines()
	answers = 0
	for i, l := range screen {
		if strings.Contains(l, "= 395") {
			answers++
			if strings.Contains(l, "395395") || strings.Contains(l, "> ") {
				t.Errorf("chat: the answer shares its line: %q", l)
			}
		}
		if strings.HasPrefix(l, "> /exit") && i > 0 && strings.Contains(screen[i-1], "> ") {
			t.Errorf("chat: the prompt came twice before /exit:\n%s", strings.Join(screen, "\n"))
		}
	}
	if answers != 1 {
		t.Errorf("chat: the answer shows %d times, want once:\n%s", answers, strings.Join(screen, "\n"))
	}
}

// TestTerminalDumbGetsNoEscapes runs on a terminal that says it cannot
// redraw (TERM=dumb): no colour, no spinner, no erase codes.
func TestTerminalDumbGetsNoEscapes(t *testing.T) {
	term := startTerminal(t, invocation{args: []string{"ask", "--replay", "testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"}, env: []string{"TERM=dumb"}})
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	if screen := term.text(); strings.Contains(screen, "\x1b") || !strings.Contains(screen, "17 * 23 + 4 = 395") {
		t.Errorf("want the answer and no escape codes:\n%q", screen)
	}
}

// TestTerminalChatEditsLines uses the chat's line editing as a person
// would: the up arrow brings the last question back, and a line ending in
// a backslash goes on on the next.
func TestTerminalChatEditsLines(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Repeat())
	term := startTerminal(t, invocation{args: []string{"chat", "-q", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
	term.waitText("> ")
	term.typeLine("What is 17 * 23 \\")
	term.waitText(". ")
	term.typeLine("+ 4?")
	term.waitText("= 395")
	time.Sleep(200 * time.Millisecond)
	term.master.Write([]byte("\x1b[A")) // up arrow
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		lines := term.lines()
		if last := lines[len(lines)-1]; last == "> What is 17 * 23 + 4?" {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the question of two lines came back as %q, want it on one line; the screen:\n%s", last, strings.Join(lines, "\n"))
		}
	}
	term.master.Write([]byte("\r")) // Enter
	for deadline := time.Now().Add(20 * time.Second); strings.Count(term.text(), "= 395") < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the up arrow did not bring the question back; the terminal shows:\n%q", term.text())
		}
	}
	term.typeLine("/exit")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	if body := fmt.Sprint(s.Request(0)); !strings.Contains(body, `What is 17 * 23 \n+ 4?`) && !strings.Contains(body, "What is 17 * 23 \n+ 4?") {
		t.Errorf("the continued question did not reach the model whole: %.300s", body)
	}
	if n := s.Calls(); n < 4 {
		t.Errorf("%d model calls, want the question asked twice", n)
	}
}

// TestTerminalJSONAlone runs --json on a terminal: the screen shows the
// events, not the trace interleaved with them.
func TestTerminalJSONAlone(t *testing.T) {
	term := startTerminal(t, invocation{args: []string{"ask", "--json", "--replay", "testdata/agent/demo.jsonl", "What is 17 * 23 + 4?"}, env: []string{"NO_COLOR=1"}})
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%q", code, term.text())
	}
	screen := term.text()
	if !strings.Contains(screen, `{"type":"final"`) || strings.Contains(screen, "[1] Action:") || strings.Contains(screen, "Thought: I will") {
		t.Errorf("want the events alone:\n%q", screen)
	}
}

// TestTerminalEvalFitsEightyColumns runs eval on a terminal of 80
// columns: the progress line is redrawn in place and erased, and the
// table fits the width.
func TestTerminalEvalFitsEightyColumns(t *testing.T) {
	term := startTerminal(t, invocation{args: []string{"eval", "--replay", "testdata/eval/replay", "--models", "ollama:neat,ollama:sloppy",
		"--protocol", "text,native", "testdata/eval/arithmetic.jsonl"}, env: []string{"NO_COLOR=1"}})
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, term.text())
	}
	screen := term.linesAt(200)
	for _, line := range screen {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
		if strings.Contains(line, "[#") || strings.Contains(line, "..]") {
			t.Errorf("a stale progress line: %q", line)
		}
	}
	if !strings.Contains(strings.Join(screen, "\n"), "ollama:sloppy  native") {
		t.Errorf("the table is not on the screen:\n%s", strings.Join(screen, "\n"))
	}
	if !strings.Contains(term.text(), "[#") {
		t.Errorf("no progress was shown:\n%q", term.text())
	}
}

// TestTerminalTypingAheadInAChatWaitsForThePrompt types the next
// question while a chat's answer is written: it does not land on the
// spinner's line, and the next prompt shows it, ready to edit or send.
func TestTerminalTypingAheadInAChatWaitsForThePrompt(t *testing.T) {
	s := ollama(t, "calculator.json", modeltest.Repeat(), modeltest.Pieces(4096), modeltest.Slow(1500*time.Millisecond))
	term := startTerminal(t, invocation{args: []string{"chat", "--base-url", s.URL}, env: []string{"NO_COLOR=1"}})
	term.waitText("> ")
	term.enterLine("What is 17 * 23 + 4?")
	term.waitText("thinking")
	if _, err := term.master.Write([]byte("/tools")); err != nil {
		t.Fatal(err)
	}
	term.waitText("= 395")
	term.waitLastLine("> /tools")
	// The spinner's line is erased once the answer comes: what was on
	// it shows in what was written, not on the screen at the end.
	if text := term.text(); strings.Index(text, "/tools") < strings.Index(text, "= 395") {
		t.Errorf("what was typed ahead showed while the answer was written:\n%q", text)
	}
	term.enterLine("")
	term.waitText("http_request") // the typed-ahead line ran
	term.enterLine("/exit")
	if code := term.wait(); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, strings.Join(term.lines(), "\n"))
	}
}
