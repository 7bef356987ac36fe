package serpfixture

import (
	"net/url"
	"strings"
)

// The results page's organic results stand among the modules that are
// not organic results, in the real page's markup (the captured 2025 page):
// a top ad (#tads, [data-text-ad]), "People also ask" (whose expanded
// answers carry title links of their own), a videos module and a local
// pack, each under a role="heading" aria-level="2" title, and a bottom ad.
// As on the pages of 2026, the organic list and the headed modules stand
// in one wrapper below the results area (#rso), so that only a result's
// own block, not its wrappers, tells whether it is organic. Organic links
// go through the engine's redirect (/url?q=<target>&sa=U), as the real
// page serves them without script. Their titles are h3 on a desktop; on a
// phone (result.Phone), as on the real phone pages of 2023 to 2026, a
// div[role=heading][aria-level=3] inside the link, the address line and
// the favicon beside it in the same link.

// modules are the blocks around the organic results of one page.
type modules struct {
	// Head are the organic results before "People also ask", Middle
	// those between it and the videos, Tail the rest.
	Head, Middle, Tail []result
	Ad, BottomAd       result
	Questions          []question
	Videos             []result
	Places             []string
	// Phone: the page is a phone's (titles are [role=heading]).
	Phone bool
}

// question is one "People also ask" entry with the result that answers it.
type question struct {
	Text   string
	Answer result
}

// Modules returns the page's organic results split around its modules;
// results.html.tmpl calls it through the "organic" template.
func (d resultsData) Modules() modules {
	q := d.Query
	e := url.QueryEscape(strings.ToLower(q))
	m := modules{
		Ad:       result{Title: q + " - Official Offer", Snippet: "Sponsored. Everything about " + q + " at a discount.", Site: "ads.example", URL: "https://ads.example/landing?q=" + e},
		BottomAd: result{Title: "Compare " + q + " prices", Snippet: "Sponsored. Compare offers for " + q + ".", Site: "compare.example", URL: "https://compare.example/?q=" + e},
		Questions: []question{
			{Text: "What is " + q + "?", Answer: result{Title: "What is " + q + "? - Answers", Snippet: q + " explained in short.", Site: "answers.example", URL: "https://answers.example/what?q=" + e}},
			{Text: "Why does " + q + " matter?", Answer: result{Title: "Why " + q + " matters", Snippet: "Reasons around " + q + ".", Site: "why.example", URL: "https://why.example/?q=" + e}},
		},
		Videos: []result{
			{Title: q + " explained (video)", Site: "YouTube", URL: "https://www.youtube.com/watch?v=fixture1&q=" + e},
			{Title: q + " in 5 minutes", Site: "YouTube", URL: "https://www.youtube.com/watch?v=fixture2&q=" + e},
		},
		Phone:  d.phone(),
		Places: []string{"Example Store, Main Street 1", "Sample Shop, Market Square 2"},
	}
	rs := d.Results
	cut := func(n int) []result {
		n = min(n, len(rs))
		out := rs[:n]
		rs = rs[n:]
		return out
	}
	m.Head, m.Middle, m.Tail = cut(2), cut(1), cut(len(rs))
	for i := range m.Questions {
		m.Questions[i].Answer.Phone = m.Phone
	}
	for i := range m.Videos {
		m.Videos[i].Phone = m.Phone
	}
	return m
}

// phone reports whether the page is rendered for a phone.
func (d resultsData) phone() bool {
	return len(d.Results) > 0 && d.Results[0].Phone
}

// Redirect returns the address of r's link through the engine's redirect.
func (r result) Redirect() string {
	return "/url?" + url.Values{"q": {r.URL}, "sa": {"U"}}.Encode()
}
