package serp

import (
	"fmt"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	"golang.org/x/net/html"
)

// Extract reads the AI overview from the HTML of a whole results page
// (document.documentElement.outerHTML once the overview was expanded).
//
// Paragraphs are the overview's blocks in document order: each paragraph,
// each heading and each list item is a block of its own. A list item's
// text leaves out the list nested in it, whose items follow it as blocks.
// Text joins the blocks with "\n". A block holds the citations of the
// chips standing in it; Citations lists those of all blocks in order, once
// per URL. Sources are the side panel's websites, once per URL.
//
// A page without an overview yields HasOverview false, an empty Text and
// empty, non-nil slices. Extract returns an error only when the page
// cannot be parsed as HTML.
func Extract(page string) (kisa.Overview, error) {
	doc, err := parse(page)
	if err != nil {
		return emptyOverview(), err
	}
	return extractDoc(doc), nil
}

// parse reads an HTML page into a goquery document.
func parse(page string) (*goquery.Document, error) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse results page: %w", err)
	}
	return doc, nil
}

// emptyOverview is the overview of a page without one: no text and empty
// (never nil) lists, so that JSON shows [] rather than null.
func emptyOverview() kisa.Overview {
	return kisa.Overview{
		Citations:  []kisa.Citation{},
		Paragraphs: []kisa.Paragraph{},
		Sources:    []kisa.Source{},
	}
}

// extractDoc is Extract on a parsed page.
func extractDoc(doc *goquery.Document) kisa.Overview {
	ov := emptyOverview()
	box := doc.Find(OverviewContainer).First()
	blocks := readBlocks(answerOf(box))
	if len(blocks) == 0 {
		return ov
	}
	index := newLinkIndex(doc)
	chips := chipLinks(doc, index)
	var texts []string
	for _, b := range blocks {
		p := kisa.Paragraph{Text: b.text, Citations: citationsOf(b.chips, chips)}
		ov.Paragraphs = append(ov.Paragraphs, p)
		ov.Citations = appendNewCitations(ov.Citations, p.Citations)
		texts = append(texts, b.text)
	}
	ov.HasOverview = true
	ov.Text = strings.Join(texts, "\n")
	ov.Sources = readSources(box, index)
	return ov
}

// answerOf narrows the overview container to its answer column, or to its
// body when the page has no such column. It is empty when box is.
func answerOf(box *goquery.Selection) *goquery.Selection {
	if a := box.Find(OverviewAnswer).First(); a.Length() > 0 {
		return a
	}
	return box.Find(OverviewBody).First()
}

// block is one block of the answer: its normalised text and the uuids of
// the citation chips standing in it, in order.
type block struct {
	text  string
	chips []string
}

// blockReader walks the answer's nodes, knowing which to skip, which start
// a block and which are citation chips.
type blockReader struct {
	skip, blocks, chips map[*html.Node]bool
}

// readBlocks returns the answer's blocks in document order, leaving out
// empty ones and interface lines. An answer with text but no recognised
// block yields that text as one block.
func readBlocks(answer *goquery.Selection) []block {
	if answer.Length() == 0 {
		return nil
	}
	r := blockReader{
		skip:   nodeSet(answer.Find(OverviewNoText)),
		blocks: nodeSet(answer.Find(OverviewBlock)),
		chips:  nodeSet(answer.Find(CitationChip)),
	}
	root := answer.Get(0)
	var out []block
	r.eachBlock(root, func(n *html.Node) { out = appendBlock(out, r.read(n)) })
	if len(r.blocks) == 0 {
		out = appendBlock(out, r.read(root))
	}
	return out
}

// eachBlock calls fn for every block below n that is not inside a skipped
// subtree, parents before the blocks nested in them.
func (r blockReader) eachBlock(n *html.Node, fn func(*html.Node)) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if r.skip[c] {
			continue
		}
		if r.blocks[c] {
			fn(c)
		}
		r.eachBlock(c, fn)
	}
}

// read returns the text and chips of block n without those of the blocks
// nested in it.
func (r blockReader) read(n *html.Node) block {
	var sb strings.Builder
	var b block
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if r.chips[c] {
				b.chips = append(b.chips, attr(c, "data-icl-uuid"))
			}
			switch {
			case r.skip[c] || r.blocks[c]:
			case c.Type == html.TextNode:
				sb.WriteString(c.Data)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	b.text = normalise(sb.String())
	return b
}

// appendBlock appends b to bs unless it has no text or is an interface line.
func appendBlock(bs []block, b block) []block {
	if b.text == "" || isInterface(b.text) {
		return bs
	}
	return append(bs, b)
}

// isInterface reports whether text is one of the overview's interface
// strings rather than part of its answer.
func isInterface(text string) bool {
	t := strings.TrimSuffix(text, ".")
	for _, l := range InterfaceLines {
		if strings.EqualFold(t, l) {
			return true
		}
	}
	lower := strings.ToLower(text)
	for _, p := range InterfacePrefixes {
		if strings.HasPrefix(lower, strings.ToLower(p)) {
			return true
		}
	}
	return false
}

// normalise collapses runs of white space (no-break spaces included) into
// single spaces and trims the ends.
func normalise(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// nodeSet returns the nodes of sel as a set.
func nodeSet(sel *goquery.Selection) map[*html.Node]bool {
	set := make(map[*html.Node]bool, sel.Length())
	for _, n := range sel.Nodes {
		set[n] = true
	}
	return set
}

// attr returns the value of n's attribute key, or "".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
