package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/react-agent/react-agent/agent/redact"
)

// ErrUnknownServer means the server at an address answered, but as none
// of the servers Identify knows.
var ErrUnknownServer = errors.New("unknown kind of server")

// ErrNoServer means that nothing answered at the address Identify was to
// ask: no server listens there, its host cannot be found or reached, or
// it did not answer in time.
var ErrNoServer = errors.New("nothing answered")

// identifyTimeout bounds the questions Identify asks a server, together.
const identifyTimeout = 5 * time.Second

// Identify asks the server at cfg.BaseURL which server it is, and returns
// cfg with the provider that speaks its API: "ollama" for a server whose
// /api/version answers as Ollama's, "llamacpp" for one whose /props
// answers as llama.cpp's llama-server, and for an OpenAI-compatible
// server (its /v1/models lists models, or asks for a key) "vllm",
// "sglang" or "openai", with Config.Server saying which server it is
// where its list tells. An address whose path ends in /v1 is the
// OpenAI-compatible API of any of them, and gets "openai". It is meant
// for an address given without a provider: it sends no API key, keeps
// nothing, and asks at most three questions, within five seconds. The
// Config it returns is Found: the server gets a key from its APIKey
// alone, not from the environment, where a key waits for the servers the
// user chose.
//
// Its errors are *Error values: ErrUnknownServer for a server that
// answers as none of them, with Fix SettingProvider; ErrNoServer when
// nothing answers at the address, with Fix SettingBaseURL; or the failure
// of a server that answered, as a call's.
func Identify(ctx context.Context, cfg Config) (Config, error) {
	raw := cfg.BaseURL
	if raw == "" {
		raw = ollamaProvider.Address
	}
	base, err := serverURL(raw, "", "")
	if err != nil {
		return cfg, err
	}
	hc := newHTTPClient(cfg.HTTPClient, cfg.Getenv, 1<<20, identifyTimeout)
	if cfg.HTTPClient == nil {
		defer hc.CloseIdleConnections() // the client's connections are of no use after
	}
	asked, cancel := context.WithTimeout(ctx, identifyTimeout)
	defer cancel()
	root, v1 := strings.CutSuffix(base, "/v1")
	kind, ierr := identify(asked, hc, root, base)
	if ierr != nil {
		ierr = redact.Error(ierr, secretsOf(Resolved{URL: base})...)
		var ue *unreachableError
		switch {
		case ctx.Err() != nil:
		case errors.As(ierr, &ue):
			return cfg, &Error{Fix: SettingBaseURL, URL: Redact(base), Hint: "start the model server there, or say which provider it is",
				Err: fmt.Errorf("%w at %s: %w", ErrNoServer, Redact(base), ierr)}
		case asked.Err() != nil:
			return cfg, &Error{Fix: SettingBaseURL, URL: Redact(base), Hint: "start the model server there, or say which provider it is",
				Err: fmt.Errorf("%w at %s within %s", ErrNoServer, Redact(base), identifyTimeout)}
		}
		return cfg, explain(Classify(asked, ierr), "", "", Redact(base))
	}
	cfg.Found = true
	switch {
	case kind == "":
		return cfg, &Error{Fix: SettingProvider, URL: Redact(base),
			Err: fmt.Errorf("%w: %s answers neither as Ollama (/api/version), as llama.cpp's llama-server (/props) nor as an OpenAI-compatible server (/v1/models)",
				ErrUnknownServer, Redact(base))}
	case v1 && kind != ServerOpenAI:
		cfg.Provider, cfg.Server = openaiProvider.Name, kind
	case kind == ServerOllama:
		cfg.Provider = ollamaProvider.Name
	case kind == ServerLlamaCpp:
		cfg.Provider = llamacppProvider.Name
	case kind == ServerVLLM, kind == ServerSGLang:
		cfg.Provider = kind
	default:
		cfg.Provider = openaiProvider.Name
		if kind != ServerOpenAI {
			cfg.Server = kind
		}
	}
	return cfg, nil
}

// identify asks the server at root which server it is: one of the Server
// names, ServerOpenAI for an OpenAI-compatible server of no kind it
// knows, or "" when it answers as none. models is the address whose
// /models lists an OpenAI-compatible server's models (root, or root/v1).
// A server that cannot be reached is an error.
func identify(ctx context.Context, hc *http.Client, root, models string) (string, error) {
	var version struct {
		Version *string `json:"version"`
	}
	if ok, _, err := probe(ctx, hc, root+"/api/version", &version); err != nil || ok && version.Version != nil {
		return ServerOllama, err
	}
	var props struct {
		Settings map[string]any `json:"default_generation_settings"`
		Slots    *int           `json:"total_slots"`
	}
	if ok, _, err := probe(ctx, hc, root+"/props", &props); err != nil || ok && (props.Settings != nil || props.Slots != nil) {
		return ServerLlamaCpp, err
	}
	if models == root {
		models += "/v1"
	}
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	ok, status, err := probe(ctx, hc, models+"/models", &list)
	switch {
	case err != nil:
		return "", err
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return ServerOpenAI, nil // it asks for the key an OpenAI-compatible server takes
	case !ok || list.Object != "list" && list.Data == nil:
		return "", nil
	case len(list.Data) > 0:
		if kind := ownerKind(list.Data[0].OwnedBy); kind != "" {
			return kind, nil
		}
	}
	return ServerOpenAI, nil
}

// probe asks the server for path and decodes its answer into v. It
// reports whether the server answered with a JSON object, and the status
// of its answer; the error is that of a server that cannot be reached,
// or whose answer broke off.
func probe(ctx context.Context, hc *http.Client, path string, v any) (bool, int, error) {
	resp, err := get(ctx, hc, path, "")
	var se *statusError
	switch {
	case errors.As(err, &se):
		return false, se.code, nil
	case err != nil:
		return false, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return false, resp.StatusCode, err
	}
	return json.Unmarshal(data, v) == nil, resp.StatusCode, nil
}

// ownerKind returns the server that names itself owned_by in the list of
// its models, or "".
func ownerKind(owner string) string {
	switch owner {
	case "vllm", "sglang", "llamacpp":
		return owner
	case "organization_owner": // LM Studio
		return ServerLMStudio
	case "library": // Ollama's /v1
		return ServerOllama
	}
	return ""
}
