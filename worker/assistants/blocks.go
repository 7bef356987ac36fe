package assistants

import (
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	"golang.org/x/net/html"
)

// block is one paragraph of an answer as the page shows it: a paragraph,
// a heading, a list item, a table row or a code block, with its plain
// text, its Markdown and the citations standing in it (positions).
type block struct {
	kind   string // "p", "h", "li", "row", "pre", "sep"
	prefix string // the Markdown before the block's content
	md     strings.Builder
	text   strings.Builder
	refs   []int
	// rows of a table: a row after its header gets the separator line.
	cells int
	head  bool
}

// walker turns an answer's DOM into blocks, numbering its citations in
// order of first appearance.
type walker struct {
	r       reading
	sources []kisa.Source
	skip    map[*html.Node]bool
	cite    map[*html.Node]bool
	blocks  []*block
	cur     *block
	lists   []list
	cites   []kisa.Citation
	byKey   map[string]int
	table   int // rows seen in the current table
	// inItem counts the list items and table rows open: inside one,
	// paragraphs and divisions are part of its block.
	inItem int
}

// list is one open list: ordered or not, and its items so far.
type list struct {
	ordered bool
	n       int
}

// newWalker returns a walker of r's answers whose citations resolve
// against sources.
func newWalker(r reading, sources []kisa.Source) *walker {
	return &walker{r: r, sources: sources, skip: map[*html.Node]bool{}, cite: map[*html.Node]bool{}, cites: []kisa.Citation{},
		byKey: map[string]int{}}
}

// read walks one answer element.
func (w *walker) read(s *goquery.Selection) {
	if w.r.citation != "" {
		s.Find(w.r.citation).Each(func(_ int, c *goquery.Selection) { w.cite[c.Nodes[0]] = true })
	}
	sk := skipAlways
	if w.r.skip != "" {
		sk += ", " + w.r.skip
	}
	s.Find(sk).Each(func(_ int, c *goquery.Selection) { w.skip[c.Nodes[0]] = true })
	for _, n := range s.Nodes {
		w.children(n)
	}
	w.flush()
}

// children walks n's children.
func (w *walker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

// node walks one node.
func (w *walker) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.inline(n.Data, n.Data)
		return
	case html.ElementNode:
	default:
		return
	}
	if w.cite[n] {
		w.citation(goquery.NewDocumentFromNode(n).Selection)
		return
	}
	if w.skip[n] {
		return
	}
	if w.inItem > 0 && blockLike[n.Data] {
		w.inline(" ", " ")
		w.children(n)
		w.inline(" ", " ")
		return
	}
	switch tag := n.Data; tag {
	case "p", "blockquote":
		w.blockOf("p", strings.Repeat("> ", boolInt(tag == "blockquote")), n)
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.blockOf("h", strings.Repeat("#", int(tag[1]-'0'))+" ", n)
	case "pre":
		w.pre(n)
	case "ul", "ol":
		w.flush()
		saved := w.inItem
		w.inItem = 0
		w.lists = append(w.lists, list{ordered: tag == "ol", n: startOf(n)})
		w.children(n)
		w.flush()
		w.lists = w.lists[:len(w.lists)-1]
		w.inItem = saved
	case "li":
		w.item(n)
	case "table":
		w.flush()
		saved := w.table
		w.table = 0
		w.children(n)
		w.flush()
		w.table = saved
	case "tr":
		w.row(n)
	case "td", "th":
		w.cell(n)
	case "br":
		w.inline("\n", "\n")
	case "hr":
		w.flush()
	case "strong", "b":
		w.wrap("**", n)
	case "em", "i":
		w.wrap("*", n)
	case "code":
		w.wrap("`", n)
	case "a":
		w.link(n)
	case "div", "section", "article", "main", "header", "footer", "figure", "aside", "nav", "dl", "dd", "dt":
		w.flush()
		w.children(n)
		w.flush()
	default:
		w.children(n)
	}
}

// blockLike are the elements that are blocks of their own outside a list
// item or a table row, and part of its block inside one.
var blockLike = map[string]bool{"p": true, "blockquote": true, "div": true, "section": true, "article": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "footer": true,
	"figure": true, "dl": true, "dd": true, "dt": true}

// boolInt is 1 for true.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// startOf is the first number of an ordered list (its start attribute).
func startOf(n *html.Node) int {
	for _, a := range n.Attr {
		if a.Key == "start" {
			if v, err := strconv.Atoi(a.Val); err == nil {
				return v - 1
			}
		}
	}
	return 0
}

// blockOf reads n as one block of kind with a Markdown prefix.
func (w *walker) blockOf(kind, prefix string, n *html.Node) {
	w.flush()
	w.cur = &block{kind: kind, prefix: prefix}
	w.children(n)
	w.flush()
}

