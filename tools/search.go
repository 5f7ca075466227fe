package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/react-agent/react-agent/tools/bounded"

	"github.com/PuerkitoBio/goquery"
)

const webSearchName = "web_search"

// Search defaults and bounds.
const (
	defaultDuckDuckGoURL = "https://html.duckduckgo.com/html/"
	defaultMaxResults    = 5
	maxMaxResults        = 20
)

// searchUserAgent is sent to the search engine. DuckDuckGo's HTML endpoint
// answers unknown agents with a challenge page more often than browsers.
const searchUserAgent = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// searchResult is one hit of a web search.
type searchResult struct {
	Title, URL, Snippet string
}

// webSearch queries DuckDuckGo's HTML endpoint or a SearXNG instance. The
// endpoint comes from the user, not the model, so it is not subject to the
// non-public address check: a self-hosted SearXNG usually lives on the
// local network.
type webSearch struct {
	engine      string
	endpoint    string
	client      *http.Client
	maxResponse int64
}

func newWebSearch(o Options) *webSearch {
	o = o.withDefaults()
	endpoint := o.SearchURL
	if endpoint == "" && o.SearchEngine == EngineDuckDuckGo {
		endpoint = defaultDuckDuckGoURL
	}
	return &webSearch{
		engine:      o.SearchEngine,
		endpoint:    endpoint,
		client:      newHTTPClient(nil),
		maxResponse: o.MaxResponse,
	}
}

func (s *webSearch) Name() string { return webSearchName }

func (s *webSearch) Description() string {
	return "Search the web. Returns numbered results, each with a title, the URL and a snippet; " +
		"fetch a result with http_request to read it. " +
		`Example: {"query": "golang context cancellation", "max_results": 3}.`
}

func (s *webSearch) Schema() Schema {
	return Schema{
		Args: []Arg{
			{Name: "query", Type: "string", Required: true, Description: "What to search for."},
			{Name: "max_results", Type: "integer", Description: fmt.Sprintf("How many results to return, 1 to %d; %d when omitted.", maxMaxResults, defaultMaxResults)},
		},
		Primary: "query",
	}
}

// ErrSearchRefused is matched by the error of a search the engine refused
// to answer: rate limiting, blocking or a bot challenge. Trying again
// later, or another engine, may help.
var ErrSearchRefused = errors.New("the search engine refused to answer; it is probably rate-limiting or blocking this client: try again later")

func (s *webSearch) Call(ctx context.Context, args map[string]any) (string, error) {
	query, _ := args["query"].(string) // checked by the registry
	query = strings.TrimSpace(query)
	max := defaultMaxResults
	if n, ok := args["max_results"].(int); ok {
		if n < 1 || n > maxMaxResults {
			return "", &ArgsError{Tool: s.Name(), Problem: fmt.Sprintf("max_results must be between 1 and %d, got %d", maxMaxResults, n), Schema: s.Schema()}
		}
		max = n
	}
	var results []searchResult
	var err error
	switch s.engine {
	case EngineSearXNG:
		results, err = s.searxng(ctx, query)
	default:
		results, err = s.duckduckgo(ctx, query)
	}
	if errors.Is(err, ErrUnreachable) {
		return "", err // it names the tool
	}
	if err != nil {
		return "", fmt.Errorf("web_search: %w", err)
	}
	if len(results) == 0 {
		return fmt.Sprintf("no results for %q", query), nil
	}
	return formatResults(query, results, max), nil
}

