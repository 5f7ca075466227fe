package realserver

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/react-agent/react-agent/agent/modeltest/gguf"
)

// LlamaServerEnv names the environment variable that gives the path of
// llama-server.
const LlamaServerEnv = "REACT_AGENT_LLAMA_SERVER"

// LlamaServerPaths returns where llama-server is looked for when
// LlamaServerEnv is not set: the prebuilt one beside the project
// (../shared/llama.cpp/bin/llama-server from its root), then the one
// .ci/run builds with ../shared/llama.cpp/build.sh in CacheDir.
func LlamaServerPaths() []string {
	return []string{
		filepath.Join(root(), "..", "shared", "llama.cpp", "bin", "llama-server"),
		filepath.Join(CacheDir(), "llama.cpp-"+LlamaServerBuild, "build", "bin", "llama-server"),
	}
}

// LlamaServer starts llama.cpp's llama-server for the test: CPU only, one
// thread (two spinning threads on a busy machine make it ten times
// slower), one slot, with Jinja templates so that the model's chat
// template renders prompts and tool calls, serving the model under the
// name Server.Model. It skips the test when there is no llama-server (see
// the package doc).
func LlamaServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	bin := find(t, "llama-server", LlamaServerEnv,
		"build it with ../shared/llama.cpp/build.sh, as .ci/run does", LlamaServerPaths()...)
	c := configure(opts)
	c.model.Template = gguf.ToolsTemplate
	if c.plain {
		c.model.Template = gguf.PlainTemplate
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "model.gguf")
	if err := gguf.WriteFile(path, c.model); err != nil {
		t.Fatal(err)
	}
	for attempt := 1; ; attempt++ {
		port := freePort(t)
		cmd := exec.Command(bin, c.args...)
		cmd.Dir = dir
		// llama-server reads each of its options from an environment
		// variable too.
		cmd.Env = append([]string{"HOME=" + dir, "TMPDIR=" + dir, "PATH=/usr/bin:/bin",
			"LLAMA_ARG_MODEL=" + path, "LLAMA_ARG_ALIAS=" + c.name, "LLAMA_ARG_HOST=127.0.0.1", "LLAMA_ARG_PORT=" + strconv.Itoa(port),
			"LLAMA_ARG_CTX_SIZE=" + strconv.Itoa(c.ctx), "LLAMA_ARG_JINJA=1", "LLAMA_ARG_THREADS=1", "LLAMA_ARG_N_PARALLEL=1",
			"LLAMA_ARG_WEBUI=0"}, c.env...)
		s := start(t, cmd, "llama-server")
		s.URL, s.Model, s.Dir = fmt.Sprintf("http://127.0.0.1:%d", port), c.name, dir
		err := s.waitReady(s.URL+"/health", time.Minute, "llama-server")
		if err != nil && attempt < 3 && !s.Alive() && strings.Contains(s.Log(), "couldn't bind") {
			continue // another process took the port in the meantime
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}
