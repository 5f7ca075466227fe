package configerr_test

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/react-agent/react-agent/tools/configerr"
)

func ExampleLocate() {
	data := []byte("tools:\n  - name: weather\n    description: The weather.\n   command: weather.sh\n")
	var v any
	err := yaml.Unmarshal(data, &v)
	fmt.Println(err)
	fmt.Println(configerr.Locate(data, err))
	// Output:
	// yaml: line 1: did not find expected '-' indicator
	// line 4 ("   command: weather.sh"): did not find expected '-' indicator
}
