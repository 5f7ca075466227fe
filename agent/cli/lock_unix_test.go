//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// TestSettingsWrittenAtOnceAreAllKept writes twenty settings into one
// config file from twenty goroutines at once, each with a lock of its
// own as a process has: every one is kept.
func TestSettingsWrittenAtOnceAreAllKept(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := writeSetting(path, fmt.Sprintf("key%d", i), fmt.Sprint(i), false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := yaml.Unmarshal(data, &got); err != nil || len(got) != 20 {
		t.Errorf("the file holds %d settings, not 20 (%v):\n%s", len(got), err, data)
	}
}

// TestALockHeldTooLongIsNamed holds the lock of a config file's folder
// and changes a setting there: the change waits, then fails saying why.
func TestALockHeldTooLongIsNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unlock, err := lockDir(dir, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	begin := time.Now()
	_, err = lockDir(dir, 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "another react-agent has been changing the settings in "+dir) {
		t.Errorf("lockDir = %v, want a word of the other react-agent", err)
	}
	if d := time.Since(begin); d < 100*time.Millisecond {
		t.Errorf("gave up after %s, before the wait", d)
	}
	unlock()
	again, err := lockDir(dir, 100*time.Millisecond)
	if err != nil {
		t.Fatalf("once let go, the lock is not free: %v", err)
	}
	again()
}
