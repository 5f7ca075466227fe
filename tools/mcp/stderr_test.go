package mcp

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestTail(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"lines are kept across writes", []string{"one\ntw", "o\nthr"}, []string{"one", "two", "thr"}},
		{"blank lines and carriage returns are dropped", []string{"a\r\n\n  \nb\n"}, []string{"a", "b"}},
		{"only the last lines are kept", []string{strings.Repeat("x\n", 3) + "1\n2\n3\n4\n5\n6\n7\n8\n"}, []string{"1", "2", "3", "4", "5", "6", "7", "8"}},
		{"a long line is cut", []string{strings.Repeat("y", 1000) + "\n"}, []string{strings.Repeat("y", stderrLineSize)}},
		{"node's stack trace keeps the error's line", []string{nodeTrace}, []string{
			"node:internal/modules/cjs/loader:1210",
			"    … (2 indented lines left out)",
			"Error: Cannot find module '@modelcontextprotocol/server-nonexistent'",
			"Require stack:",
			"- /tmp/work/[eval]",
			"    … (12 indented lines left out)",
			"}",
			"Node.js v20.20.2",
		}},
		{"Python's traceback keeps the error's line", []string{"Traceback (most recent call last):\n" +
			strings.Repeat("  File \"/srv/mcp.py\", line 3, in <module>\n    import mcp_tools\n", 20) +
			"ModuleNotFoundError: No module named 'mcp_tools'\n"}, []string{
			"Traceback (most recent call last):",
			"    … (40 indented lines left out)",
			"ModuleNotFoundError: No module named 'mcp_tools'",
		}},
		{"one indented line stays", []string{"usage: server [--port N]\n  --port N  the port\nerror: unknown flag\n"},
			[]string{"usage: server [--port N]", "  --port N  the port", "error: unknown flag"}},
		{"control characters are escaped", []string{"\x1b[31mred\x1b[0m \u202eevil\n"}, []string{`\x1b[31mred\x1b[0m \u202eevil`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tl tail
			for _, w := range tt.writes {
				fmt.Fprint(&tl, w)
			}
			if got := tl.Lines(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// nodeTrace is what node writes on stderr when a module it requires is
// missing.
const nodeTrace = `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '@modelcontextprotocol/server-nonexistent'
Require stack:
- /tmp/work/[eval]
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at Module.require (node:internal/modules/cjs/loader:1289:19)
    at require (node:internal/modules/helpers:182:18)
    at [eval]:1:1
    at runScriptInThisContext (node:internal/vm:209:10)
    at node:internal/process/execution:118:14
    at [eval]-wrapper:6:24
    at runScript (node:internal/process/execution:101:62)
    at evalScript (node:internal/process/execution:133:3) {
  code: 'MODULE_NOT_FOUND',
  requireStack: [ '/tmp/work/[eval]' ]
}

Node.js v20.20.2
`
