package agent

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// serveRecorded starts a loopback server that answers with responses a
// real server sent, from testdata/model (see its README): routes maps
// "METHOD /path" to a file's name there without ".http", or to names
// separated by commas, for the calls in turn (the last answers the calls
// after). A stream goes out an event (or a line) at a time, as the server
// sent it. calls counts the calls of each route.
func serveRecorded(t *testing.T, routes map[string]string) (srv *httptest.Server, calls map[string]int) {
	t.Helper()
	mux := http.NewServeMux()
	calls = map[string]int{}
	var mu sync.Mutex
	type response struct {
		status int
		lines  []string
		body   []byte
	}
	for route, names := range routes {
		var turns []response
		for _, name := range strings.Split(names, ",") {
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
			turns = append(turns, response{status, lines, body})
		}
		mux.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			calls[route]++
			turn := turns[min(calls[route], len(turns))-1]
			mu.Unlock()
			status, lines, body := turn.status, turn.lines, turn.body
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
	srv = httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, calls
}

// recordedLlamaCpp is a recorded llama-server whose /completion answers
// with completions, files of testdata/model/llamacpp-b8355 in turn.
func recordedLlamaCpp(t *testing.T, completions ...string) (*httptest.Server, map[string]int) {
	for i, c := range completions {
		completions[i] = "llamacpp-b8355/" + c
	}
	return serveRecorded(t, map[string]string{
		"POST /apply-template": "llamacpp-b8355/apply-template",
		"GET /props":           "llamacpp-b8355/props-notools",
		"POST /completion":     strings.Join(completions, ","),
	})
}
