package serp

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// Hooks of the organic web results of a results page. An organic result
// is a link whose title is an h3, in the results area, outside every
// block that is not an organic result.
const (
	// ResultsArea holds the results of the page (organic and the rest):
	// the first of these that the page has, the innermost first.
	ResultsArea = `#rso, #search, #center_col, #main`
	// ResultTitleLink is the title link of a result: a link around an h3.
	ResultTitleLink = `a[href]:has(h3)`
	// ResultTitle is the title inside ResultTitleLink.
	ResultTitle = `h3`
	// NotOrganic are the blocks whose links are not organic results: ads
	// (top and bottom), "People also ask", the AI overview and AI Mode's
	// answer, and the modules that carry a heading of their own (videos,
	// images, the local pack, "Things to know", top stories) - see
	// ModuleHeading.
	NotOrganic = `#tads, #tadsb, #bottomads, [data-text-ad], [aria-label="Ads"], ` +
		`.related-question-pair, [data-initq], [jsname="Cpkphb"], ` +
		`[jscontroller="EYwa3d"], [data-subtree="aimc"], ` +
		`g-section-with-header, video-voyager, [data-local-pack], g-scrolling-carousel, ` +
		`[role="dialog"], [aria-hidden="true"], [style*="display:none"], [style*="display: none"]`
	// ModuleHeading is the heading of a module of the results page
	// ("Videos", "People also ask", "Places"); an organic result has none
	// (its title is an h3).
	ModuleHeading = `[role="heading"][aria-level="2"]`
	// ResultDescription is the snippet of a result inside its block.
	ResultDescription = `.VwiC3b, [data-sncf="1"], [data-content-feature="1"]`
	// NotDescription are the parts of a result's block that are not its
	// description when it has no ResultDescription (the page without
	// script): links (the title, sitelinks), the address line, controls.
	NotDescription = `a, cite, button, [role="button"], script, style, [aria-hidden="true"], [style*="display:none"], [style*="display: none"]`
)

// ExtractWeb reads the organic results of a results page: position
// (1-based, organic results only), title, the target URL (a redirect
// through the search engine, /url?q=, is resolved) and description. It
// returns an error wrapping kisa.Unrecognised when the page has no results
// area, and a plain error when it cannot be parsed.
func ExtractWeb(page string) (kisa.WebResults, error) {
	res := kisa.WebResults{Organic: []kisa.OrganicResult{}}
	doc, err := parse(page)
	if err != nil {
		return res, err
	}
	area := resultsArea(doc)
	if area.Length() == 0 {
		return res, fmt.Errorf("%w: results page without a results area (%s)", kisa.Unrecognised, ResultsArea)
	}
	skip := nodeSet(area.Find(NotOrganic))
	seen := map[string]bool{}
	area.Find(ResultTitleLink).Each(func(_ int, a *goquery.Selection) {
		u := targetURL(a.AttrOr("href", ""))
		if u == "" || seen[u] || insideSet(a, skip) || inModule(a, area) {
			return
		}
		seen[u] = true
		res.Organic = append(res.Organic, kisa.OrganicResult{
			Position:    len(res.Organic) + 1,
			Title:       normalise(a.Find(ResultTitle).First().Text()),
			URL:         u,
			Description: description(a, area),
		})
	})
	return res, nil
}

// resultsArea returns the first element of ResultsArea's list that the
// page has, or an empty selection.
func resultsArea(doc *goquery.Document) *goquery.Selection {
	for _, sel := range strings.Split(ResultsArea, ",") {
		if s := doc.Find(strings.TrimSpace(sel)).First(); s.Length() > 0 {
			return s
		}
	}
	return doc.Find(ResultsArea).First()
}

// inModule reports whether link a stands in a module with a heading of its
// own, below area.
func inModule(a, area *goquery.Selection) bool {
	stop := area.Get(0)
	for p := a.Parent(); p.Length() > 0 && p.Get(0) != stop; p = p.Parent() {
		if p.Find(ModuleHeading).Length() > 0 {
			return true
		}
	}
	return false
}

// description returns the snippet of the result whose title link is a:
// the ResultDescription in its block (the largest ancestor of a below
// area that holds no other title link), or else the block's text outside
// NotDescription.
func description(a, area *goquery.Selection) string {
	block := a
	for p := a.Parent(); p.Length() > 0 && p.Get(0) != area.Get(0); p = p.Parent() {
		if p.Find(ResultTitleLink).Length() > 1 {
			break
		}
		block = p
	}
	if d := block.Find(ResultDescription).First(); d.Length() > 0 {
		return normalise(d.Text())
	}
	rest := block.Clone()
	rest.Find(NotDescription).Remove()
	return strings.Trim(normalise(rest.Text()), "·› ")
}

// targetURL returns the page a result's href leads to: for a redirect
// through the search engine (/url?q= or /url?url=) its target, else href
// itself; "" when that is not an http(s) address.
func targetURL(href string) string {
	u, err := url.Parse(strings.TrimSpace(href))
	if err != nil {
		return ""
	}
	if u.Path == "/url" {
		q := u.Query()
		return cleanURL(firstOf(q.Get("q"), q.Get("url")))
	}
	return cleanURL(href)
}
