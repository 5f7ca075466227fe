package constrain_test

import (
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/agent/constrain"
	"github.com/react-agent/react-agent/tools"
)

// For writes a registry's constraints once; a step's constraint holds the
// lazy grammar of the text protocol, whose root starts at the Action:
// label, with a call a tool.
func ExampleFor() {
	reg, _ := tools.Builtins(tools.DefaultOptions())
	step := constrain.For(reg).Step()
	root, _, _ := strings.Cut(step.Grammar, "\n")
	fmt.Println(root)
	fmt.Println(step.Tag.Structures[0].Begin == "Action: calculator\nAction Input: ")
	// Output:
	// root ::= "Action:" " "? (call-calculator | call-http-request | call-web-search)
	// true
}
