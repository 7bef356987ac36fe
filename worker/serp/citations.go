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
// JSON in HTML comments "<!--Sv6Kpe[...]-->", HTML-escaped (&quot;). Each
// comment holds an array of entries; the shapes this package reads are:
//
//	record: [title, snippet, favicon, origin, [siteName], url, null, null, "n", ...]
//	full:   [uuid, record, flag]                    (a chip's link, in full)
//	short:  [uuid, "n", flag, url, favicon, ""]     (a chip's link given by reference)
//
// where uuid is the chip's data-icl-uuid and "n" numbers the link on the
// page. A short entry lacks title and site name; they are looked up by URL
// among the records anywhere in the page and the side panel's entries.

// linkInfo is what the page says about one link.
type linkInfo struct {
	title, site, favicon string
}

// linkIndex maps a link's URL to what the page says about it, and a link
// number "n" to its URL.
type linkIndex struct {
	byURL map[string]linkInfo
	byNum map[string]string
}

// newLinkIndex collects the records of every Sv6Kpe comment of the page and
// the side panel's entries.
func newLinkIndex(doc *goquery.Document) linkIndex {
	idx := linkIndex{byURL: map[string]linkInfo{}, byNum: map[string]string{}}
	for _, entries := range sv6Comments(doc.Nodes) {
		for _, e := range entries {
			if r, ok := asRecord(e); ok {
				idx.add(r)
			} else if len(e) > 1 {
				if r, ok := asRecord(e[1]); ok {
					idx.add(r)
				}
			}
		}
	}
	idx.addSidePanel(doc.Selection)
	return idx
}

// record is a decoded link record.
type record struct {
	url, num string
	info     linkInfo
}

// add stores r, keeping what earlier records said and filling gaps.
func (idx linkIndex) add(r record) {
	old := idx.byURL[r.url]
	idx.byURL[r.url] = linkInfo{
		title:   firstOf(old.title, r.info.title),
		site:    firstOf(old.site, r.info.site),
		favicon: firstOf(old.favicon, r.info.favicon),
	}
	if r.num != "" && idx.byNum[r.num] == "" {
		idx.byNum[r.num] = r.url
	}
}

// addSidePanel fills gaps from the side panel's entries in the DOM.
func (idx linkIndex) addSidePanel(sel *goquery.Selection) {
	sel.Find(SidePanelLink + ", " + SidePanelAllLink).Each(func(_ int, a *goquery.Selection) {
		u := cleanURL(a.AttrOr("href", ""))
		if u == "" {
			return
		}
		entry := a.Closest(SidePanelEntry)
		idx.add(record{url: u, info: linkInfo{
			title:   normalise(entry.Find(SidePanelTitle).First().Text()),
			site:    normalise(entry.Find(SidePanelSite).First().Text()),
			favicon: entry.Find(SidePanelIcon).First().AttrOr("data-src", ""),
		}})
	})
}

// chipLinks returns, for every chip uuid of the page, the citations behind
// it in document order, read from the comments in the hidden data blocks.
func chipLinks(doc *goquery.Document, idx linkIndex) map[string][]kisa.Citation {
	uuids := map[string]bool{}
	doc.Find(CitationChip).Each(func(_ int, s *goquery.Selection) {
		uuids[s.AttrOr("data-icl-uuid", "")] = true
	})
	links := map[string][]kisa.Citation{}
	for _, entries := range sv6Comments(doc.Find(CitationDataBlock).Nodes) {
		for _, e := range entries {
			uuid, _ := at[string](e, 0)
			if !uuids[uuid] {
				continue
			}
			if c, ok := idx.citation(e); ok {
				links[uuid] = append(links[uuid], c)
			}
		}
	}
	return links
}

// citation turns a full or short chip entry into a citation, filling what
// a short entry lacks from the index.
func (idx linkIndex) citation(e []any) (kisa.Citation, bool) {
	var u, fav string
	if r, ok := asRecord(e[1]); ok {
		u, fav = r.url, r.info.favicon
	} else {
		num, _ := at[string](e, 1)
		raw, _ := at[string](e, 3)
		fav, _ = at[string](e, 4)
		u = firstOf(cleanURL(raw), idx.byNum[num])
	}
	if u == "" {
		return kisa.Citation{}, false
	}
	info := idx.byURL[u]
	return kisa.Citation{
		URL:     u,
		Title:   info.title,
		Source:  firstOf(info.site, domainOf(u)),
		Favicon: firstOf(fav, info.favicon),
	}, true
}

// citationsOf returns the citations of the given chips, once per URL.
func citationsOf(uuids []string, links map[string][]kisa.Citation) []kisa.Citation {
	out := []kisa.Citation{}
	for _, id := range uuids {
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
// record's shape or its URL is not a web address.
func asRecord(v any) (record, bool) {
	a, _ := v.([]any)
	title, ok1 := at[string](a, 0)
	fav, ok2 := at[string](a, 2)
	sites, ok3 := at[[]any](a, 4)
	raw, ok4 := at[string](a, 5)
	u := cleanURL(raw)
	if !ok1 || !ok2 || !ok3 || !ok4 || u == "" {
		return record{}, false
	}
	site, _ := at[string](sites, 0)
	num, _ := at[string](a, 8)
	return record{url: u, num: num, info: linkInfo{title: normalise(title), site: site, favicon: fav}}, true
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

// sv6Comments decodes the Sv6Kpe comments below the given nodes, in
// document order and once each (roots may nest), each as its list of
// entries. Comments that do not decode
// to a list of lists are left out.
func sv6Comments(roots []*nethtml.Node) [][][]any {
	var out [][][]any
	seen := map[*nethtml.Node]bool{}
	var walk func(*nethtml.Node)
	walk = func(n *nethtml.Node) {
		if seen[n] {
			return
		}
		seen[n] = true
		if n.Type == nethtml.CommentNode && strings.HasPrefix(n.Data, CitationCommentPrefix) {
			if entries, ok := decodeComment(n.Data); ok {
				out = append(out, entries)
			}
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

// decodeComment decodes the JSON of one Sv6Kpe comment into its entries.
func decodeComment(data string) ([][]any, bool) {
	raw := html.UnescapeString(strings.TrimPrefix(data, CitationCommentPrefix))
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
	return entries, true
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

// sv6Links reads the 2026 generation's links: chips from the Sv6Kpe
// comments, sources from the side panel.
func sv6Links(doc *goquery.Document, box *goquery.Selection) (map[string][]kisa.Citation, []kisa.Source) {
	idx := newLinkIndex(doc)
	return chipLinks(doc, idx), readSources(box, idx)
}