// item reads a list item: its own text is one block, a list inside it
// follows as its own items.
func (w *walker) item(n *html.Node) {
	w.flush()
	prefix := "- "
	depth := len(w.lists)
	if depth > 0 {
		l := &w.lists[depth-1]
		l.n++
		if l.ordered {
			prefix = strconv.Itoa(l.n) + ". "
		}
	} else {
		depth = 1
	}
	w.cur = &block{kind: "li", prefix: strings.Repeat("  ", depth-1) + prefix}
	w.inItem++
	w.children(n)
	w.inItem--
	w.flush()
}

// row reads a table row as one block.
func (w *walker) row(n *html.Node) {
	w.flush()
	w.table++
	head := w.table == 1
	w.cur = &block{kind: "row", head: head}
	w.inItem++
	w.children(n)
	w.inItem--
	w.flush()
}

// cell separates a row's cells.
func (w *walker) cell(n *html.Node) {
	b := w.open("row")
	if b.cells > 0 {
		b.md.WriteString(" | ")
		b.text.WriteString(" | ")
	}
	b.cells++
	w.children(n)
}

// pre reads a code block: its text as it is.
func (w *walker) pre(n *html.Node) {
	w.flush()
	code := strings.Trim(goquery.NewDocumentFromNode(n).Text(), "\n")
	if strings.TrimSpace(code) == "" {
		return
	}
	b := &block{kind: "pre"}
	b.text.WriteString(code)
	b.md.WriteString("```\n" + code + "\n```")
	w.blocks = append(w.blocks, b)
}

// wrap reads inline n between Markdown markers, leaving them out when n
// holds no text.
func (w *walker) wrap(mark string, n *html.Node) {
	b := w.open("p")
	lead := b.md.Len()
	b.md.WriteString(mark)
	textLen := b.text.Len()
	w.children(n)
	if w.cur != b {
		return
	}
	if b.text.Len() == textLen {
		s := b.md.String()[:lead]
		b.md.Reset()
		b.md.WriteString(s)
		return
	}
	// Keep the marker against the words: spaces move outside it.
	s := b.md.String()
	inner := s[lead+len(mark):]
	trimmed := strings.TrimRight(inner, " ")
	b.md.Reset()
	b.md.WriteString(s[:lead] + mark + strings.TrimLeft(trimmed, " ") + mark + inner[len(trimmed):])
	if strings.HasPrefix(inner, " ") {
		s2 := b.md.String()
		b.md.Reset()
		b.md.WriteString(s2[:lead] + " " + s2[lead:])
	}
}

// link reads a link of the answer that is not a citation.
func (w *walker) link(n *html.Node) {
	href := cleanURL(attrOf(n, "href"))
	if href == "" {
		w.children(n)
		return
	}
	b := w.open("p")
	lead := b.md.Len()
	textLen := b.text.Len()
	w.children(n)
	if w.cur != b || b.text.Len() == textLen {
		return
	}
	s := b.md.String()
	label := strings.TrimSpace(s[lead:])
	b.md.Reset()
	b.md.WriteString(s[:lead] + "[" + label + "](" + href + ")")
}

// attrOf returns n's attribute key, or "".
func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// open returns the current block, opening one of kind when there is none.
func (w *walker) open(kind string) *block {
	if w.cur == nil {
		w.cur = &block{kind: kind}
	}
	return w.cur
}

// inline adds text to the current block, collapsing white space as a
// browser does ("\n" is a line break).
func (w *walker) inline(md, text string) {
	if text == "\n" {
		if w.cur != nil {
			w.cur.md.WriteString("\n")
			w.cur.text.WriteString("\n")
		}
		return
	}
	t := collapse(text)
	if t == "" {
		return
	}
	if t == " " && w.cur == nil {
		return
	}
	b := w.open("p")
	if strings.HasPrefix(t, " ") && endsInSpace(b.text.String()) {
		t = t[1:]
	}
	b.md.WriteString(escapeMD(t))
	b.text.WriteString(t)
}

// collapse turns runs of white space into one space, keeping one at
// either end when there was any.
func collapse(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		if s == "" {
			return ""
		}
		return " "
	}
	out := strings.Join(f, " ")
	if strings.TrimLeft(s[:1], " \t\n\r\f\u00a0") == "" {
		out = " " + out
	}
	if strings.TrimRight(s[len(s)-1:], " \t\n\r\f\u00a0") == "" {
		out += " "
	}
	return out
}

// endsInSpace reports whether s is empty or ends in white space.
func endsInSpace(s string) bool {
	return s == "" || strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\n")
}

// escapeMD escapes the characters of plain text that Markdown would read
// as markup at the places they would be read so: none in running text
// except a bracket pair that would look like a citation marker.
func escapeMD(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(s)
}

