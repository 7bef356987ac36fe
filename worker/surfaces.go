package worker

import (
	"fmt"
	"net/url"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/worker/assistants"
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
	// url is the page to open for p, from the search URL (an assistant's:
	// from its site's URL, HandlerOptions.Sites).
	url func(base *url.URL, p jobs.OverviewPayload) string
	// hooks are an assistant's in-page handles (ModeAssistant).
	hooks *assistants.Hooks
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
			// An overview announced but not finished (still being made, a
			// placeholder that never filled) is not complete, even empty.
			res.Overview.Complete = res.Overview.Complete && settled
		},
	},
	kisa.SurfaceAIMode: {
		mode: browser.ModeConversation, url: aiModeURL, prompts: conversationPrompts,
		read: func(html string, res *kisa.Result) error {
			r, err := serp.ExtractAIMode(html)
			r.Finish()
			res.AIMode = &r
			return err
		},
		settled: conversationSettled,
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
	// The assistants: each its site's start page, driven by its hooks and
	// read by its reader (worker/assistants).
	kisa.SurfaceChatGPT:    assistantPage(&assistants.ChatGPT, assistants.ReadChatGPT),
	kisa.SurfacePerplexity: assistantPage(&assistants.Perplexity, assistants.ReadPerplexity),
	kisa.SurfaceGemini:     assistantPage(&assistants.Gemini, assistants.ReadGemini),
	kisa.SurfaceCopilot:    assistantPage(&assistants.Copilot, assistants.ReadCopilot),
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

// assistantPage is the page of an assistant whose hooks are hooks and
// whose reader is read: the answer, finished (positions, cited,
// Markdown), never empty.
func assistantPage(hooks *assistants.Hooks, read func(string) (kisa.Answer, error)) page {
	return page{mode: browser.ModeAssistant, url: assistantURL, hooks: hooks, prompts: conversationPrompts,
		read: func(html string, res *kisa.Result) error {
			a, err := read(html)
			if err != nil {
				return err
			}
			a.Finish()
			res.Answer = &a
			return a.Check()
		},
		settled: conversationSettled,
	}
}

// conversationPrompts are what a conversation asks: the query and its
// follow-ups.
func conversationPrompts(p jobs.OverviewPayload) []string {
	return append([]string{p.Query}, p.FollowUps...)
}

// conversationSettled marks a conversation's answer incomplete when the
// browser's wait ended first: the last answer read was still streaming,
// or follow-ups the page never got to were not asked.
func conversationSettled(res *kisa.Result, settled bool, p jobs.OverviewPayload) {
	r := res.Conversation()
	if r == nil || !r.HasAnswer {
		return
	}
	if !settled && len(r.Turns) > 0 {
		r.Turns[len(r.Turns)-1].Complete = false
	}
	r.Complete = r.Complete && settled && len(r.Turns) >= len(p.FollowUps)
}

// assistantURL is an assistant's start page: its site's URL, for ChatGPT
// with hints=search when the answer is to search the web (as the
// composer's search toggle does), for Gemini with the language (hl).
func assistantURL(site *url.URL, p jobs.OverviewPayload) string {
	u := *site
	q := u.Query()
	switch p.Surface {
	case kisa.SurfaceChatGPT:
		if p.WebSearch {
			q.Set("hints", "search")
		}
	case kisa.SurfaceGemini:
		q.Set("hl", p.LanguageCode)
	}
	u.RawQuery = q.Encode()
	return u.String()
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
