package document

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// markdown renders CommonMark with GitHub's tables. HTML written in the
// Markdown (comments, <pre>, <br>) passes into the page, where the HTML
// reader treats it as in any page: comments and tags go, their text stays.
// A paragraph keeps the lines its author wrote (hard wraps), as a text
// file's do: fields on lines of their own ("Category: Performance" over
// "Description: …"), the lines of a scenario, stay apart.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.Table, extension.Strikethrough),
	goldmark.WithRendererOptions(html.WithUnsafe(), html.WithHardWraps()),
)

// extractMarkdown reads a Markdown document as the page it renders to, so
// its text is what a reader sees and what an HTML page gives: headings as
// Markdown headings, list items with a dash, tables as table lines, each
// paragraph on one line; emphasis, link targets, images and badges, and
// HTML comments are gone.
func extractMarkdown(data []byte) (*Document, error) {
	var page bytes.Buffer
	if err := markdown.Convert([]byte(decodeText(data)), &page); err != nil {
		return nil, err
	}
	return extractHTML(page.Bytes())
}
