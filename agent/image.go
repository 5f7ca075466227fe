package agent

import "github.com/tmc/langchaingo/llms"

// Image is a picture given with a question, for models that see.
type Image struct {
	// MIMEType is the image's type: image/png, image/jpeg, image/gif or
	// image/webp.
	MIMEType string
	// Data is the image's bytes.
	Data []byte
}

// WithImages gives the model images with the question of each run (a Run,
// or a Chat's Ask), after its text. The model package sends them as each
// server takes them; a server whose model does not see refuses the call.
func WithImages(images ...Image) Option {
	return func(o *options) { o.images = append(o.images, images...) }
}

// imageBytes is how many bytes of prompt an image is counted as when the
// prompt is fitted into the context window: about the tokens a vision
// model gives a picture, at three bytes a token.
const imageBytes = 3000

// question returns the message of the question: its text, then the
// images.
func (a *Agent) question(text string) llms.MessageContent {
	msg := llms.TextParts(llms.ChatMessageTypeHuman, text)
	for _, im := range a.opts.images {
		msg.Parts = append(msg.Parts, llms.BinaryPart(im.MIMEType, im.Data))
	}
	return msg
}
