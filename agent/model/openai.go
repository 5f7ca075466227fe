package model

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// openaiProvider talks to OpenAI's API or any OpenAI-compatible server
// (llama.cpp server, vLLM, LM Studio, Ollama's /v1).
var openaiProvider = Provider{
	Name:         "openai",
	URLEnv:       "OPENAI_BASE_URL",
	KeyEnv:       "OPENAI_API_KEY",
	DefaultModel: "gpt-4o-mini",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		return openOpenAI(cfg, hc, "https://api.openai.com/v1", 0)
	},
}

// llamafileProvider talks to a llamafile, which serves the OpenAI API;
// langchaingo's own llamafile client takes neither a server URL nor an
// HTTP client.
var llamafileProvider = Provider{
	Name:         "llamafile",
	URLEnv:       "LLAMAFILE_HOST",
	KeyEnv:       "OPENAI_API_KEY",
	DefaultModel: "LLaMA_CPP",
	open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
		return openOpenAI(cfg, hc, "http://127.0.0.1:8080/v1", cfg.NumCtx)
	},
}

// vllmProvider and sglangProvider are the openai provider told which
// server it talks to (Config.Server), at its usual address; the model
// must be named as the server serves it.
var (
	vllmProvider = Provider{
		Name:   "vllm",
		KeyEnv: "OPENAI_API_KEY",
		open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
			cfg.Server = ServerVLLM
			return openOpenAI(cfg, hc, "http://127.0.0.1:8000/v1", 0)
		},
	}
	sglangProvider = Provider{
		Name:   "sglang",
		KeyEnv: "OPENAI_API_KEY",
		open: func(_ context.Context, cfg Config, hc *http.Client) (opened, error) {
			cfg.Server = ServerSGLang
			return openOpenAI(cfg, hc, "http://127.0.0.1:30000/v1", 0)
		},
	}
)

// openOpenAI opens an OpenAI-compatible server at cfg.BaseURL, or def.
func openOpenAI(cfg Config, hc *http.Client, def string, numCtx int) (opened, error) {
	u, err := serverURL(cfg.BaseURL, def, "/v1", "")
	if err != nil {
		return opened{}, err
	}
	key := cfg.APIKey
	if key == "" {
		if !isLocal(u) {
			return opened{}, &Error{Fix: SettingAPIKey, URL: Redact(u),
				Err: fmt.Errorf("%w: set OPENAI_API_KEY; a local OpenAI-compatible server needs none (%s is not local)", ErrNoAPIKey, Redact(u))}
		}
		key = "local" // local servers ignore the key but the client wants one
	}
	if st, ok := hc.Transport.(statusTransport); ok {
		st.maxEvent = maxOpenAIEvent // its client reads no longer events
		st.ollama = st.ollama || strings.EqualFold(cfg.Server, ServerOllama)
		hc.Transport = st
	}
	m, err := openai.New(openai.WithBaseURL(u), openai.WithModel(cfg.Model),
		openai.WithToken(key), openai.WithHTTPClient(doer{hc}))
	o := opened{model: m, url: u, numCtx: numCtx, images: imagesAsDataURLs}
	if !hostedOpenAI(u) {
		// The servers that speak OpenAI's API read the bound of a reply
		// from max_tokens (Ollama's /v1 from nothing else); OpenAI's own
		// reasoning models take only max_completion_tokens.
		o.opts = append(o.opts, openai.WithLegacyMaxTokensField())
	}
	if !cfg.ToolCalling {
		o.con = openaiConstrainer(cfg.Server, u, key, hc)
	} else {
		o.tools = openaiTools(cfg.Server, u, key, hc)
	}
	return o, err
}

