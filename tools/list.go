package tools

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"
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
// primary. Everything a tool says of itself is shown through [Visible],
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
		desc := strings.ReplaceAll(Visible(t.Description()), "\t", " ")
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
	return strings.NewReplacer("\t", `\t`, "\n", `\n`).Replace(Visible(s))
}

// Visible returns s with control characters, invalid UTF-8 and other
// characters that do not print escaped as Go writes them (\x1b, \u202e),
// so that text from outside (an MCP server, a plugin file) cannot move
// the cursor, recolour or retitle a terminal, write its clipboard or hide
// what it says by reordering it. Tabs and newlines are kept.
func Visible(s string) string {
	if !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hidden reports whether r is a character that does not print, other than
// a tab or a newline: a control character (C0, DEL or C1) or a format
// character such as a text-direction override or a zero-width space.
func hidden(r rune) bool {
	return r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r))
}
