package agent

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// serveRecorded starts a loopback server that answers with responses a
// real server sent, from testdata/model (see its README): routes maps
// "METHOD /path" to a file's name there without ".http". A stream goes
// out an event (or a line) at a time, as the server sent it.
func serveRecorded(t *testing.T, routes map[string]string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	for route, name := range routes {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "model", name+".http"))
		if err != nil {
			t.Fatal(err)
		}
		head, body, _ := bytes.Cut(data, []byte("\n\n"))
		lines := strings.Split(string(head), "\n")
		status, err := strconv.Atoi(strings.Fields(lines[0])[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			for _, l := range lines[1:] {
				k, v, _ := strings.Cut(l, ":")
				w.Header().Add(k, strings.TrimSpace(v))
			}
			w.WriteHeader(status)
			sep := []byte("\n")
			if strings.Contains(w.Header().Get("Content-Type"), "event-stream") {
				sep = []byte("\n\n")
			}
			for piece := range bytes.SplitAfterSeq(body, sep) {
				w.Write(piece)
				w.(http.Flusher).Flush()
			}
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// recordedLlamaCpp is a recorded llama-server whose /completion answers
// with completion, a file of testdata/model/llamacpp-b8355.
func recordedLlamaCpp(t *testing.T, completion string) *httptest.Server {
	return serveRecorded(t, map[string]string{
		"POST /apply-template": "llamacpp-b8355/apply-template",
		"GET /props":           "llamacpp-b8355/props-notools",
		"POST /completion":     "llamacpp-b8355/" + completion,
	})
}
