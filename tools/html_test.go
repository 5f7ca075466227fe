package tools

import (
	"fmt"
	"strings"
	"testing"
)

func TestHTMLMarkdown(t *testing.T) {
	tests := []struct {
		name    string
		page    string
		want    []string
		notWant []string
	}{
		{
			name: "an article keeps its content and loses scripts, styles and chrome",
			page: string(fixture(t, "article.html")),
			want: []string{
				"# Baking Sourdough at Home\n",
				"By Ada Baker",
				"Sourdough needs only **flour**, water and salt.",
				"## What you need",
				"- 500 g bread flour\n- 350 g water\n- 10 g salt",
				"1. Mix and rest for an hour.\n2. Fold every 30 minutes.",
				"[starter guide](https://bread.example/guides/starter)",
				"[flour notes](https://example.org/flour)",
			},
			notWant: []string{
				"secretScriptMarker", "secret-style-marker", "json-ld-marker", "inline-script-marker",
				"Navigation-marker", "cookie-marker", "Sidebar-marker", "Footer-marker",
				"<", "loaf.jpg",
			},
		},
		{
			name:    "a page without main content uses the body and its title",
			page:    `<html><head><title>Plain page</title><script>var x = 1;</script></head><body><p>Just text.</p></body></html>`,
			want:    []string{"# Plain page\n\nJust text."},
			notWant: []string{"var x"},
		},
		{
			name: "a title is not repeated when the headline says it",
			page: `<html><head><title>Hello | Site</title></head><body><h1>Hello</h1><p>x</p></body></html>`,
			want: []string{"# Hello\n\nx"},
		},
		{
			name: "an empty body still gives the title",
			page: `<html><head><title>Only a title</title></head><body></body></html>`,
			want: []string{"# Only a title"},
		},
		{
			name: "a fragment is converted",
			page: `<ul><li>one</li><li><a href="/two">two</a></li></ul>`,
			want: []string{"- one\n- [two](https://bread.example/two)"},
		},
	}
	h := newHTMLConverter()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := h.Markdown(strings.NewReader(tt.page), "https://bread.example/posts/sourdough")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Markdown lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("Markdown has %q:\n%s", w, got)
				}
			}
		})
	}
}

func TestMarkdownStaysBounded(t *testing.T) {
	h := newHTMLConverter()
	deep := "<html><body><p>top</p>" + strings.Repeat("<div>", 600) + "deep <b>text</b><script>x()</script>" + strings.Repeat("</div>", 600) + "</body></html>"
	md, err := h.Markdown(strings.NewReader(deep), "https://deep.example/")
	if err != nil || !strings.Contains(md, "deep text") || !strings.Contains(md, "top") || strings.Contains(md, "x()") {
		t.Errorf("a page nested 600 deep gave %q, %v; want its text", md, err)
	}
	var list strings.Builder
	list.WriteString("<html><body><ul>")
	for i := range 100_000 {
		fmt.Fprintf(&list, "<li>item %d</li>", i)
	}
	list.WriteString("</ul></body></html>")
	md, err = h.Markdown(strings.NewReader(list.String()), "https://list.example/")
	if err != nil || !strings.Contains(md, "- item 0\n") || strings.Contains(md, "item 99999") ||
		!strings.HasSuffix(md, "[page cut at 25000 elements for reading]") {
		t.Errorf("a page of 100,000 items gave %d bytes ending %q, %v", len(md), md[max(0, len(md)-80):], err)
	}
}
