package model

import "github.com/tmc/langchaingo/llms"

// Usage counts tokens, where the provider reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add adds the counts of v to u.
func (u *Usage) Add(v Usage) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
}

// total returns the tokens of the prompt and the reply together.
func (u Usage) total() int {
	if u.TotalTokens != 0 {
		return u.TotalTokens
	}
	return u.PromptTokens + u.CompletionTokens
}

// UsageOf reads the token counts that langchaingo's providers put into a
// choice's GenerationInfo, under the names each uses: the usage of a reply
// of a model that is no Generator (see ReplyOf).
func UsageOf(c *llms.ContentChoice) Usage {
	n := func(keys ...string) int {
		for _, k := range keys {
			switch v := c.GenerationInfo[k].(type) {
			case int:
				return v
			case int32:
				return int(v)
			case int64:
				return int(v)
			case float64:
				return int(v)
			}
		}
		return 0
	}
	u := Usage{
		PromptTokens:     n("PromptTokens", "InputTokens", "input_tokens"),
		CompletionTokens: n("CompletionTokens", "OutputTokens", "output_tokens"),
		TotalTokens:      n("TotalTokens", "total_tokens"),
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return u
}
