package worker

import (
	"net/url"
	"strings"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

// A page may link its sources and citations through the engine's opaque
// redirect (/goto?url=<token>, worker/serp/links.go). The extraction keeps
// such a link as the absolute redirect link with Resolved false; the
// visit then asks the browser to follow them in its own tab
// (browser.VisitRequest.Redirects), and every link whose target it learnt
// gets that target as its URL, with Resolved true. A card's relative date
// ("3 days ago") becomes a calendar day at the visit's time.

// linkRef is one source or citation of a result, to read or set.
type linkRef struct {
	url, source *string
	state       *kisa.LinkState
	isSource    bool
}

// eachLink calls f with every citation (of the answers and of their
// paragraphs) and every source of res.
func eachLink(res *kisa.Result, f func(linkRef)) {
	cites := func(cs []kisa.Citation) {
		for i := range cs {
			f(linkRef{url: &cs[i].URL, source: &cs[i].Source, state: &cs[i].LinkState})
		}
	}
	answer := func(cs []kisa.Citation, ps []kisa.Paragraph, ss []kisa.Source) {
		cites(cs)
		for i := range ps {
			cites(ps[i].Citations)
		}
		for i := range ss {
			f(linkRef{url: &ss[i].URL, source: &ss[i].Source, state: &ss[i].LinkState, isSource: true})
		}
	}
	answer(res.Overview.Citations, res.Overview.Paragraphs, res.Overview.Sources)
	for _, a := range []*kisa.Answer{res.AIMode, res.Answer} {
		if a == nil {
			continue
		}
		answer(a.Citations, a.Paragraphs, a.Sources)
		for i := range a.Turns {
			answer(a.Turns[i].Citations, a.Turns[i].Paragraphs, a.Turns[i].Sources)
		}
	}
}

// unresolved reports whether l links through the engine's opaque redirect
// and its target is not known.
func (l linkRef) unresolved() bool {
	return l.state.Resolved != nil && !*l.state.Resolved
}

// rebaseRedirects moves the unresolved redirect links of res that the
// extraction read against serp.EngineOrigin onto the origin of search,
// where the visit's page was (the same in production; the offline
// fixture elsewhere), and returns them once each.
func rebaseRedirects(res *kisa.Result, search *url.URL) []string {
	engine, _ := url.Parse(serp.EngineOrigin)
	var links []string
	seen := map[string]bool{}
	eachLink(res, func(l linkRef) {
		if !l.unresolved() {
			return
		}
		if u, err := url.Parse(*l.url); err == nil && u.Host == engine.Host && search.Host != "" {
			u.Scheme, u.Host = search.Scheme, search.Host
			*l.url = u.String()
		}
		if !seen[*l.url] {
			seen[*l.url] = true
			links = append(links, *l.url)
		}
	})
	return links
}

// settleLinks gives every redirect link of res whose target the visit
// learnt (targets, by link) that target as its URL, Resolved true, and
// a source the target's domain when the page named the site only by a
// favicon; and dates the relative dates at the visit's time at.
func settleLinks(res *kisa.Result, targets map[string]string, at time.Time) {
	yes := true
	eachLink(res, func(l linkRef) {
		if l.state.PublishedAt != "" {
			l.state.PublishedAt = serp.DateAt(l.state.PublishedAt, at)
		}
		target, ok := targets[*l.url]
		if !l.unresolved() || !ok {
			return
		}
		*l.url = target
		l.state.Resolved = &yes
		if l.isSource || *l.source == "" {
			*l.source = domainOf(target)
		}
	})
}

// domainOf is the host of u without a leading "www.", as sources name
// their site.
func domainOf(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(p.Hostname()), "www.")
}
