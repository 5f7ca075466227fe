package parser_test

import (
	"strings"
	"testing"

	"github.com/react-agent/react-agent/parser"
)

// A reply cut off, or one that ends by saying what it will do, is never
// an answer, also where no finish reason tells that the server cut it.

func TestAReplyThatEndsInAPlanIsNoAnswer(t *testing.T) {
	long := strings.Repeat("The population of France has grown slowly over the last decades. ", 12)
	runErrors(t, parser.New(builtins), []errCase{
		{"a plan after an acknowledgement", "Okay. I will now search for the population.", parser.ErrNotAnAnswer, "what you will do"},
		{"a plan after an exclamation", "Sure! I will now search for the population of France using web_search.", parser.ErrNotAnAnswer, "what you will do"},
		{"the task said again, then a plan", "The user wants the population. I will now search for it.", parser.ErrNotAnAnswer, "what you will do"},
		{"a plan without a full stop", "The user is asking about the population of France. Let me search for that", parser.ErrNotAnAnswer, "what you will do"},
		{"a plan in the last clause", "I need the population of France, so I will look it up", parser.ErrNotAnAnswer, "what you will do"},
		{"content, then a plan to check it", "The population of France is about 68 million. To confirm, I will now search for the latest figure.", parser.ErrNotAnAnswer, "what you will do"},
		{"a long reply that ends in a plan", long + "I will now search for the latest figures.", parser.ErrNotAnAnswer, "what you will do"},
		{"a progress line", "Searching for the population of France...", parser.ErrNotAnAnswer, "what you will do"},
		{"a progress line with an ellipsis character", "Looking up the weather in Paris…", parser.ErrNotAnAnswer, "what you will do"},
		{"a progress line with a doubled consonant", "Running the numbers...", parser.ErrNotAnAnswer, "what you will do"},
	})
	runCases(t, []parseCase{
		{"an offer after the answer", "Paris is the capital of France. I can also look up its population if you like.",
			final("", "Paris is the capital of France. I can also look up its population if you like.")},
		{"a plan on a condition", "The capital is Paris. If you want, I will search for more details.",
			final("", "The capital is Paris. If you want, I will search for more details.")},
		{"a closing courtesy", "Paris is the capital of France. Let me know if you need anything else.",
			final("", "Paris is the capital of France. Let me know if you need anything else.")},
		{"a promise that is no step", "The meeting is at noon. I will be there.", final("", "The meeting is at noon. I will be there.")},
		{"an answer that trails off", "It depends...", final("", "It depends...")},
		{"a gerund that is no step", "Nothing is missing...", final("", "Nothing is missing...")},
	})
}

func TestAReplyCutMidSentenceIsNoAnswer(t *testing.T) {
	runErrors(t, parser.New(builtins), []errCase{
		{"after a pronoun", "I need to find the population of France. First, I", parser.ErrNotAnAnswer, "middle of a sentence"},
		{"after whether", "The answer depends on whether", parser.ErrNotAnAnswer, "middle of a sentence"},
		{"after a stock line, an answer cut off", "I now know the final answer.\nThe population of France is about 68 million, and the", parser.ErrNotAnAnswer, "middle of a sentence"},
		{"a thought cut off", "Thought: I need the population of France, so I will", parser.ErrNoAction, "neither an Action nor a Final Answer"},
	})
}
