package tools

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/react-agent/react-agent/tools/escape"
)

// Served is implemented by tools that run on a server of their own, such
// as the tools of an MCP server; listings name the server.
type Served interface {
	// Server names the server the tool runs on.
	Server() string
}

// FormatList writes the tools of r for `react-agent tools`: each tool's
// name (and its server, for a [Served] tool) and description, then its
// arguments with their types, whether they are required and which one is
// primary. Everything a tool says of itself is shown through [escape.Visible],
// with tabs and line breaks inside a name or an argument's description
// escaped too, so that text from an MCP server or a plugin file can
// neither drive the terminal nor break the table.
func FormatList(w io.Writer, r *Registry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, t := range r.List() {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		name := cell(t.Name())
		if s, ok := t.(Served); ok {
			name += fmt.Sprintf("  (server: %s)", cell(s.Server()))
		}
		desc := strings.ReplaceAll(escape.Visible(t.Description()), "\t", " ")
		desc = strings.ReplaceAll(strings.TrimRight(desc, "\n"), "\n", "\n    ")
		fmt.Fprintf(tw, "%s\n    %s\n", name, desc)
		s := t.Schema()
		if len(s.Args) == 0 {
			fmt.Fprintln(tw, "    (no arguments)")
			continue
		}
		fmt.Fprintln(tw, "    arguments:")
		for _, a := range s.Args {
			var flags []string
			if a.Required {
				flags = append(flags, "required")
			} else {
				flags = append(flags, "optional")
			}
			if a.Name == s.Primary {
				flags = append(flags, "primary")
			}
			typ := a.Type
			if typ == "" {
				typ = "any"
			}
			fmt.Fprintf(tw, "      %s\t%s\t%s\t%s\n", cell(a.Name), cell(typ), strings.Join(flags, ", "), cell(a.Description))
		}
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	return nil
}

// cell is s made visible for one cell of a table: on one line, with no
// tab to start another cell.
func cell(s string) string {
	return oneLine.Replace(escape.Visible(s))
}

// oneLine writes tabs and newlines as escapes.
var oneLine = strings.NewReplacer("\t", `\t`, "\n", `\n`)
