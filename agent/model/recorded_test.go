package model

import (
	"bufio"
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// recorded is a loopback server that answers with responses a real server
// sent, from testdata/model: routes maps "METHOD /path" to the file's name
// there, without ".http" ("llamacpp-b8355/completion-overflow"), or to
// names separated by commas, for the calls in turn (the last answers the
// calls after). A stream is written an event (or a line) at a time,
// flushed, as the server sent it. It records the bodies of the requests.
type recorded struct {
	*httptest.Server
	mu     sync.Mutex
	bodies map[string][]string // by "METHOD /path"
}

func serveRecorded(t *testing.T, routes map[string]string) *recorded {
	t.Helper()
	r := &recorded{bodies: map[string][]string{}}
	mux := http.NewServeMux()
	type response struct {
		status int
		header http.Header
		body   []byte
	}
	for route, names := range routes {
		var turns []response
		for _, name := range strings.Split(names, ",") {
			status, header, body := readRecorded(t, name)
			turns = append(turns, response{status, header, body})
		}
		mux.HandleFunc(route, func(w http.ResponseWriter, req *http.Request) {
			var b bytes.Buffer
			b.ReadFrom(req.Body)
			r.mu.Lock()
			r.bodies[route] = append(r.bodies[route], b.String())
			turn := turns[min(len(r.bodies[route]), len(turns))-1]
			r.mu.Unlock()
			status, header, body := turn.status, turn.header, turn.body
			for k, v := range header {
				w.Header()[k] = v
			}
			w.WriteHeader(status)
			sep := []byte("\n")
			if strings.Contains(header.Get("Content-Type"), "event-stream") {
				sep = []byte("\n\n")
			}
			for piece := range bytes.SplitAfterSeq(body, sep) {
				w.Write(piece)
				w.(http.Flusher).Flush()
			}
		})
	}
	r.Server = httptest.NewServer(mux)
	t.Cleanup(r.Close)
	return r
}

// requests returns the bodies of the requests sent to route.
func (r *recorded) requests(route string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bodies[route]...)
}

// readRecorded reads a response of testdata/model.
func readRecorded(t *testing.T, name string) (int, http.Header, []byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "model", name+".http"))
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := bytes.Cut(data, []byte("\n\n"))
	if !ok {
		t.Fatalf("%s: no blank line after the headers", name)
	}
	sc := bufio.NewScanner(bytes.NewReader(head))
	sc.Scan()
	fields := strings.Fields(sc.Text())
	if len(fields) < 2 {
		t.Fatalf("%s: no status line", name)
	}
	status, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	header := http.Header{}
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		header.Add(k, strings.TrimSpace(v))
	}
	return status, header, body
}

// quick is a Config's bounds for tests that expect answers at once.
const quick = 5 * time.Second
