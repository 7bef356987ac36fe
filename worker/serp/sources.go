package serp

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// readSources returns the websites of the overview's side panel: those
// shown at first, then those behind "Show all", once per URL. Title, icon
// and date come from the entry's markup, or else from the page's records
// of the same URL. A page without the panel's classes has its entries
// found by structure (PanelEntryLink). Source is the URL's domain (for a link through the
// engine's opaque redirect, the domain its favicon names, else the site
// name its card shows).
func readSources(p pageDoc, box *goquery.Selection, idx linkIndex) []kisa.Source {
	out := []kisa.Source{}
	seen := map[string]bool{}
	links := box.Find(SidePanelLink + ", " + SidePanelAllLink)
	if links.Length() == 0 {
		links = box.Find(PanelEntryLink).FilterFunction(func(_ int, a *goquery.Selection) bool { return isPanelLink(a) })
	}
	if links.Length() == 0 {
		links = box.Find(PhoneSourceLink)
	}
	if links.Length() == 0 {
		links = box.Find(SourceCardLink)
	}
	links.Each(func(_ int, a *goquery.Selection) {
		l := p.linkOf(a.AttrOr("href", ""))
		if l.url == "" || seen[l.url] {
			return
		}
		seen[l.url] = true
		out = append(out, sourceFor(l, idx.byURL[l.url], a, box))
	})
	return out
}

// sourceFor is the source of link l from what the page says about it and
// its link element a in the overview's block box.
func sourceFor(l link, info linkInfo, a, box *goquery.Selection) kisa.Source {
	return kisa.Source{
		URL:       l.url,
		Title:     firstOf(info.title, labelTitle(a.AttrOr("aria-label", "")), labelledTitle(a, box)),
		Source:    firstOf(sourceOf(l, info.favicon), info.site),
		Icon:      info.favicon,
		LinkState: l.state(info.date),
	}
}

// labelTitle returns the title in a side panel link's aria-label
// ("Title. Opens in new tab.").
func labelTitle(label string) string {
	return normalise(strings.TrimSuffix(strings.TrimSpace(label), SidePanelLabelSuffix))
}

// labelledTitle returns the text of the element of box that labels a
// (its aria-labelledby names the element's id: a source card's title),
// "" when there is none.
func labelledTitle(a, box *goquery.Selection) string {
	id := strings.TrimSpace(a.AttrOr("aria-labelledby", ""))
	if id == "" || strings.ContainsAny(id, " \t") {
		return ""
	}
	var title string
	box.Find("[id]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if s.AttrOr("id", "") == id {
			title = normalise(s.Text())
		}
		return title == ""
	})
	return title
}
