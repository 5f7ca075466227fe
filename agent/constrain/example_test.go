package constrain_test

import (
	"fmt"
	"strings"

	"github.com/react-agent/react-agent/agent/constrain"
	"github.com/react-agent/react-agent/tools"
)

// For writes a registry's constraints once; a step's constraint holds the
// grammar of a reply of the text protocol, free but where a line starts
// with the Action: label, which goes on as a call a tool.
func ExampleFor() {
	reg, _ := tools.Builtins(tools.DefaultOptions())
	step := constrain.For(reg).Step()
	for _, rule := range strings.Split(step.Grammar, "\n") {
		if strings.HasPrefix(rule, "action ::= ") || strings.HasPrefix(rule, "line ::= ") {
			fmt.Println(rule)
		}
	}
	fmt.Println(step.Tag.Structures[0].Begin == "Action: calculator\nAction Input: ")
	// Output:
	// action ::= "Action:" " "? (call-calculator | call-http-request | call-web-search)
	// line ::= action | free-line ( "\n" line )?
	// true
}
