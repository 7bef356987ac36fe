package browser

import (
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"

	"github.com/kisa-dev/kisa/worker/serp"
)

// FollowWait bounds how long a visit waits, at its end, for the engine's
// opaque redirects of its answer to tell their targets (VisitRequest's
// Redirects); what is not known then stays unresolved.
const FollowWait = 3 * time.Second

// follow is the following of a visit's opaque redirects (links through
// the engine's /goto) in its tab: the page requests each one with its own
// cookies, in its browser context and through its proxy, and the guard
// stops the request each redirect leads to, whose URL is the link's
// target. No target page is ever loaded.
type follow struct {
	mu      sync.Mutex
	links   map[string]string // normalised link -> the link as given
	byID    map[string]string // request id or network id of a link's request -> the link
	targets map[string]string // link -> target
}

// newFollow prepares the following of links (absolute URLs).
func newFollow(links []string) *follow {
	f := &follow{links: map[string]string{}, byID: map[string]string{}, targets: map[string]string{}}
	for _, l := range links {
		f.links[normalURL(l)] = l
	}
	return f
}

// normalURL is raw as Chromium writes a request's URL, for comparison.
func normalURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.String()
}

// intercept looks at a paused request of the tab: the request of a
// followed link is remembered and goes on; a request a followed link's
// redirect leads to is its target, recorded, and must be stopped (stop
// true).
func (f *follow) intercept(ev *fetch.EventRequestPaused) (stop bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	u := normalURL(ev.Request.URL)
	link := f.byID[string(ev.RedirectedRequestID)]
	if link == "" {
		if l := f.byID[string(ev.NetworkID)]; l != "" && normalURL(l) != u {
			link = l
		}
	}
	if link != "" {
		if _, known := f.targets[link]; !known {
			f.targets[link] = ev.Request.URL
		}
		return true
	}
	if l, ok := f.links[u]; ok {
		f.byID[string(ev.RequestID)] = l
		if ev.NetworkID != "" {
			f.byID[string(ev.NetworkID)] = l
		}
	}
	return false
}

// found returns the targets learnt so far, by link.
func (f *follow) found() map[string]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]string, len(f.targets))
	for l, t := range f.targets {
		if _, ok := httpHost(t); ok {
			out[l] = t
		}
	}
	return out
}

// setFollow makes the guard watch f's links (nil: none).
func (g *guard) setFollow(f *follow) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.follow = f
}

// following returns the links the guard watches, or nil.
func (g *guard) following() *follow {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.follow
}

// stopRedirect stops a request that a followed redirect led to, without
// counting it as blocked: the visit asked for it only to learn its URL.
func (g *guard) stopRedirect(ev *fetch.EventRequestPaused) {
	_ = fetch.FailRequest(ev.RequestID, network.ErrorReasonAborted).Do(g.exec)
}

// followRedirects learns the targets of links (the engine's opaque
// redirects, absolute) through the page, within FollowWait and the
// visit's deadline. It never fails the visit: a link whose target it
// does not learn is left out of the answer, and an error is logged.
func (v *visit) followRedirects(links []string) map[string]string {
	if len(links) == 0 || v.tab == nil || v.tab.guard == nil {
		return nil
	}
	f := newFollow(links)
	v.tab.guard.setFollow(f)
	defer v.tab.guard.setFollow(nil)
	var answered int
	arg := serp.FollowLinks{URLs: links, WaitMs: FollowWait.Milliseconds()}
	if err := v.ask(serp.AskFollowLinks, &answered, arg); err != nil {
		v.log.Warn("follow redirects", "links", len(links), "err", err)
	}
	found := f.found()
	v.log.Info("redirects followed", "links", len(links), "resolved", len(found))
	return found
}