// fetch GETs u and returns the body, capped, with an error for any status
// other than 200 OK; cut reports a body longer than the cap.
func (s *webSearch) fetch(ctx context.Context, u string, accept string) (data []byte, cut bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("bad search URL: %w", unwrapURLError(err)) // the URL may hold a password
	}
	req.Header.Set("User-Agent", searchUserAgent)
	req.Header.Set("Accept", accept)
	resp, err := s.client.Do(req)
	if err != nil {
		if err := unreachable(webSearchName, s.engine, req.URL, unwrapURLError(err)); errors.Is(err, ErrUnreachable) {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("%s: %w", s.engine, unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, cut, err = readCapped(resp.Body, s.maxResponse)
	if err != nil {
		return nil, false, fmt.Errorf("%s: reading the answer: %w", s.engine, err)
	}
	if resp.StatusCode != http.StatusOK {
		return data, cut, &statusError{status: resp.Status, code: resp.StatusCode}
	}
	return data, cut, nil
}

// statusError reports an answer other than 200 OK.
type statusError struct {
	status string
	code   int
}

func (e *statusError) Error() string { return "the search engine answered " + e.status }

// duckduckgo queries the DuckDuckGo HTML endpoint.
func (s *webSearch) duckduckgo(ctx context.Context, query string) ([]searchResult, error) {
	u, err := withQuery(s.endpoint, url.Values{"q": {query}})
	if err != nil {
		return nil, err
	}
	data, _, err := s.fetch(ctx, u, "text/html") // a page cut short still holds its first results
	if err != nil {
		if se := (*statusError)(nil); errors.As(err, &se) {
			return nil, fmt.Errorf("DuckDuckGo answered %s instead of results: %w", se.status, ErrSearchRefused)
		}
		return nil, err
	}
	return parseDuckDuckGo(bytes.NewReader(data))
}

// parseDuckDuckGo reads the results of a DuckDuckGo HTML result page. A page
// with neither results nor a no-results notice is an error: it means a
// challenge page or changed markup, which must not pass for "no results".
func parseDuckDuckGo(r io.Reader) ([]searchResult, error) {
	doc, err := goquery.NewDocumentFromReader(r)
	if err != nil {
		return nil, fmt.Errorf("reading DuckDuckGo's page: %w", err)
	}
	var results []searchResult
	hits := doc.Find("div.result").Not(".result--ad")
	hits.Each(func(_ int, hit *goquery.Selection) {
		link := hit.Find("a.result__a").First()
		href, _ := link.Attr("href")
		target := duckduckgoTarget(href)
		title := collapseSpace(link.Text())
		if target == "" || title == "" {
			return
		}
		results = append(results, searchResult{
			Title:   title,
			URL:     target,
			Snippet: collapseSpace(hit.Find(".result__snippet").First().Text()),
		})
	})
	switch {
	case len(results) > 0:
		return results, nil
	case doc.Find(".no-results").Length() > 0:
		return nil, nil
	case doc.Find(".anomaly-modal, #challenge-form, form[action*=anomaly]").Length() > 0:
		return nil, fmt.Errorf("DuckDuckGo answered with a bot challenge instead of results: %w", ErrSearchRefused)
	case hits.Length() > 0:
		return nil, fmt.Errorf("DuckDuckGo's page has %d results but none with a title and link; its markup may have changed", hits.Length())
	}
	return nil, fmt.Errorf("DuckDuckGo's page has neither results nor a no-results notice; its markup may have changed or the request was blocked")
}

// webURL reports whether raw is an http or https URL with a host.
func webURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// duckduckgoTarget returns the destination of a DuckDuckGo result link,
// which is either a redirect like //duckduckgo.com/l/?uddg=<target>&rut=…
// or the target itself. It returns "" for anything else.
func duckduckgoTarget(href string) string {
	if strings.HasPrefix(href, "//") {
		href = "https:" + href
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if target := u.Query().Get("uddg"); target != "" {
		u, err = url.Parse(target)
		if err != nil {
			return ""
		}
	} else if strings.HasSuffix(u.Hostname(), "duckduckgo.com") {
		return "" // An ad or internal link.
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// searxngAnswer is the part of SearXNG's JSON answer web_search reads.
type searxngAnswer struct {
	Results *[]struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Content string `json:"content"`
	} `json:"results"`
	// UnresponsiveEngines lists [engine, reason] pairs.
	UnresponsiveEngines [][]string `json:"unresponsive_engines"`
}

// searxng queries a SearXNG instance's JSON API.
func (s *webSearch) searxng(ctx context.Context, query string) ([]searchResult, error) {
	base, err := url.Parse(s.endpoint)
	if err != nil {
		return nil, fmt.Errorf("bad search URL: %w", unwrapURLError(err)) // the URL may hold a password
	}
	if !strings.HasSuffix(base.Path, "/search") {
		base.Path = strings.TrimSuffix(base.Path, "/") + "/search"
	}
	u, err := withQuery(base.String(), url.Values{"q": {query}, "format": {"json"}})
	if err != nil {
		return nil, err
	}
	data, cut, err := s.fetch(ctx, u, "application/json")
	if err != nil {
		if se := (*statusError)(nil); errors.As(err, &se) {
			if se.code == http.StatusForbidden {
				return nil, fmt.Errorf("SearXNG answered %s: its JSON format is probably off; add json to search.formats in its settings.yml", se.status)
			}
			return nil, fmt.Errorf("SearXNG answered %s instead of results", se.status)
		}
		return nil, err
	}
	if cut {
		return nil, fmt.Errorf("SearXNG's answer is longer than %s, the most read of one answer, and JSON cut short cannot be read; search for something narrower", bounded.Size(s.maxResponse))
	}
	return parseSearXNG(data)
}

// parseSearXNG reads SearXNG's JSON answer.
func parseSearXNG(data []byte) ([]searchResult, error) {
	var answer searxngAnswer
	if err := json.Unmarshal(data, &answer); err != nil {
		return nil, fmt.Errorf("SearXNG's answer is not the expected JSON (%v); is the search URL a SearXNG instance with the JSON format on?", err)
	}
	if answer.Results == nil {
		return nil, fmt.Errorf("SearXNG's answer has no results field; is the search URL a SearXNG instance?")
	}
	var results []searchResult
	for _, r := range *answer.Results {
		if !webURL(r.URL) {
			continue // javascript:, data:, file: and the like are no page to read
		}
		title := collapseSpace(r.Title)
		if title == "" {
			title = r.URL
		}
		results = append(results, searchResult{Title: title, URL: r.URL, Snippet: collapseSpace(r.Content)})
	}
	if len(results) == 0 && len(answer.UnresponsiveEngines) > 0 {
		var names []string
		for _, e := range answer.UnresponsiveEngines {
			if len(e) > 0 {
				names = append(names, e[0])
			}
		}
		return nil, fmt.Errorf("SearXNG found nothing and these engines did not answer: %s", strings.Join(names, ", "))
	}
	return results, nil
}

// withQuery returns endpoint with q merged into its query string.
func withQuery(endpoint string, q url.Values) (string, error) {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil:
		return "", fmt.Errorf("bad search URL: %w; it must be an http or https URL", unwrapURLError(err)) // the URL may hold a password
	case (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "", fmt.Errorf("bad search URL %q: it must be an http or https URL", u.Redacted())
	}
	merged := u.Query()
	for k, v := range q {
		merged[k] = v
	}
	u.RawQuery = merged.Encode()
	return u.String(), nil
}

// formatResults numbers up to max results for the model.
func formatResults(query string, results []searchResult, max int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q:\n", query)
	for i, r := range results {
		if i == max {
			break
		}
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// collapseSpace trims s and turns each run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
