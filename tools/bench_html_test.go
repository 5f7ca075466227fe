package tools

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// megabytePage builds an HTML page of about 1 MB: the article fixture's
// body repeated, with scripts, styles and navigation in every section.
// Its main and article elements become divs, so that the whole page, not
// the first section, is the content to convert.
func megabytePage(b *testing.B) []byte {
	article := string(fixture(b, "article.html"))
	start := strings.Index(article, "<body>") + len("<body>")
	end := strings.Index(article, "</body>")
	section := strings.NewReplacer(
		"<main>", "<div>", "</main>", "</div>",
		"<article>", "<div>", "</article>", "</div>",
	).Replace(article[start:end])
	var page bytes.Buffer
	page.WriteString("<!DOCTYPE html><html><head><title>Big page</title><style>p{}</style></head><body>")
	for i := 0; page.Len() < 1<<20; i++ {
		fmt.Fprintf(&page, "<section id=\"s%d\">%s<table><tr><td>cell %d</td></tr></table></section>", i, section, i)
	}
	page.WriteString("</body></html>")
	return page.Bytes()
}

func BenchmarkHTMLMarkdown1MB(b *testing.B) {
	page := megabytePage(b)
	h := newHTMLConverter()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		md, err := h.Markdown(bytes.NewReader(page), "https://bread.example/big")
		if err != nil {
			b.Fatal(err)
		}
		if n := strings.Count(md, "500 g bread flour"); n < 500 {
			b.Fatalf("only %d sections converted", n)
		}
	}
}

// listPage builds a page of n list items, a shape that makes the Markdown
// converter slow and large when it has to convert all of it.
func listPage(n int) []byte {
	var page bytes.Buffer
	page.WriteString("<html><head><title>List</title></head><body><ul>")
	for i := range n {
		fmt.Fprintf(&page, "<li>item %d</li>", i)
	}
	page.WriteString("</ul></body></html>")
	return page.Bytes()
}

func BenchmarkHTMLMarkdownListItems2MB(b *testing.B) {
	page := listPage(100_000)
	h := newHTMLConverter()
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h.Markdown(bytes.NewReader(page), "https://list.example/"); err != nil {
			b.Fatal(err)
		}
	}
}
