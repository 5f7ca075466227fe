package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/react-agent/react-agent/tools"
	"github.com/react-agent/react-agent/tools/bounded"
)

// An evaluation recorded with eval --record keeps, beside its cassettes,
// the settings that shape what its runs send a model: the prompt, the
// tools offered, the iterations a run may take (the observations say how
// many are left) and the bytes of an observation. eval --replay answers
// from the cassettes only if its runs send what was recorded, so it takes
// these settings from the recording, as -c takes a conversation's from
// the log: the config file's prompt: or a REACT_AGENT_* variable is set
// aside for the replay (and a note says so), and a flag on the command
// line keeps its value, which a run that diverges names.

// recordingFile is the file of an evaluation's settings, in the folder
// of its cassettes.
const recordingFile = "settings.json"

// recording are the settings an evaluation was recorded with, under the
// names of their flags, as the config file writes them.
type recording struct {
	Prompt         string   `json:"prompt"`
	Tools          []string `json:"tool"`
	MaxIterations  int      `json:"max-iterations"`
	MaxObservation int      `json:"max-observation"`
}

// recordedNow returns the settings of the evaluation f runs, offering
// the tools of base.
func (f *evalFlags) recordedNow(base *tools.Registry) recording {
	return recording{Prompt: f.prompt, Tools: base.ToolNames(), MaxIterations: f.maxIterations,
		MaxObservation: f.tools().MaxObservation}
}

// writeRecording writes r to the folder dir of an evaluation's cassettes.
func writeRecording(dir string, r recording) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, recordingFile), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// readRecording reads the settings of the evaluation recorded in dir, or
// returns nil when dir has none: cassettes recorded before they were
// kept, or written by hand.
func readRecording(dir string) (*recording, error) {
	path := filepath.Join(dir, recordingFile)
	f, err := bounded.OpenFile(path, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	var r recording
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, usagef("replay: %s: %v; it is written by eval --record", path, err)
	}
	return &r, nil
}

// replaySettings are the settings of an evaluation replayed: what the
// recording gave the flags the command line left, and what the command
// line changed of the recording's, which a run that diverges names.
type replaySettings struct {
	dir string
	// setAside are the settings of the environment and the config file
	// that the recording's stand in for: "prompt full, not compact (from
	// FILE)".
	setAside []string
	// changed are the flags of the command line that differ from the
	// recording: "--prompt compact (the recording has full)".
	changed []string
	// unknown means the recording does not say its settings; suspects are
	// then the settings that differ from the defaults, and where from.
	unknown  bool
	suspects []string
}

// adoptRecording gives the settings of fs that shape what a run sends,
// but those set on the command line, the values of the evaluation
// recorded in dir, and says what it set aside and what the command line
// changed. Without the recording's settings, it notes which of them
// differ from their defaults.
func adoptRecording(fs *pflag.FlagSet, dir string) (*replaySettings, error) {
	r, err := readRecording(dir)
	if err != nil {
		return nil, err
	}
	s := &replaySettings{dir: dir}
	names := []string{"prompt", "tool", "max-iterations", "max-observation"}
	if r == nil {
		s.unknown = true
		for _, name := range names {
			if fl := fs.Lookup(name); fl.Value.String() != fl.DefValue && !(name == "tool" && fl.Value.String() == "") {
				s.suspects = append(s.suspects, describeSetting(fs, name))
			}
		}
		return s, nil
	}
	values := map[string]string{"prompt": r.Prompt, "tool": strings.Join(r.Tools, ","),
		"max-iterations": strconv.Itoa(r.MaxIterations), "max-observation": strconv.Itoa(r.MaxObservation)}
	for _, name := range names {
		fl, value := fs.Lookup(name), values[name]
		now := fl.Value.String()
		switch {
		case value == "" || value == "0" || now == value:
		case fl.Changed && len(fl.Annotations[sourceAnnotation]) == 0:
			s.changed = append(s.changed, fmt.Sprintf("%s (the recording has %s)", describeSetting(fs, name), value))
		default:
			if from := fl.Annotations[sourceAnnotation]; len(from) > 0 {
				s.setAside = append(s.setAside, fmt.Sprintf("%s %s, not %s (from %s)", name, value, now, from[0]))
			}
			if sv, ok := fl.Value.(pflag.SliceValue); ok {
				err = sv.Replace(r.Tools)
			} else {
				err = fl.Value.Set(value)
			}
			if err != nil {
				return nil, usagef("replay: %s: %s: %v", filepath.Join(dir, recordingFile), name, err)
			}
			fs.SetAnnotation(name, sourceAnnotation, []string{"the recording in " + dir})
		}
	}
	return s, nil
}

// describeSetting names the setting called name of fs as it is now, and
// where it came from: "--prompt compact", "prompt compact (from FILE)".
func describeSetting(fs *pflag.FlagSet, name string) string {
	fl := fs.Lookup(name)
	if from := fl.Annotations[sourceAnnotation]; len(from) > 0 {
		return fmt.Sprintf("%s %s (from %s)", name, fl.Value.String(), from[0])
	}
	flag := "--" + name
	if name == "tool" {
		flag = "-T"
	}
	return flag + " " + fl.Value.String()
}

// note says which settings of the person's the recording's stand in
// for, and how to replay with them, or "" when none.
func (s *replaySettings) note() string {
	if s == nil || len(s.setAside) == 0 {
		return ""
	}
	return fmt.Sprintf("the replay takes the settings of the recording: %s; a flag on the command line replays with another", list(s.setAside))
}

// diverged says what may have made a replayed run send other than its
// cassette: a flag that changed a recorded setting, or, when the
// recording does not say its settings, those that differ from the
// defaults; "" when there is nothing to say.
func (s *replaySettings) diverged() string {
	switch {
	case s == nil:
	case len(s.changed) > 0:
		return fmt.Sprintf("this replay changes what the recording in %s sent: %s", s.dir, list(s.changed))
	case s.unknown && len(s.suspects) > 0:
		return fmt.Sprintf("%s does not say the settings it was recorded with, and this replay's differ from the defaults: %s", s.dir, list(s.suspects))
	}
	return ""
}
