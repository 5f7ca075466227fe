//go:build unix

package tools

import (
	"testing"

	"github.com/react-agent/react-agent/tools/bounded/boundedtest"
)

// TestLoadPluginsReadsWithABound points the plugin file at what would be
// read without end, waited on forever or read whole however large: each
// is refused at once.
func TestLoadPluginsReadsWithABound(t *testing.T) {
	boundedtest.ReadsWithABound(t, "LoadPlugins", func(path string) error {
		_, err := LoadPlugins(path, Options{})
		return err
	}, MaxConfigFile, "1 MiB")
}
