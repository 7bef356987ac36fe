package serp

import (
	"encoding/json"
	"html"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
	nethtml "golang.org/x/net/html"
)

// The links behind citation chips and side panel entries are listed as
// JSON in HTML comments, HTML-escaped (&quot;): "<!--Sv6Kpe[...]-->" in
// the hidden data blocks (2025 and 2026), "<!--TgQPHd<ids>|<ids>|[...]-->"
// right after each chip (June 2026 on; its JSON starts at the first "[").
// Each comment holds an array of entries; the shapes this package reads
// are:
//
//	record: [title, snippet, favicon, origin, [siteName], url, null, null, "n", ...]
//	full:   [uuid, record, flag]                    (a chip's link, in full)
//	short:  [uuid, "n", flag, url, favicon, ""]     (a chip's link given by reference)
//
// where uuid is the chip's data-icl-uuid and "n" numbers the link on the
// page. A short entry lacks title and site name; they are looked up by URL
// among the records anywhere in the page and the side panel's entries. A
// record may carry the date its card shows further on (read by
// shownDate); its url may be an opaque /goto redirect (links.go).
//
// A chip of September 2026 may carry its link in the markup instead: a
// link beside the chip's button, labelled "Site (+N) – Title. Related
// results" (ChipLinkLabel*).

// linkCommentPrefixes start the HTML comments that list links.
var linkCommentPrefixes = []string{CitationCommentPrefix, ChipCommentPrefix}

// linkInfo is what the page says about one link.
type linkInfo struct {
	title, site, favicon, date string
}

// linkIndex maps a link's URL to what the page says about it, and a link
// number "n" to its link.
type linkIndex struct {
	byURL map[string]linkInfo
	byNum map[string]link
}

// newLinkIndex collects the records of every link comment of the page
// and the side panel's entries.
func newLinkIndex(p pageDoc) linkIndex {
	idx := linkIndex{byURL: map[string]linkInfo{}, byNum: map[string]link{}}
	for _, entries := range linkComments(p.Nodes) {
		for _, e := range entries {
			if r, ok := p.asRecord(e); ok {
				idx.add(r)
			} else if len(e) > 1 {
				if r, ok := p.asRecord(e[1]); ok {
					idx.add(r)
				}
			}
		}
	}
	idx.addSidePanel(p)
	return idx
}

// record is a decoded link record.
type record struct {
	link link
	num  string
	info linkInfo
}

// add stores r, keeping what earlier records said and filling gaps.
func (idx linkIndex) add(r record) {
	old := idx.byURL[r.link.url]
	idx.byURL[r.link.url] = linkInfo{
		title:   firstOf(old.title, r.info.title),
		site:    firstOf(old.site, r.info.site),
		favicon: firstOf(old.favicon, r.info.favicon),
		date:    firstOf(old.date, r.info.date),
	}
	if r.num != "" && idx.byNum[r.num].url == "" {
		idx.byNum[r.num] = r.link
	}
}

// addSidePanel fills gaps from the side panel's entries in the DOM.
func (idx linkIndex) addSidePanel(p pageDoc) {
	p.Find(SidePanelLink + ", " + SidePanelAllLink).Each(func(_ int, a *goquery.Selection) {
		l := p.linkOf(a.AttrOr("href", ""))
		if l.url == "" {
			return
		}
		entry := a.Closest(SidePanelEntry)
		title := entry.Find(SidePanelTitle).First()
		idx.add(record{link: l, info: linkInfo{
			title:   normalise(title.Text()),
			site:    normalise(entry.Find(SidePanelSite).First().Text()),
			favicon: entry.Find(SidePanelIcon).First().AttrOr("data-src", ""),
			date:    entryDate(entry, title),
		}})
	})
}

// entryDate returns the date a source's card shows (shownDate): the
// first text element outside its title that starts with one (a date of
// its own, or a snippet "21 Aug 2026 — ..."); "" when it shows none.
func entryDate(entry, title *goquery.Selection) string {
	skip := nodeSet(title.Find("*").AddSelection(title))
	date := ""
	entry.Find("*").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if !skip[s.Get(0)] && s.Children().Length() == 0 {
			date = shownDate(s.Text())
		}
		return date == ""
	})
	return date
}

