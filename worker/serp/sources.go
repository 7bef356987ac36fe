package serp

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// readSources returns the websites of the overview's side panel: those
// shown at first, then those behind "Show all", once per URL. Title and
// icon come from the entry's markup, or else from the page's records of
// the same URL; Source is the URL's domain.
func readSources(box *goquery.Selection, idx linkIndex) []kisa.Source {
	out := []kisa.Source{}
	seen := map[string]bool{}
	box.Find(SidePanelLink + ", " + SidePanelAllLink).Each(func(_ int, a *goquery.Selection) {
		u := cleanURL(a.AttrOr("href", ""))
		if u == "" || seen[u] {
			return
		}
		seen[u] = true
		info := idx.byURL[u]
		out = append(out, kisa.Source{
			URL:    u,
			Title:  firstOf(info.title, labelTitle(a.AttrOr("aria-label", ""))),
			Source: domainOf(u),
			Icon:   info.favicon,
		})
	})
	return out
}

// labelTitle returns the title in a side panel link's aria-label
// ("Title. Opens in new tab.").
func labelTitle(label string) string {
	return normalise(strings.TrimSuffix(strings.TrimSpace(label), SidePanelLabelSuffix))
}
