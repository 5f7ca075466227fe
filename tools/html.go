package tools

import (
	"fmt"
	"io"
	"regexp"
	"strings"

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
func (h *htmlConverter) Markdown(r io.Reader, pageURL string) (string, error) {
	doc, err := goquery.NewDocumentFromReader(r)
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
