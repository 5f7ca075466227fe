package bounded_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/react-agent/react-agent/tools/bounded"
)

func ExampleReadFile() {
	dir, _ := os.MkdirTemp("", "bounded")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "servers.json")
	os.WriteFile(path, []byte(`{"mcpServers": {}}`), 0o644)

	data, err := bounded.ReadFile(path, 1<<20)
	fmt.Println(string(data), err)

	_, err = bounded.ReadFile(path, 8)
	fmt.Println(errors.Is(err, bounded.ErrTooLarge))

	_, err = bounded.ReadFile(dir, 1<<20)
	fmt.Println(errors.Is(err, bounded.ErrNotRegular))
	// Output:
	// {"mcpServers": {}} <nil>
	// true
	// true
}
