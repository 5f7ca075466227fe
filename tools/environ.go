package tools

import (
	"os"
	"runtime"
	"slices"
	"strings"
)

// inherited are the variables of react-agent's environment that every
// process it starts for a tool gets, as the reference MCP clients pass
// them: enough to find programs, a home and a temporary folder, and the
// language, and none of the API keys meant for the model.
var inherited = map[string][]string{
	"windows": {"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT", "PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "TMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"},
	"":        {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ"},
}

// Environ returns the environment of a process started for a tool (the
// shell, a plugin, an MCP server): the variables of react-agent's own
// environment that let it find programs, its home and temporary folders
// and the language (HOME, PATH, TMPDIR, LANG…), then those named in pass,
// each when it is set. Nothing else goes: not OPENAI_API_KEY nor any other
// key meant for the model, which a command the model wrote could
// otherwise send back to it encoded (base64, reversed) where redaction
// cannot see it. pass is how a user lets a tool have a variable on
// purpose.
func Environ(pass []string) []string {
	names, ok := inherited[runtime.GOOS]
	if !ok {
		names = inherited[""]
	}
	var env []string
	seen := map[string]bool{}
	for _, name := range slices.Concat(names, pass) {
		if v, ok := os.LookupEnv(name); ok && !seen[name] {
			seen[name] = true
			env = append(env, name+"="+v)
		}
	}
	return env
}

// isEnvName reports whether name can name a variable of the environment.
func isEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}
