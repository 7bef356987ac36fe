package serp

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	"golang.org/x/net/html"
)

// Extract reads the AI overview from the HTML of a whole results page
// (document.documentElement.outerHTML once the overview was expanded),
// with the generation (generation.go) that reads the whole answer.
//
// Paragraphs are the overview's blocks in document order: each paragraph,
// each heading and each list item is a block of its own. A list item's
// text leaves out the list nested in it, whose items follow it as blocks.
// Text joins the blocks with "\n". A block holds the citations of the
// chips standing in it; Citations lists those of all blocks in order, once
// per URL. Sources are the overview's websites, once per URL. Complete is
// false while the overview block has not been marked loaded (streaming
// had not finished when the page was read).
//
// A page without an overview, or with a placeholder that holds no answer
// (an empty block while streaming, "Searching...", an opt-in button),
// yields HasOverview false, Complete true, an empty Text and empty,
// non-nil slices. Extract returns an error wrapping kisa.Unrecognised when
// the page shows an overview block with content that no generation reads,
// and a plain error when the page cannot be parsed as HTML.
func Extract(page string) (kisa.Overview, error) {
	return ExtractAt(page, EngineOrigin)
}

// ExtractAt is Extract of a page whose relative links are read against
// base (the page's address; EngineOrigin when base is not absolute).
func ExtractAt(page, base string) (kisa.Overview, error) {
	doc, err := parseAt(page, base)
	if err != nil {
		return emptyOverview(), err
	}
	ov := extractDoc(doc)
	if !ov.HasOverview && !showsNotice(doc.Find(OverviewContainer).First()) {
		if what := unreadContent(doc.Document); what != "" {
			return ov, fmt.Errorf("%w: overview block holds content no generation (%s) reads: %.80q",
				kisa.Unrecognised, strings.Join(Generations(), ", "), what)
		}
	}
	return ov, nil
}

// parse reads an HTML page into a goquery document.
func parse(page string) (*goquery.Document, error) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		return nil, fmt.Errorf("parse results page: %w", err)
	}
	return doc, nil
}

// emptyOverview is the overview of a page without one: no text, complete,
// and empty (never nil) lists, so that JSON shows [] rather than null.
func emptyOverview() kisa.Overview {
	return kisa.Overview{
		Complete:   true,
		Citations:  []kisa.Citation{},
		Paragraphs: []kisa.Paragraph{},
		Sources:    []kisa.Source{},
	}
}

// extractDoc is Extract on a parsed page, without the check for unknown
// markup.
func extractDoc(doc pageDoc) kisa.Overview {
	ov := emptyOverview()
	box := doc.Find(OverviewContainer).First()
	r, ok := readAnswer(box)
	if !ok || len(r.blocks) == 0 {
		return ov
	}
	blocks := r.blocks
	chips, sources := r.g.links(doc, box)
	var texts []string
	for _, b := range blocks {
		p := kisa.Paragraph{Text: b.text, Citations: citationsOf(b.chips, chips)}
		ov.Paragraphs = append(ov.Paragraphs, p)
		ov.Citations = appendNewCitations(ov.Citations, p.Citations)
		texts = append(texts, b.text)
	}
	ov.HasOverview = true
	ov.Complete = box.Is(OverviewLoaded)
	ov.Text = strings.Join(texts, "\n")
	ov.Sources = sources
	return ov
}

// showsNotice reports whether the overview block box shows a notice that
// the engine gave up on the answer (OverviewNotice with text, not hidden
// by its own or an ancestor's inline display:none, the way the real pages
// keep them until they show one), in any language.
func showsNotice(box *goquery.Selection) bool {
	shown := false
	box.Find(OverviewNotice).EachWithBreak(func(_ int, n *goquery.Selection) bool {
		hidden := false
		for p := n; p.Length() > 0 && !hidden; p = p.Parent() {
			style := strings.ReplaceAll(p.AttrOr("style", ""), " ", "")
			hidden = strings.Contains(style, "display:none")
			if p.Get(0) == box.Get(0) {
				break
			}
		}
		shown = !hidden && normalise(n.Text()) != ""
		return !shown
	})
	return shown
}

// unreadContent returns the first text of the page's overview block that
// is content by NotContent and not an interface line, or "" when there is
// none. Without a container, the block is the parent of a heading of
// OverviewHeadings (the last guard for a container that changed).
func unreadContent(doc *goquery.Document) string {
	box := doc.Find(OverviewContainer).First()
	if box.Length() == 0 {
		box = headingBlock(doc)
	}
	if box.Length() == 0 {
		return ""
	}
	skip := nodeSet(box.Find(NotContent))
	var found string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && found == ""; c = c.NextSibling {
			switch t := normalise(c.Data); {
			case skip[c]:
			case c.Type == html.TextNode && hasWord(t) && !isInterface(t):
				found = t
			case c.Type == html.ElementNode:
				walk(c)
			}
		}
	}
	walk(box.Get(0))
	return found
}

