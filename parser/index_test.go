package parser

import "testing"

// lookupNames are names near the registered ones, in the cases and
// separators models write them.
var lookupNames = []string{
	"web_search", "Web_Search", "WEB SEARCH", "web-search", "Web.Search", "websearch", "functions.web_search",
	"web_search.call", "_web_search", "-web-search", ":web_search", "Shell", "SHELL", "http request", "Http_Request",
	"get-time", "GetTime", "x", "Action", "1web", "Ω", "ß", "", "calculator tool", "Calculator", "calc", "Search (beta)",
	"search (beta)", "SEARCH", "Gmail: Find Email", "gmail find email", "GMAIL - FIND EMAIL", "Ask question to co-worker",
	"get_weather", "GetWeather", "get-weather-2", "42", "calculator_tool", "the-calculator", "Calculator_API", "tool_api",
	"tool", "TOOL_NAME", "xxx", "None", "no-action", "no_tool", "Final_Answer", "finish", "FINISH", "respond-directly",
	"answer_directly_tool", "web_search_the", "use_web-search", "a-b_c", "a__b", "calc-", "tool_get_weather",
}

func TestFirstBytesTurnAwayOnlyNamesNoKeyHolds(t *testing.T) {
	tools := toolsOf{"calculator": {"expression"}, "web_search": {"query"}, "http_request": {"url"}, "shell": {"command"},
		"get_time": {}, "Search (beta)": {"q"}, "Gmail: Find Email": {"query"}, "Ask question to co-worker": {"question"}}
	for _, name := range lookupNames {
		checkLookup(t, tools, name)
	}
}

func FuzzLookup(f *testing.F) {
	for _, name := range lookupNames {
		f.Add(name)
	}
	tools := toolsOf{"web_search": {"query"}, "Search (beta)": {"q"}, "Gmail: Find Email": {"query"}, "ÉTAT": {"x"}}
	f.Fuzz(func(t *testing.T, name string) {
		checkLookup(t, tools, name)
	})
}

// checkLookup checks that the index finds for name what it finds
// without its first bytes, and that plainWordTool reads a plain word as
// the general lookups do.
func checkLookup(t *testing.T, tools Tools, name string) {
	t.Helper()
	idx := newToolIndex(tools)
	if isPlainWord(name) && idx.byName[name] == nil {
		info, ok := idx.plainWordTool(name)
		p := &Parser{tools: idx}
		want := idx.lookup(name)
		wantOK := want != nil || p.naming(name) == namesTool && !isFinish(name) && idx.loose(name) == nil
		if info != want || ok != wantOK {
			t.Errorf("%q: plain word's tool %v (%v), general lookups %v (%v)", name, info, ok, want, wantOK)
		}
	}
	got, gotNaming := idx.lookup(name), (&Parser{tools: idx}).naming(name)
	idx.firsts = nil
	want, wantNaming := idx.lookup(name), (&Parser{tools: idx}).naming(name)
	if got != want || gotNaming != wantNaming {
		t.Errorf("%q: found %v (%v), without first bytes %v (%v)", name, got, gotNaming, want, wantNaming)
	}
}
