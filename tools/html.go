package tools

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/PuerkitoBio/goquery"
)

// pageChrome selects what a reader of a page's text does not want: code,
// styling, embedded media, forms and the navigation around the content.
const pageChrome = "script, style, noscript, template, iframe, object, embed, svg, canvas, " +
	"img, picture, video, audio, source, link, meta, " +
	"form, button, input, select, textarea, " +
	"nav, aside, footer, [role=navigation], [role=banner], [role=contentinfo], [role=search], " +
	"[hidden], [aria-hidden=true]"

// contentRoots are tried in order for the element holding the page's
// content; the body is the fallback.
var contentRoots = []string{"main", "[role=main]", "article"}

// blankLines matches runs of empty lines left where chrome was removed.
var blankLines = regexp.MustCompile(`\n{3,}`)

// htmlConverter turns HTML pages into Markdown for the model.
type htmlConverter struct {
	conv *converter.Converter
}

func newHTMLConverter() *htmlConverter {
	return &htmlConverter{conv: converter.NewConverter(
		converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin()),
	)}
}

// Markdown reads an HTML page and returns its title and content as
// Markdown: headings, paragraphs, lists and links (made absolute against
// pageURL), without scripts, styles, navigation or markup.
//
// Its work is bounded: a page of more than maxHTMLElements elements is
// converted up to that element, with a note saying so, and a page nested
// too deep for the HTML parser comes back as its plain text.
func (h *htmlConverter) Markdown(r io.Reader, pageURL string) (string, error) {
	page, err := io.ReadAll(r)
	if err != nil {
		return "", fmt.Errorf("reading HTML: %w", err)
	}
	note := ""
	if at := nthElement(page, maxHTMLElements); at >= 0 {
		page = page[:at]
		note = fmt.Sprintf("\n\n[page cut at %d elements for reading]", maxHTMLElements)
	}
	md, err := h.markdown(page, pageURL)
	if err != nil {
		// The parser refuses pages nested deeper than it can hold: read
		// their text instead.
		md = plainText(page)
	}
	return md + note, nil
}

// maxHTMLElements bounds the elements of a page converted to Markdown,
// which costs some microseconds and a kilobyte or two each; the model
// sees a few kilobytes of the result at most.
const maxHTMLElements = 25_000

// nthElement returns the offset of the n-th start tag of page, or -1 when
// it has fewer.
func nthElement(page []byte, n int) int {
	for i, seen := 0, 0; ; {
		j := bytes.IndexByte(page[i:], '<')
		if j < 0 || i+j+1 >= len(page) {
			return -1
		}
		i += j + 1
		if c := page[i]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if seen++; seen > n {
				return i - 1
			}
		}
	}
}

// plainText returns the text of page, without scripts and styles, a line
// for each block: the fallback for pages the parser cannot hold.
func plainText(page []byte) string {
	z := html.NewTokenizer(bytes.NewReader(page))
	var b strings.Builder
	skip := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(blankLines.ReplaceAllString(b.String(), "\n\n"))
		case html.StartTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "noscript", "template":
				skip++
			case "p", "div", "li", "tr", "br", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article":
				b.WriteByte('\n')
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "script", "style", "noscript", "template":
				skip = max(0, skip-1)
			}
		case html.TextToken:
			if skip == 0 {
				if text := strings.Join(strings.Fields(string(z.Text())), " "); text != "" {
					b.WriteString(text + " ")
				}
			}
		}
	}
}

// markdown converts a page that the HTML parser can hold.
func (h *htmlConverter) markdown(page []byte, pageURL string) (string, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err != nil {
		return "", fmt.Errorf("reading HTML: %w", err)
	}
	title := strings.Join(strings.Fields(doc.Find("title").First().Text()), " ")
	doc.Find(pageChrome).Remove()
	// A header is chrome at page level but holds the headline inside the
	// content.
	doc.Find("header").Not("main header, article header").Remove()

	root := doc.Find("body").First()
	for _, sel := range contentRoots {
		if s := doc.Find(sel).First(); s.Length() > 0 && strings.TrimSpace(s.Text()) != "" {
			root = s
			break
		}
	}
	var md string
	if root.Length() > 0 {
		out, err := h.conv.ConvertNode(root.Nodes[0], converter.WithDomain(pageURL))
		if err != nil {
			return "", fmt.Errorf("converting HTML: %w", err)
		}
		md = strings.TrimSpace(blankLines.ReplaceAllString(string(out), "\n\n"))
	}
	if title == "" {
		return md, nil
	}
	first, _, _ := strings.Cut(md, "\n")
	if h1, ok := strings.CutPrefix(first, "# "); ok && strings.Contains(title, strings.TrimSpace(h1)) {
		return md, nil // The headline already says it.
	}
	if md == "" {
		return "# " + title, nil
	}
	return "# " + title + "\n\n" + md, nil
}
