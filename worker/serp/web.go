package serp

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"github.com/kisa-dev/kisa"
)

// Hooks of the organic web results of a results page. An organic result
// is a block of the results area made of a title link (a link around an
// h3 on desktop, around a [role="heading"] on phones), its address line
// and its snippet. Whether a block is organic is decided by the block
// itself and the heading that introduces it, never by what its wrappers
// also hold: the page of 2026 puts the organic list and modules with
// headings of their own (the AI overview, "People also ask", videos) in
// one wrapper.
const (
	// ResultsArea holds the results of the page (organic and the rest):
	// the first of these that the page has. #rcnt holds the results
	// column with the featured snippet that the desktop page puts above
	// it (and the side panel, which NotOrganic leaves out); #center_col
	// holds #rso and, below it, the continuation of the list that the
	// phone's page loads as one scrolls (#botstuff, the real phone page of
	// April 2026: its tenth result stands there); #main is the page served
	// without script.
	ResultsArea = `#rcnt, #center_col, #rso, #search, #main`
	// ResultTitleLink is the title link of a result: a link around an h3
	// (desktop) or a [role="heading"] (phones), or inside one (the
	// featured snippet on phones).
	ResultTitleLink = `a[href]:has(h3), a[href]:has([role="heading"]), h3 a[href], [role="heading"] a[href]`
	// ResultTitle is the title inside ResultTitleLink, or around it.
	ResultTitle = `h3, [role="heading"]`
	// NotOrganic are the blocks whose links are not organic results: ads
	// (top and bottom), "People also ask", the AI overview and AI Mode's
	// answer, videos (a video's block, jsname pKB8Bc, on the pages of 2023,
	// 2025 and 2026, also where it carries no data-vid: the phone page of
	// April 2026), top stories, images, the local pack, "Things to
	// know", forums and discussions, and hidden parts. Modules that carry
	// a heading of their own are recognised by it (ModuleHeading) as well.
	NotOrganic = `#tads, #tadsb, #bottomads, [data-text-ad], [data-pcu], [aria-label="Ads"], [aria-label="Sponsored"], ` +
		`.related-question-pair, [data-initq], [jsname="Cpkphb"], [jsname="yEVEwb"], ` +
		`[jscontroller="EYwa3d"], [data-subtree="aimc"], #eKIzJc, ` + FeaturedAnswer + `, ` +
		`g-section-with-header, video-voyager, [data-vid], [jsname="pKB8Bc"], [data-local-pack], g-scrolling-carousel, ` +
		`g-inner-card, #iur, [data-lpage], a[role="button"], [data-app], #rhs, [role="complementary"], ` +
		`[role="dialog"], [aria-hidden="true"], [style*="display:none"], [style*="display: none"]`
	// ModuleHeading is the heading of a module of the results page
	// ("Videos", "People also ask", "Places", "Top stories"): the result
	// blocks that follow it, standing alone, at any level below the
	// results area, belong to that module. An entity's name at the head of
	// a knowledge panel ([data-attrid="title"]) heads no module: the
	// phone's page puts the panel and the organic list in one wrapper.
	ModuleHeading = `[role="heading"][aria-level="2"]:not([data-attrid="title"])`
	// FeaturedAnswer is the answer of a featured snippet, the organic
	// result that the page shows first with its answer above it: the
	// heading over it ("Featured snippet") labels that result, it heads no
	// module.
	FeaturedAnswer = `[data-attrid="wa:/description"]`
	// ResultDescription is the snippet of a result inside its block (the
	// featured snippet's answer is its description).
	ResultDescription = `.VwiC3b, [data-sncf="1"], [data-content-feature="1"], ` + FeaturedAnswer
	// NoResults is the engine's notice that the query matched nothing
	// ("Your search - <em>query</em> - did not match any documents."): a
	// heading quoting the query, in every language; the page served
	// without script says it in plain text (NoResultsText).
	NoResults = `p[role="heading"]:has(em)`
	// NoResultsText is the notice of the page served without script.
	NoResultsText = "did not match any documents"
	// NotDescription are the parts of a result's block that are not its
	// description when it has no ResultDescription (the page without
	// script): links (the title, sitelinks), the address line, controls.
	NotDescription = `a, cite, button, [role="button"], script, style, [aria-hidden="true"], [style*="display:none"], [style*="display: none"]`
)

// shortText is the most text, in characters, that a part of the page may
// hold besides a module's heading and still be only that heading (a
// subtitle, a "More" control), or hold at all and not count as content.
const shortText = 40

