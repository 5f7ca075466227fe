package model

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ErrNoImages is matched by the error of a call with images to a
// provider that cannot send them.
var ErrNoImages = errors.New("this provider cannot send images to its server")

// imageForm is how a provider's client sends the images of a message.
type imageForm int

const (
	// imagesAsParts: the client takes llms.BinaryContent as it is
	// (Ollama's images, Anthropic's image blocks).
	imagesAsParts imageForm = iota
	// imagesAsDataURLs: an OpenAI-compatible server takes an image as an
	// image_url part with a data: URL, which langchaingo's client writes
	// for llms.ImageURLContent but not for llms.BinaryContent.
	imagesAsDataURLs
	// imagesRefused: the provider has no way to send them.
	imagesRefused
)

// withImages returns msgs with their images in the form the provider's
// client sends, or an error when it cannot send them.
func (f imageForm) withImages(provider string, msgs []llms.MessageContent) ([]llms.MessageContent, error) {
	if f == imagesAsParts {
		return msgs, nil
	}
	out := msgs
	for i, m := range msgs {
		if !slices.ContainsFunc(m.Parts, isBinary) {
			continue
		}
		if f == imagesRefused {
			return nil, &Error{Provider: provider, Fix: SettingProvider,
				Err: fmt.Errorf("%w; use a provider whose server sees images (the OpenAI-compatible endpoint of the same server, for one)", ErrNoImages)}
		}
		if &out[0] == &msgs[0] {
			out = slices.Clone(msgs) // the caller's messages stay as they are
		}
		parts := slices.Clone(m.Parts)
		for j, p := range parts {
			if b, ok := p.(llms.BinaryContent); ok {
				parts[j] = llms.ImageURLContent{URL: "data:" + b.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(b.Data)}
			}
		}
		out[i].Parts = parts
	}
	return out, nil
}

// isBinary reports whether p is an image or other binary content.
func isBinary(p llms.ContentPart) bool {
	_, ok := p.(llms.BinaryContent)
	return ok
}

// refusedImages reports whether a call that failed with status may have
// been refused for its images: a request the server could not take (400,
// 415, 422) that held some.
func refusedImages(status int, msgs []llms.MessageContent) bool {
	switch status {
	case 400, 415, 422:
	default:
		return false
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if u, ok := p.(llms.ImageURLContent); ok && strings.HasPrefix(u.URL, "data:") || isBinary(p) {
				return true
			}
		}
	}
	return false
}