// citation records one inline citation and puts its marker in the
// Markdown.
func (w *walker) citation(s *goquery.Selection) {
	rf := w.r.ref(s)
	rf = w.resolve(rf)
	key := urlKey(rf.url)
	if rf.url == "" {
		key = "title:" + strings.ToLower(rf.title+"|"+rf.source)
	}
	if key == "title:|" {
		return
	}
	pos, ok := w.byKey[key]
	if !ok {
		pos = len(w.cites) + 1
		w.byKey[key] = pos
		w.cites = append(w.cites, kisa.Citation{URL: rf.url, Title: rf.title, Source: rf.source,
			Favicon: rf.favicon, Position: pos})
	}
	b := w.cur
	if b == nil && len(w.blocks) > 0 {
		b = w.blocks[len(w.blocks)-1] // a chip after its paragraph belongs to it
	}
	if b == nil {
		b = w.open("p")
	}
	if n := len(b.refs); n > 0 && b.refs[n-1] == pos {
		return
	}
	b.refs = append(b.refs, pos)
	md := strings.TrimRight(b.md.String(), " ")
	b.md.Reset()
	b.md.WriteString(md + "[" + strconv.Itoa(pos) + "]")
}

// resolve fills a citation from the source it names, by position or by
// its label, when its chip does not link the page itself.
func (w *walker) resolve(rf ref) ref {
	var src *kisa.Source
	if rf.index > 0 && rf.index <= len(w.sources) &&
		(rf.url == "" || urlKey(rf.url) == urlKey(w.sources[rf.index-1].URL)) {
		src = &w.sources[rf.index-1]
	} else if rf.url == "" && (rf.title != "" || rf.source != "") {
		for i := range w.sources {
			s := &w.sources[i]
			if labelIs(s, rf.title) || labelIs(s, rf.source) {
				src = s
				break
			}
		}
	}
	if src == nil {
		return rf
	}
	if rf.url == "" {
		rf.url = src.URL
		rf.title = firstOf(src.Title, rf.title)
	}
	rf.source = firstOf(rf.source, src.Source)
	rf.favicon = firstOf(rf.favicon, src.Icon)
	return rf
}

// labelIs reports whether a chip's label names s.
func labelIs(s *kisa.Source, label string) bool {
	l := strings.ToLower(strings.TrimSpace(label))
	if l == "" {
		return false
	}
	title := strings.ToLower(s.Title)
	return strings.ToLower(s.Source) == l || title == l || siteOf(s.URL) == l ||
		strings.HasPrefix(siteOf(s.URL), l+".") || strings.HasPrefix(title, l+" ") ||
		strings.HasSuffix(title, " "+l)
}

// flush ends the current block, keeping it when it holds text.
func (w *walker) flush() {
	b := w.cur
	w.cur = nil
	if b == nil {
		return
	}
	text := strings.TrimSpace(strings.ReplaceAll(b.text.String(), " \n", "\n"))
	if text == "" {
		if len(b.refs) > 0 && len(w.blocks) > 0 { // markers alone belong to the block before
			prev := w.blocks[len(w.blocks)-1]
			for _, p := range b.refs {
				prev.refs = append(prev.refs, p)
				prev.md.WriteString("[" + strconv.Itoa(p) + "]")
			}
		}
		return
	}
	if w.r.lines != nil && w.r.lines.MatchString(text) {
		return
	}
	md := strings.TrimSpace(b.md.String())
	b.text.Reset()
	b.text.WriteString(text)
	b.md.Reset()
	if b.kind == "row" {
		md = "| " + md + " |"
		if b.head {
			md += "\n|" + strings.Repeat(" --- |", b.cells)
		}
	}
	b.md.WriteString(b.prefix + md)
	w.blocks = append(w.blocks, b)
}

// finish returns the blocks read.
func (w *walker) finish() []*block {
	w.flush()
	return w.blocks
}

// citationsOf returns the citations of positions, each once, in order.
func (w *walker) citationsOf(positions []int) []kisa.Citation {
	out := []kisa.Citation{}
	seen := map[int]bool{}
	for _, p := range positions {
		if !seen[p] {
			seen[p] = true
			out = append(out, w.cites[p-1])
		}
	}
	return out
}

// markdownOf joins the blocks' Markdown: list items and table rows line
// by line, other blocks as paragraphs.
func markdownOf(blocks []*block) string {
	var sb strings.Builder
	for i, b := range blocks {
		if i > 0 {
			prev := blocks[i-1]
			if (b.kind == "li" && prev.kind == "li") || (b.kind == "row" && prev.kind == "row") {
				sb.WriteString("\n")
			} else {
				sb.WriteString("\n\n")
			}
		}
		sb.WriteString(b.md.String())
	}
	return sb.String()
}