// chipLinks returns the citations behind every chip of the page in
// document order, by the chip's key (aimcChipKey): its uuid for the links
// of the link comments, anchorKey for a chip that carries its link
// beside its button.
func chipLinks(p pageDoc, idx linkIndex) map[string][]kisa.Citation {
	links := map[string][]kisa.Citation{}
	for _, entries := range linkComments(p.Nodes) {
		for _, e := range entries {
			uuid, ok := at[string](e, 0)
			if !ok || uuid == "" {
				continue
			}
			if c, ok := idx.citation(p, e); ok {
				links[uuid] = appendNewCitations(links[uuid], []kisa.Citation{c})
			}
		}
	}
	p.Find(ChipLink).Each(func(_ int, a *goquery.Selection) {
		chip := a.SiblingsFiltered("button").First()
		c, ok := anchorCitation(p, a, idx)
		if chip.Length() == 0 || !ok {
			return
		}
		links[anchorKey(a.Get(0))] = []kisa.Citation{c}
		if uuid := chip.AttrOr("data-icl-uuid", ""); uuid != "" && len(links[uuid]) == 0 {
			links[uuid] = []kisa.Citation{c}
		}
	})
	return links
}

// anchorCitation reads the citation of a chip's link beside its button,
// labelled "Site (+N) – Title. Related results".
func anchorCitation(p pageDoc, a *goquery.Selection, idx linkIndex) (kisa.Citation, bool) {
	l := p.linkOf(a.AttrOr("href", ""))
	if l.url == "" || isSearchLink(l.url) {
		return kisa.Citation{}, false
	}
	label := strings.TrimSpace(a.AttrOr("aria-label", ""))
	label = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(label, ChipLinkLabelSuffix)), "."))
	site, title := "", label
	if i := strings.Index(label, ChipLinkLabelSeparator); i >= 0 {
		site, title = strings.TrimSpace(label[:i]), strings.TrimSpace(label[i+len(ChipLinkLabelSeparator):])
	}
	if i := strings.Index(site, " (+"); i >= 0 {
		site = site[:i]
	}
	info := idx.byURL[l.url]
	return kisa.Citation{
		URL: l.url, Title: firstOf(info.title, normalise(title)),
		Source:  firstOf(info.site, site, sourceOf(l, info.favicon)),
		Favicon: info.favicon, LinkState: l.state(info.date),
	}, true
}

// citation turns a full or short chip entry into a citation, filling what
// a short entry lacks from the index.
func (idx linkIndex) citation(p pageDoc, e []any) (kisa.Citation, bool) {
	var l link
	var fav string
	if r, ok := p.asRecord(e[1]); ok {
		l, fav = r.link, r.info.favicon
	} else {
		num, _ := at[string](e, 1)
		raw, _ := at[string](e, 3)
		fav, _ = at[string](e, 4)
		if l = p.linkOf(raw); l.url == "" {
			l = idx.byNum[num]
		}
	}
	if l.url == "" {
		return kisa.Citation{}, false
	}
	info := idx.byURL[l.url]
	fav = firstOf(fav, info.favicon)
	return kisa.Citation{
		URL:       l.url,
		Title:     info.title,
		Source:    firstOf(info.site, sourceOf(l, fav)),
		Favicon:   fav,
		LinkState: l.state(info.date),
	}, true
}

// sourceOf is the domain that names the site of l: its URL's, or, for an
// opaque redirect, the one its favicon names.
func sourceOf(l link, favicon string) string {
	if l.opaque {
		return publisherOf(favicon)
	}
	return domainOf(l.url)
}

// citationsOf returns the citations of the given chips, once per URL.
func citationsOf(keys []string, links map[string][]kisa.Citation) []kisa.Citation {
	out := []kisa.Citation{}
	for _, id := range keys {
		out = appendNewCitations(out, links[id])
	}
	return out
}

// appendNewCitations appends to dst the citations of src whose URL it
// does not hold yet.
func appendNewCitations(dst, src []kisa.Citation) []kisa.Citation {
	for _, c := range src {
		if !hasCitation(dst, c.URL) {
			dst = append(dst, c)
		}
	}
	return dst
}

// hasCitation reports whether cs holds a citation of URL u.
func hasCitation(cs []kisa.Citation, u string) bool {
	for _, c := range cs {
		if c.URL == u {
			return true
		}
	}
	return false
}

// asRecord decodes a link record; ok is false when v does not have the
// record's shape or its URL is not a web address. A date the record
// carries after its first fields is the one its card shows.
func (p pageDoc) asRecord(v any) (record, bool) {
	a, _ := v.([]any)
	title, ok1 := at[string](a, 0)
	fav, ok2 := at[string](a, 2)
	sites, ok3 := at[[]any](a, 4)
	raw, ok4 := at[string](a, 5)
	l := p.linkOf(raw)
	if !ok1 || !ok2 || !ok3 || !ok4 || l.url == "" {
		return record{}, false
	}
	site, _ := at[string](sites, 0)
	num, _ := at[string](a, 8)
	date := ""
	for i := 9; i < len(a) && date == ""; i++ {
		if s, ok := a[i].(string); ok && len(s) < 40 {
			date = shownDate(s)
		}
	}
	return record{link: l, num: num, info: linkInfo{title: normalise(title), site: site, favicon: fav, date: date}}, true
}