// openaiTools returns the check of whether the OpenAI-compatible server at
// u takes tool definitions, where it can tell: a llama-server (named by
// server, or found by its /v1/models) says so in its /props.
func openaiTools(server, u, key string, hc *http.Client) *toolSupport {
	return &toolSupport{check: func(ctx context.Context) (bool, bool) {
		kind := strings.ToLower(server)
		if kind == "" {
			kind = detectServer(ctx, u, key, hc)
		}
		if kind != ServerLlamaCpp {
			return false, false
		}
		return llamacppTools(hc, strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v1")).check(ctx)
	}}
}

// Servers that speak the OpenAI API, as Config.Server names them, and
// how each binds a reply.
const (
	ServerVLLM     = "vllm"
	ServerSGLang   = "sglang"
	ServerLMStudio = "lmstudio"
	ServerLlamaCpp = "llamacpp"
	ServerOllama   = "ollama"
	ServerOpenAI   = "openai"
)

// hostedOpenAI reports whether u is OpenAI's own API.
func hostedOpenAI(u string) bool {
	pu, err := url.Parse(u)
	return err == nil && pu.Hostname() == "api.openai.com"
}

// openaiConstrainer finds how the OpenAI-compatible server at u binds
// replies: as server says, else OpenAI's own API by its address, else by
// the owner /v1/models gives its models (vLLM and SGLang name themselves
// there, as llama.cpp does; LM Studio and Ollama have their own words).
// Of a llama-server it also asks whether its chat template opens a
// reasoning block in the prompt, which the grammar must then start in.
func openaiConstrainer(server, u, key string, hc *http.Client) *constrainer {
	return &constrainer{detect: func(ctx context.Context) (Mode, string, string) {
		kind := strings.ToLower(server)
		if kind == "" {
			kind = detectServer(ctx, u, key, hc)
		}
		if kind == ServerLlamaCpp && opensThinking(ctx, hc, strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v1")) {
			kind = llamacppThinking
		}
		return serverMode(kind)
	}}
}

// opensThinking reports whether the chat template of the llama-server at
// base ends the prompt inside a reasoning block it opens, from its
// /apply-template of a question.
func opensThinking(ctx context.Context, hc *http.Client, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	prompt, err := (&llamacpp{base: base, hc: hc}).applyTemplate(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "?")})
	return err == nil && strings.HasSuffix(strings.TrimSpace(prompt), "<think>")
}

// llamacppThinking is the kind of a llama-server whose chat template opens
// a reasoning block in the prompt.
const llamacppThinking = "llamacpp-thinking"

// serverMode returns how a server of kind binds replies.
func serverMode(kind string) (Mode, string, string) {
	switch kind {
	case ServerLlamaCpp, llamacppThinking:
		return ModeGrammar, kind, "a GBNF grammar on llama.cpp's /v1/chat/completions, from a line's Action: label on"
	case ServerVLLM:
		return ModeTag, kind, "a structural tag in response_format (vLLM)"
	case ServerSGLang:
		return ModeTag, kind, "a structural tag in response_format (SGLang)"
	case ServerOpenAI:
		return ModeSchema, openaiHosted, "the JSON object protocol, bound by a strict JSON schema in response_format"
	case ServerLMStudio, ServerOllama:
		return ModeSchema, kind, "the JSON object protocol, bound by a JSON schema in response_format"
	}
	return ModeNone, kind, ""
}

// detectServer tells which server answers at u: OpenAI's API by its
// host, the others by the owned_by of their /v1/models, or "" when it
// cannot tell.
func detectServer(ctx context.Context, u, key string, hc *http.Client) string {
	if hostedOpenAI(u) {
		return ServerOpenAI
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(u, "/")+"/models", nil)
	if err != nil {
		return ""
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := hc.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&list) != nil || len(list.Data) == 0 {
		return ""
	}
	switch owner := list.Data[0].OwnedBy; owner {
	case "vllm", "sglang", "llamacpp":
		return owner
	case "organization_owner": // LM Studio
		return ServerLMStudio
	case "library": // Ollama's /v1
		return ServerOllama
	}
	return ""
}
