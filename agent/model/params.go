package model

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// rejectedParam finds, in the message of a 400, a parameter the server
// refused that a call can do without ("Unsupported parameter: 'stop'"):
// the agent cuts replies itself, and the server's own temperature is a
// fine default.
var rejectedParam = regexp.MustCompile(`(?i)(?:unsupported|not supported|unrecognized|unknown|invalid|does not support)[^.;]*?\b(stop|temperature)\b|\b(stop|temperature)\b[^.;]*?(?:is not supported|not supported|unsupported)`)

// dropped is the set of parameters a model's server refused, left out of
// every request after.
type dropped struct {
	mu     sync.Mutex
	params []string
}

func (d *dropped) add(p string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if slices.Contains(d.params, p) {
		return false
	}
	d.params = append(d.params, p)
	return true
}

func (d *dropped) list() []string {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.params)
}

// refused returns the droppable parameter e says the server refused.
func refused(e *Error) string {
	if e.StatusCode != http.StatusBadRequest {
		return ""
	}
	m := rejectedParam.FindStringSubmatch(e.Err.Error())
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1] + m[2])
}

// withoutParams returns req with the dropped parameters taken out of its
// JSON body: at the top (OpenAI) and under "options" (Ollama).
func (d *dropped) withoutParams(req *http.Request) *http.Request {
	params := d.list()
	if len(params) == 0 || req.Body == nil {
		return req
	}
	return editJSONBody(req, func(v map[string]any) {
		for _, p := range params {
			delete(v, p)
			if opts, ok := v["options"].(map[string]any); ok {
				delete(opts, p)
			}
		}
	})
}

// editJSONBody returns req with its body, a JSON object, as edit leaves
// it; a body that is no JSON object goes as it was.
func editJSONBody[V any](req *http.Request, edit func(map[string]V)) *http.Request {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return req
	}
	var v map[string]V
	if json.Unmarshal(body, &v) == nil {
		edit(v)
		if b, err := json.Marshal(v); err == nil {
			body = b
		}
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return req
}