// hasWord reports whether s holds a letter or a digit.
func hasWord(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// headingBlock returns the parent of the first h1 whose text is one of
// OverviewHeadings, or an empty selection.
func headingBlock(doc *goquery.Document) *goquery.Selection {
	h := doc.Find(OverviewHeading).FilterFunction(func(_ int, h *goquery.Selection) bool {
		return slices.Contains(OverviewHeadings, normalise(h.Text()))
	}).First()
	return h.Parent()
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
	key                 func(*html.Node) string // a chip's key among its links
}

// readBlocks returns the answer's blocks in document order, leaving out
// empty ones and interface lines. Text of the answer outside every block
// (a first paragraph in a wrapper of its own, an answer without known
// blocks) is a block too: each run of it between two blocks is one, so
// that the reading never loses a part of the answer.
func (g generation) readBlocks(answer *goquery.Selection) []block {
	return g.readBlocksWith(answer, nil, nil)
}

// readBlocksWith is readBlocks with more blocks and more parts that are
// not text than the generation's (an answer read by its structure).
func (g generation) readBlocksWith(answer *goquery.Selection, blocks, noText []*html.Node) []block {
	if answer.Length() == 0 {
		return nil
	}
	r := blockReader{
		skip:   nodeSet(answer.Find(g.noText).AddNodes(noText...)),
		blocks: nodeSet(answer.Find(g.blocks).AddNodes(blocks...)),
		chips:  nodeSet(answer.Find(g.chips)),
		key:    g.key,
	}
	var out []block
	var loose looseText
	r.walk(answer.Get(0), false, &out, &loose)
	return appendBlock(out, loose.flush())
}

// looseText collects the answer's text outside every block.
type looseText struct {
	sb    strings.Builder
	chips []string
	brk   bool
}

// flush returns the text collected so far as a block and starts anew.
func (l *looseText) flush() block {
	b := block{text: normalise(l.sb.String()), chips: l.chips}
	*l = looseText{}
	return b
}

// walk appends to out the blocks below n that are not inside a skipped
// subtree, parents before the blocks nested in them; outside every block
// (inBlock false) it collects the text into loose, which a block ends.
func (r blockReader) walk(n *html.Node, inBlock bool, out *[]block, loose *looseText) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !inBlock && r.chips[c] {
			loose.chips = append(loose.chips, r.key(c))
		}
		switch {
		case r.skip[c]:
		case r.blocks[c]:
			if !inBlock {
				*out = appendBlock(*out, loose.flush())
			}
			*out = appendBlock(*out, r.read(c))
			r.walk(c, true, out, loose)
		case inBlock:
			r.walk(c, true, out, loose)
		case c.Type == html.TextNode:
			loose.brk = writeText(&loose.sb, c.Data, loose.brk)
		case c.Type == html.ElementNode && breaksLine[c.Data]:
			loose.brk = true
			r.walk(c, false, out, loose)
			loose.brk = true
		default:
			r.walk(c, false, out, loose)
		}
	}
}

// read returns the text and chips of block n without those of the blocks
// nested in it. Elements of breaksLine separate the words around them,
// unless punctuation follows.
func (r blockReader) read(n *html.Node) block {
	var sb strings.Builder
	var b block
	brk := false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if r.chips[c] {
				b.chips = append(b.chips, r.key(c))
			}
			switch {
			case r.skip[c] || r.blocks[c]:
			case c.Type == html.TextNode:
				brk = writeText(&sb, c.Data, brk)
			case c.Type == html.ElementNode && breaksLine[c.Data]:
				brk = true
				walk(c)
				brk = true
			default:
				walk(c)
			}
		}
	}
	walk(n)
	b.text = normalise(sb.String())
	return b
}

// writeText writes text to sb, after a space when brk is set and the text
// starts with a word; it returns brk for the next text.
func writeText(sb *strings.Builder, text string, brk bool) bool {
	t := strings.TrimLeftFunc(text, unicode.IsSpace)
	if t == "" {
		sb.WriteString(text)
		return brk
	}
	if brk && hasWord(string([]rune(t)[:1])) {
		sb.WriteByte(' ')
	}
	sb.WriteString(text)
	return false
}

// breaksLine are the elements that separate the words around them: a
// title and a text in two divs are two words, not one.
var breaksLine = map[string]bool{"div": true, "p": true, "br": true, "li": true, "ul": true, "ol": true,
	"section": true, "h2": true, "h3": true, "h4": true, "tr": true, "td": true, "th": true}

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
	t := strings.TrimRight(text, ".…")
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
