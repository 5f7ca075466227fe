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

// ServedModel returns the name of the model that the server says wrote
// the reply c, as the clients of New put it into c's GenerationInfo (the
// "model" of the server's answer), or "" when the server did not say.
// It may differ from the name asked for: llama-server names the model it
// serves whatever it is asked, and OpenAI the model's dated version.
func ServedModel(c *llms.ContentChoice) string {
	name, _ := c.GenerationInfo["Model"].(string)
	return name
}

// UsageOf reads the token counts that langchaingo's providers put into a
// choice's GenerationInfo, under the names each uses.
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
