package model

import (
	"errors"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ErrNoImages is matched by the error of a call with images to a
// provider that cannot send them.
var ErrNoImages = errors.New("this provider cannot send images to its server")

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
			if u, ok := p.(llms.ImageURLContent); ok && strings.HasPrefix(u.URL, "data:") {
				return true
			}
			if _, ok := p.(llms.BinaryContent); ok {
				return true
			}
		}
	}
	return false
}