// ExtractWeb reads the organic results of a results page: position
// (1-based, organic results only), title, the target URL (a redirect
// through the search engine, /url?q=, is resolved) and description. A
// page without results (the engine's notice NoResults) is an empty list.
// It returns an error wrapping kisa.Unrecognised when the page has no
// results area, or when no organic result is read from a page that does
// not say it has none (result titles of which none is organic, or titles
// in a markup it does not know): the page is kept as evidence instead of
// answering an empty list. It returns a plain error when the page cannot
// be parsed.
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
	titles := 0
	area.Find(ResultTitleLink).Each(func(_ int, a *goquery.Selection) {
		u := targetURL(a.AttrOr("href", ""))
		if u == "" || isEngineLink(u) || insideSet(a, skip) {
			return
		}
		titles++
		if seen[u] || inModule(a, area) {
			return
		}
		seen[u] = true
		res.Organic = append(res.Organic, kisa.OrganicResult{
			Position:    len(res.Organic) + 1,
			Title:       title(a),
			URL:         u,
			Description: description(a, area),
		})
	})
	switch {
	case len(res.Organic) > 0 || noResults(doc):
		return res, nil
	case titles > 0:
		return res, fmt.Errorf("%w: the results area shows %d result titles and none is an organic result", kisa.Unrecognised, titles)
	}
	return res, fmt.Errorf("%w: no organic result and no notice that the query matched nothing", kisa.Unrecognised)
}

// noResults reports whether the page is the engine's notice that the
// query matched nothing.
func noResults(doc *goquery.Document) bool {
	return doc.Find(NoResults).Length() > 0 || strings.Contains(doc.Find("body").Text(), NoResultsText)
}

// title returns the title of the result whose title link is a: the
// ResultTitle inside a, or else the one around it.
func title(a *goquery.Selection) string {
	if t := a.Find(ResultTitle).First(); t.Length() > 0 {
		return normalise(t.Text())
	}
	return normalise(a.Closest(ResultTitle).Text())
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

// inModule reports whether link a belongs to a module with a heading of
// its own: at some level between a and area, a part before a's branch is
// a ModuleHeading standing alone (the module's items may follow it side by
// side), with no part between them that holds a module heading of its
// own, and what the heading heads is not a featured snippet. A heading that shares its part with other content (the AI overview's
// answer, "People also ask"'s questions) heads that part, not what
// follows it.
func inModule(a, area *goquery.Selection) bool {
	stop := area.Get(0)
	for branch := a; branch.Length() > 0 && branch.Get(0) != stop; branch = branch.Parent() {
		for prev := branch.Prev(); prev.Length() > 0; prev = prev.Prev() {
			if prev.Find(ModuleHeading).Length() == 0 && !prev.Is(ModuleHeading) {
				continue
			}
			if headingOnly(prev) && !featured(branch.Parent()) {
				return true
			}
			break
		}
	}
	return false
}

// featured reports whether part is a featured snippet: a single result
// with a FeaturedAnswer (a "Things to know" module holds several).
func featured(part *goquery.Selection) bool {
	return part.Find(FeaturedAnswer).Length() > 0 && part.Find(ResultTitleLink).Length() == 1
}

// HeadingNoise are the parts beside a module's heading that do not count
// as content: an information bubble (the local pack's note on reviews)
// and hidden parts. Controls do count: "People also ask"'s questions are
// buttons.
const HeadingNoise = `g-bubble, script, style, [aria-hidden="true"], [style*="display:none"], [style*="display: none"]`

// headingOnly reports whether part holds a module heading and nothing
// else of note: no title link, no list of links of its own (a part that
// lists links beside its heading, related searches or a carousel of them,
// is a whole module, not a heading over the blocks after it), and at most
// shortText characters besides the heading's text and HeadingNoise.
func headingOnly(part *goquery.Selection) bool {
	if part.Find(ResultTitleLink).Length() > 0 || holdsPageLink(part) {
		return false
	}
	h := part.Find(ModuleHeading).AddSelection(part.Filter(ModuleHeading)).First()
	rest := part.Clone()
	rest.Find(HeadingNoise).Remove()
	if rest.Find("a[href]").Length() >= 2 {
		return false
	}
	return textLen(rest)-textLen(h) <= shortText
}

// textLen is the length in characters of s's normalised text.
func textLen(s *goquery.Selection) int {
	return utf8.RuneCountInString(normalise(s.Text()))
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

// isEngineLink reports whether u leads to the search engine itself rather
// than to a result: a search, or an ad's click-through (/aclk,
// googleadservices.com), whose target is not the result's page.
func isEngineLink(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := strings.ToLower(p.Hostname())
	engine := strings.HasPrefix(host, "google.") || strings.Contains(host, ".google.")
	return isSearchLink(u) || strings.HasSuffix(host, "googleadservices.com") ||
		(engine && (p.Path == "/aclk" || strings.HasPrefix(p.Path, "/pagead/")))
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

// holdsPageLink reports whether part holds a link to a page outside the
// search engine: the items of a module that holds them itself (the image
// cards of the phone page of April 2026 beside their "Bilder" heading,
// whose labels are hidden from the text), so that its heading heads only
// them.
func holdsPageLink(part *goquery.Selection) bool {
	found := false
	part.Find("a[href]").EachWithBreak(func(_ int, a *goquery.Selection) bool {
		u := targetURL(a.AttrOr("href", ""))
		found = u != "" && !isEngineLink(u)
		return !found
	})
	return found
}
