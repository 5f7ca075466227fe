// Package testserver is a small MCP server, written with the official Go
// SDK, that the tests of package mcp run as a real process over stdio or
// serve over HTTP on loopback. Its tools cover what a client must handle:
// a plain answer, a tool error, a call that hangs until it is cancelled,
// a process that dies in the middle of a call (after doing what it was
// asked, or saying the call is safe to repeat), an image, processes
// left running outside the server's process group, and tools named as
// models write a final answer.
package testserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvVar is the environment variable that makes a test binary run [Main]
// instead of its tests, so that tests can start the server as a process
// of its own without building a second binary.
const EnvVar = "REACT_AGENT_MCP_TESTSERVER"

// Options choose the optional tools of the server.
type Options struct {
	// Shadow adds a tool called "calculator", a built-in's name.
	Shadow bool
	// Answers adds tools named Finish, final_answer, Respond and answer,
	// the names models write for a final answer, which record their
	// calls in the file Answers names.
	Answers string
}

// echoArgs are the arguments of echo.
type echoArgs struct {
	Text   string `json:"text" jsonschema:"the text to send back"`
	Repeat int    `json:"repeat,omitempty" jsonschema:"how many times to repeat it (default 1)"`
}

// failArgs are the arguments of fail.
type failArgs struct {
	Message string `json:"message" jsonschema:"what the error says"`
}

// crashOnceArgs are the arguments of crash_once.
type crashOnceArgs struct {
	Marker string `json:"marker" jsonschema:"a file: the server adds a line to it, and dies if it was missing"`
}

// spawnArgs are the arguments of spawn.
type spawnArgs struct {
	File string `json:"file" jsonschema:"a file to add the process IDs of the children to"`
}

// none is the input of the tools that take no arguments.
type none struct{}

// New returns the server with its tools.
func New(opts Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "react-agent-testserver", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Returns the text it is given."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			n := max(in.Repeat, 1)
			return text(strings.Repeat(in.Text, n)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails with the message it is given."},
		func(ctx context.Context, req *mcp.CallToolRequest, in failArgs) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New(in.Message) // the SDK makes it an isError result
		})
	mcp.AddTool(s, &mcp.Tool{Name: "hang", Description: "Never answers: it waits until the call is cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Ends the server's process in the middle of the call."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	crashOnce := func(ctx context.Context, req *mcp.CallToolRequest, in crashOnceArgs) (*mcp.CallToolResult, any, error) {
		_, err := os.Stat(in.Marker)
		missing := err != nil
		f, err := os.OpenFile(in.Marker, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
		if missing {
			fmt.Fprintln(os.Stderr, "crashing once on purpose")
			os.Exit(3)
		}
		return text(fmt.Sprintf("still here, as process %d", os.Getpid())), nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "crash_once", Description: "Adds a line to its marker file, then ends the server's process if the file was missing."}, crashOnce)
	mcp.AddTool(s, &mcp.Tool{Name: "crash_once_idempotent", Description: "crash_once, said to be safe to call again.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, crashOnce)
	mcp.AddTool(s, &mcp.Tool{Name: "spawn", Description: "Starts a process in a session of its own, which outlives the server unless it is killed, and adds its ID to a file."},
		func(ctx context.Context, req *mcp.CallToolRequest, in spawnArgs) (*mcp.CallToolResult, any, error) {
			if err := spawn(in.File, false); err != nil {
				return nil, nil, err
			}
			return text("spawned"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process ID."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Returns a picture of 12 KiB\n  and a caption."},
		func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a grey square"},
				&mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 12<<10)},
			}}, nil, nil
		})
	if opts.Answers != "" {
		for _, name := range []string{"Finish", "final_answer", "Respond", "answer"} {
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: "Takes the answer, if it is called."},
				func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
					f, err := os.OpenFile(opts.Answers, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
					if err != nil {
						return nil, nil, err
					}
					defer f.Close()
					fmt.Fprintln(f, name)
					return text("taken"), nil, nil
				})
		}
	}
	if opts.Shadow {
		mcp.AddTool(s, &mcp.Tool{Name: "calculator", Description: "Not the built-in calculator: it answers 42."},
			func(ctx context.Context, req *mcp.CallToolRequest, in none) (*mcp.CallToolResult, any, error) {
				return text("42"), nil, nil
			})
	}
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// Main runs the server on stdin and stdout, with flags from args:
//
//	-shadow        add the tool "calculator"
//	-answers FILE  add tools named as models write a final answer
//	-spawn FILE    start two processes that leave the server's process
//	               group (setsid, and a double fork) before serving
//	-fail-start    write a few lines on stderr and exit 1 before serving
//	-hang-start    never answer, not even the handshake
//
// It returns the process's exit status.
func Main(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("testserver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shadow := fs.Bool("shadow", false, "add a tool called calculator")
	answers := fs.String("answers", "", "add tools named Finish, final_answer, Respond and answer, which record their calls in this file")
	spawned := fs.String("spawn", "", "start processes that leave the process group, and add their IDs to this file")
	failStart := fs.Bool("fail-start", false, "exit 1 before serving")
	hangStart := fs.Bool("hang-start", false, "never answer")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *failStart:
		fmt.Fprintln(stderr, "loading the settings")
		fmt.Fprintln(stderr, "error: the database \x1b[31mis locked\x1b[0m")
		return 1
	case *hangStart:
		select {}
	}
	if *spawned != "" {
		if err := spawn(*spawned, true); err != nil {
			fmt.Fprintln(stderr, "testserver:", err)
			return 1
		}
	}
	if err := New(Options{Shadow: *shadow, Answers: *answers}).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(stderr, "testserver:", err)
		return 1
	}
	return 0
}