// at returns a[i] as a T; ok is false when a is too short or a[i] is not a T.
func at[T any](a []any, i int) (T, bool) {
	var zero T
	if i < 0 || i >= len(a) {
		return zero, false
	}
	v, ok := a[i].(T)
	return v, ok
}

// linkComments decodes the link comments (linkCommentPrefixes) below the
// given nodes, in document order and once each (roots may nest), each as
// its list of entries. Comments that do not decode to a list of lists are
// left out.
func linkComments(roots []*nethtml.Node) [][][]any {
	var out [][][]any
	seen := map[*nethtml.Node]bool{}
	var walk func(*nethtml.Node)
	walk = func(n *nethtml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if entries, ok := linkComment(n); ok {
			out = append(out, entries)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}

// linkComment decodes n when it is a link comment with entries.
func linkComment(n *nethtml.Node) ([][]any, bool) {
	if n.Type != nethtml.CommentNode {
		return nil, false
	}
	for _, prefix := range linkCommentPrefixes {
		if strings.HasPrefix(n.Data, prefix) {
			return decodeComment(n.Data)
		}
	}
	return nil, false
}

// decodeComment decodes the JSON of one link comment (from its first
// "[") into its entries.
func decodeComment(data string) ([][]any, bool) {
	i := strings.IndexByte(data, '[')
	if i < 0 {
		return nil, false
	}
	raw := html.UnescapeString(data[i:])
	var list []any
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		return nil, false
	}
	var entries [][]any
	for _, v := range list {
		if e, ok := v.([]any); ok && len(e) > 1 {
			entries = append(entries, e)
		}
	}
	return entries, len(entries) > 0
}

// cleanURL returns u when it is an http(s) address, without a text
// fragment ("#:~:text=..."); otherwise "".
func cleanURL(u string) string {
	u = strings.TrimSpace(u)
	if i := strings.Index(u, "#:~:"); i >= 0 {
		u = u[:i]
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return u
}

// domainOf returns the host of u without a leading "www.", e.g. nature.com.
func domainOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(p.Hostname()), "www.")
}

// firstOf returns the first of its arguments that is not empty.
func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// sv6Links reads the 2026 generation's links: chips from the link
// comments and the links beside them, sources from the side panel.
func sv6Links(p pageDoc, box *goquery.Selection) (map[string][]kisa.Citation, []kisa.Source) {
	idx := newLinkIndex(p)
	return chipLinks(p, idx), readSources(p, box, idx)
}

// anchorKey is the key of a chip whose link a is beside its button.
func anchorKey(a *nethtml.Node) string {
	return "href:" + attr(a, "href")
}

// aimcChipKey is the key of chip n (a button) among chipLinks' keys:
// its data-icl-uuid; else, on a page without it (a page saved without
// its attributes), the uuid of the first link comment after it and
// before the next button, or the link beside it.
func aimcChipKey(n *nethtml.Node) string {
	if v := attr(n, "data-icl-uuid"); v != "" {
		return v
	}
	if uuid := nextCommentUUID(n); uuid != "" {
		return uuid
	}
	for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s.Type == nethtml.ElementNode && s.Data == "a" && attr(s, "href") != "" && attr(s, "aria-label") != "" {
			return anchorKey(s)
		}
	}
	return ""
}

// nextCommentUUID returns the uuid of the first entry of the first link
// comment after n and before the next button, or "".
func nextCommentUUID(n *nethtml.Node) string {
	for c, i := following(n), 0; c != nil && i < 200; c, i = next(c), i+1 {
		if c.Type == nethtml.ElementNode && c.Data == "button" {
			return ""
		}
		if entries, ok := linkComment(c); ok {
			for _, e := range entries {
				if uuid, ok := at[string](e, 0); ok && uuid != "" {
					return uuid
				}
			}
		}
	}
	return ""
}

// next returns the node after n in document order, or nil.
func next(n *nethtml.Node) *nethtml.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	return following(n)
}

// following returns the node after n's subtree in document order, or nil.
func following(n *nethtml.Node) *nethtml.Node {
	for ; n != nil; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}
