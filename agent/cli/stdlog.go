package cli

import (
	"fmt"
	"io"
	"log"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/agent/model"
	"github.com/react-agent/react-agent/agent/redact"
	"github.com/react-agent/react-agent/tools/escape"
)

// maxLibraryNote bounds a message of libraryLog as it is shown, in bytes.
const maxLibraryNote = 400

// libraryLog is where Go's standard logger writes while Run runs. The
// libraries react-agent is made of write there what a developer would
// want to know: net/http that a server sent a response nobody asked for
// ("Unsolicited response received on idle HTTP channel starting with …",
// quoting up to 4 KiB of what the server sent, which may echo the key it
// was sent), langchaingo's Anthropic client an event it did not know.
// Such a message is shown only with -v (whose trace shows the details of
// a run), as a note of its own on stderr: its secrets redacted, its
// hidden characters escaped, on one line of at most maxLibraryNote bytes.
// Otherwise, and under -q, it goes nowhere. It is safe for concurrent
// use, as the logger is.
type libraryLog struct {
	mu      sync.Mutex
	w       io.Writer
	show    bool
	secrets []string
	endLine func() // ends the trace's line before a note, while a run shows one
}

// takeStandardLog sends what Go's standard logger writes to a libraryLog
// writing to e's stderr, which redacts the keys of e's environment and
// the secrets of args; it returns the function that gives the logger back
// its writer, flags and prefix. It changes the process's logger, and so is
// for Run alone, never for a test's run.
func (e *env) takeStandardLog(args []string) (restore func()) {
	l := &libraryLog{w: e.stderr, secrets: []string{e.getenv(envName("api-key"))}}
	for _, p := range model.Providers() {
		if p.KeyEnv != "" {
			l.secrets = append(l.secrets, e.getenv(p.KeyEnv))
		}
	}
	for _, s := range argSecrets(args) {
		l.secrets = append(l.secrets, args[s.arg][s.start:s.end])
	}
	e.stdlog = l
	w, flags, prefix := log.Writer(), log.Flags(), log.Prefix()
	log.SetOutput(l)
	log.SetFlags(0)
	log.SetPrefix("")
	return func() {
		log.SetOutput(w)
		log.SetFlags(flags)
		log.SetPrefix(prefix)
	}
}

// follow takes from the flags of a command whether to show the notes (-v)
// and the secrets they may hold: the key, and the passwords of URLs,
// however they were set.
func (l *libraryLog) follow(fs *pflag.FlagSet) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fs.VisitAll(func(f *pflag.Flag) {
		switch {
		case f.Name == "verbose":
			l.show = f.Value.String() == "true"
		case f.Name == "api-key":
			l.secrets = append(l.secrets, f.Value.String())
		case secretFlags[f.Name]:
			for _, v := range flagValues(f) {
				for _, span := range urlPasswords(v) {
					l.secrets = append(l.secrets, v[span[0]:span[1]])
				}
			}
		}
	})
}

// flagValues returns the values of f: each of a list, or its one value.
func flagValues(f *pflag.Flag) []string {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

// beforeNote sets the function that ends the trace's line before a note,
// or none.
func (l *libraryLog) beforeNote(endLine func()) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.endLine = endLine
}

// Write shows the message p when notes are shown.
func (l *libraryLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.show {
		return len(p), nil
	}
	text := redact.New(l.secrets...).Redact(strings.TrimRight(string(p), "\n"))
	text = escape.Visible(strings.ReplaceAll(text, "\n", `\n`))
	if len(text) > maxLibraryNote {
		text = strings.ToValidUTF8(text[:maxLibraryNote], "") + "…"
	}
	if l.endLine != nil {
		l.endLine()
	}
	fmt.Fprintf(l.w, "react-agent: a library's log: %s\n", text)
	return len(p), nil
}
