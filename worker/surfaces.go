package worker

import (
	"fmt"
	"net/url"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/worker/browser"
	"github.com/kisa-dev/kisa/worker/serp"
)

// page describes what the worker does for one surface (kisa.Surface):
// the page it visits, how the browser goes about it, and how it reads
// the result. The rest of a visit (proxies, screenshots and HTML to the
// bucket, evidence of a page not recognised, the outcome) is the same for
// every surface. A new surface is one entry here, beside its extractor in
// worker/serp.
type page struct {
	mode browser.Mode
	// url is the page to open for p, from the search URL.
	url func(search *url.URL, p jobs.OverviewPayload) string
	// prompts are what a conversation asks (nil for the other modes).
	prompts func(p jobs.OverviewPayload) []string
	// read extracts the page's HTML into res; its error wraps
	// kisa.Unrecognised for a page no reading knows.
	read func(html string, res *kisa.Result) error
	// settled marks what res read as incomplete when the browser's wait
	// ended before the page had settled.
	settled func(res *kisa.Result, settled bool, p jobs.OverviewPayload)
}

// pages are the surfaces' pages.
var pages = map[kisa.Surface]page{
	kisa.SurfaceOverview: {
		mode: browser.ModeOverview, url: resultsURL, prompts: noPrompts,
		read: func(html string, res *kisa.Result) (err error) {
			res.Overview, err = serp.Extract(html)
			return err
		},
		settled: func(res *kisa.Result, settled bool, _ jobs.OverviewPayload) {
			res.Overview.Complete = res.Overview.Complete && (settled || !res.Overview.HasOverview)
		},
	},
	kisa.SurfaceAIMode: {
		mode: browser.ModeConversation, url: aiModeURL,
		prompts: func(p jobs.OverviewPayload) []string { return append([]string{p.Query}, p.FollowUps...) },
		read: func(html string, res *kisa.Result) error {
			r, err := serp.ExtractAIMode(html)
			res.AIMode = &r
			return err
		},
		settled: func(res *kisa.Result, settled bool, p jobs.OverviewPayload) {
			r := res.AIMode
			if !r.HasAnswer {
				return
			}
			// An answer still streaming (the last one read), or follow-ups
			// the page never got to, leave the conversation incomplete.
			if !settled && len(r.Turns) > 0 {
				r.Turns[len(r.Turns)-1].Complete = false
			}
			r.Complete = r.Complete && settled && len(r.Turns) >= len(p.FollowUps)
		},
	},
	kisa.SurfaceWeb: {
		mode: browser.ModeResults, url: resultsURL, prompts: noPrompts,
		read: func(html string, res *kisa.Result) error {
			w, err := serp.ExtractWeb(html)
			res.Web = &w
			return err
		},
		settled: func(*kisa.Result, bool, jobs.OverviewPayload) {},
	},
}

// Read reads html, a page of surface s saved or stored by an earlier
// visit, as a visit of p's request reads it: the surface's extractor,
// then what the settled page means for it (a saved page is as it was,
// settled). kisa read re-reads stored evidence with it. Its error wraps
// kisa.Unrecognised for a page no reading knows; an unknown surface is an
// error too.
func Read(html string, p jobs.OverviewPayload) (kisa.Result, error) {
	pg, ok := pages[p.Surface.OrOverview()]
	if !ok {
		return kisa.Result{}, fmt.Errorf("no page reads surface %q", p.Surface)
	}
	var res kisa.Result
	if err := pg.read(html, &res); err != nil {
		return kisa.Result{}, err
	}
	pg.settled(&res, true, p)
	return res, nil
}

// pageOf returns the page of surface s (the overview's for an empty one).
func pageOf(s kisa.Surface) page {
	return pages[s.OrOverview()]
}

// noPrompts is the prompts of a page without a conversation.
func noPrompts(jobs.OverviewPayload) []string { return nil }

// resultsURL is the search URL with the task's query, country and
// language.
func resultsURL(search *url.URL, p jobs.OverviewPayload) string {
	u := *search
	q := u.Query()
	q.Set("q", p.Query)
	q.Set("gl", p.CountryCode)
	q.Set("hl", p.LanguageCode)
	u.RawQuery = q.Encode()
	return u.String()
}

// aiModeURL is AI Mode's start page for the task's country and language:
// the search URL with udm=50 and no query (the browser asks it).
func aiModeURL(search *url.URL, p jobs.OverviewPayload) string {
	u := *search
	q := u.Query()
	q.Set("udm", serp.AIModeUDM)
	q.Set("gl", p.CountryCode)
	q.Set("hl", p.LanguageCode)
	u.RawQuery = q.Encode()
	return u.String()
}
