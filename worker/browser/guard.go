package browser

import (
	"context"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// deniedPermissions are the permissions a page could prompt for; every
// browser context denies them.
var deniedPermissions = []string{
	"geolocation", "notifications", "camera", "microphone", "midi",
	"clipboard-read", "display-capture", "idle-detection",
}

// noPopups runs in every frame before the page's own scripts: window.open
// opens nothing, and links and forms aimed at another window stay put.
// Popups that get past it anyway are closed as they appear (see guard).
const noPopups = `(() => {
	window.open = () => null;
	const stay = e => {
		const el = e.target && e.target.closest && e.target.closest("a[target], area[target], form[target]");
		if (el && !["", "_self", "_top", "_parent"].includes(el.getAttribute("target"))) e.preventDefault();
	};
	addEventListener("click", stay, true);
	addEventListener("auxclick", stay, true);
	addEventListener("submit", stay, true);
})()`

// Proxy is the proxy server a visit's browser context connects through.
type Proxy struct {
	// Server is scheme://host:port.
	Server string
	// Username and Password answer the proxy's 407; empty for none. They
	// are never logged.
	Username, Password string
}

// policy says where a tab may go: top-level navigations only to the
// search and consent hosts; other requests also to the allowed domains;
// never to a loopback, private or link-local address unless it is the
// search host itself (the offline fixture).
type policy struct {
	searchHost  string   // host name of KISA_SEARCH_URL
	consentHost string   // "consent." + the search host without "www."
	allow       []string // domains whose subdomains count too
	// site is set for an assistant's own site (VisitRequest.AllowHosts):
	// pages may also be opened on the allowed domains (its sign-in and
	// consent hosts), not only on its host.
	site bool
}

// newPolicy returns the policy for searchURL and the allowed domains.
func newPolicy(searchURL string, allow []string) policy {
	host := ""
	if u, err := url.Parse(searchURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	return policy{searchHost: host, consentHost: "consent." + strings.TrimPrefix(host, "www."), allow: allow}
}

// navigation reports whether the main frame may navigate to raw.
func (p policy) navigation(raw string) bool {
	host, ok := httpHost(raw)
	switch {
	case !ok:
		return false
	case host == p.searchHost || host == p.consentHost:
		return true
	}
	return p.site && !internal(host) && p.allowed(host)
}

// allowed reports whether host is one of the allowed domains or under one.
func (p policy) allowed(host string) bool {
	for _, d := range p.allow {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// request reports whether a subresource or a frame may be fetched from
// raw.
func (p policy) request(raw string) bool {
	host, ok := httpHost(raw)
	switch {
	case !ok:
		return false
	case host == p.searchHost:
		return true
	case internal(host):
		return false
	case host == p.consentHost:
		return true
	}
	return p.allowed(host)
}

// httpHost returns the lower-case host name of an http(s) URL.
func httpHost(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	return strings.ToLower(u.Hostname()), true
}

// internal reports whether host names this machine or its networks: a
// loopback, private, link-local or unspecified address, or localhost.
func internal(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast())
}

// guard is a tab's one Fetch interception: it answers the proxy's
// credentials and stops requests the policy refuses. Its handlers run on
// chromedp's event goroutine, so every command goes out on a goroutine of
// its own.
type guard struct {
	p      *Pool
	pol    policy
	proxy  *Proxy
	mainID cdp.FrameID // the tab's main frame (its target id)
	exec   context.Context

	mu       sync.Mutex
	answered map[fetch.RequestID]bool // proxy challenges answered once
	follow   *follow                  // opaque redirects being followed, or nil (redirects.go)
}

// contain sets up the tab's containment and proxy authentication, within
// ctx, before anything loads (it lasts as long as the tab): downloads and permissions denied in its browser context,
// popups stopped, and every request paused for the guard. It returns an
// error when the browser refuses.
func (t *tab) contain(ctx context.Context, p *Pool, pol policy, proxy *Proxy, targetID target.ID) error {
	browser := cdp.WithExecutor(ctx, chromedp.FromContext(t.life).Browser)
	err := cdpbrowser.SetDownloadBehavior(cdpbrowser.SetDownloadBehaviorBehaviorDeny).
		WithBrowserContextID(t.contextID).Do(browser)
	if err != nil {
		return err
	}
	for _, name := range deniedPermissions {
		err := cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: name}, cdpbrowser.PermissionSettingDenied).
			WithBrowserContextID(t.contextID).Do(browser)
		if err != nil {
			p.log.Debug("deny permission", "permission", name, "err", err)
		}
	}
	g := &guard{p: p, pol: pol, proxy: proxy, mainID: cdp.FrameID(targetID), answered: map[fetch.RequestID]bool{},
		exec: cdp.WithExecutor(t.life, chromedp.FromContext(t.life).Target)}
	t.guard = g
	chromedp.ListenTarget(t.life, g.handle)
	chromedp.ListenBrowser(t.life, g.popups)
	return chromedp.Run(ctx,
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := page.AddScriptToEvaluateOnNewDocument(noPopups).Do(ctx)
			return err
		}),
		fetch.Enable().WithPatterns([]*fetch.RequestPattern{{URLPattern: "*"}}).WithHandleAuthRequests(true))
}

// handle dispatches the tab's events to the guard.
func (g *guard) handle(ev any) {
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		go g.paused(ev)
	case *fetch.EventAuthRequired:
		go g.auth(ev)
	}
}

// popups closes every window that the tab opens.
func (g *guard) popups(ev any) {
	if ev, ok := ev.(*target.EventTargetCreated); ok && ev.TargetInfo.OpenerID == target.ID(g.mainID) {
		go g.closePopup(ev.TargetInfo.TargetID)
	}
}

// unneeded are the kinds of request a visit's result does not need: web
// fonts (the text renders in a local font) and audio or video. They are
// not fetched, from any host, and not counted as blocked.
var unneeded = []network.ResourceType{network.ResourceTypeFont, network.ResourceTypeMedia}

// paused lets a request through or stops it. A refused top-level
// navigation is aborted, which leaves the page as it was (no error page);
// other requests fail as blocked by the client, as do the unneeded ones.
func (g *guard) paused(ev *fetch.EventRequestPaused) {
	if slices.Contains(unneeded, ev.ResourceType) {
		_ = fetch.FailRequest(ev.RequestID, network.ErrorReasonBlockedByClient).Do(g.exec)
		return
	}
	if f := g.following(); f != nil && f.intercept(ev) {
		g.stopRedirect(ev)
		return
	}
	nav := ev.ResourceType == network.ResourceTypeDocument && ev.FrameID == g.mainID
	ok := g.pol.request(ev.Request.URL)
	if nav {
		ok = g.pol.navigation(ev.Request.URL)
	}
	if ok {
		_ = fetch.ContinueRequest(ev.RequestID).Do(g.exec)
		return
	}
	reason := network.ErrorReasonBlockedByClient
	if nav {
		reason = network.ErrorReasonAborted
	}
	g.p.countBlocked(string(ev.ResourceType), ev.Request.URL)
	_ = fetch.FailRequest(ev.RequestID, reason).Do(g.exec)
}

// auth answers a proxy's challenge with the proxy's credentials, once per
// request; every other challenge (a server's, or the proxy's again after
// wrong credentials) is cancelled.
func (g *guard) auth(ev *fetch.EventAuthRequired) {
	g.mu.Lock()
	first := !g.answered[ev.RequestID]
	g.answered[ev.RequestID] = true
	g.mu.Unlock()
	resp := &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}
	if first && g.proxy != nil && g.proxy.Username != "" && ev.AuthChallenge.Source == fetch.AuthChallengeSourceProxy {
		resp = &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials,
			Username: g.proxy.Username, Password: g.proxy.Password}
	}
	_ = fetch.ContinueWithAuth(ev.RequestID, resp).Do(g.exec)
}

// forget drops the proxy challenges answered so far, when the tab starts
// another visit.
func (g *guard) forget() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.answered)
}

// closePopup closes a window the page opened.
func (g *guard) closePopup(id target.ID) {
	g.p.countBlocked("Popup", "")
	browser := cdp.WithExecutor(g.exec, chromedp.FromContext(g.exec).Browser)
	if err := target.CloseTarget(id).Do(browser); err != nil {
		g.p.log.Debug("close popup", "err", err)
	}
}

// countBlocked counts a request the policy stopped and logs its kind and
// host.
func (p *Pool) countBlocked(kind, raw string) {
	n := p.blocked.Add(1)
	host := ""
	if u, err := url.Parse(raw); err == nil {
		host = u.Host
	}
	p.log.Info("request blocked", "kind", kind, "host", host, "blocked", n)
	if p.cfg.OnBlocked != nil {
		p.cfg.OnBlocked(kind)
	}
}

// Blocked returns how many requests, navigations and popups the pool's
// tabs were refused.
func (p *Pool) Blocked() int64 { return p.blocked.Load() }

// policyFor returns the policy of a visit of req: its own site's when it
// names the hosts it may reach (an assistant's), else the pool's, or,
// when Config.SearchURL is not set, one whose search host is req's.
func (p *Pool) policyFor(req VisitRequest) policy {
	if req.AllowHosts != nil {
		pol := newPolicy(req.URL, req.AllowHosts)
		pol.site = true
		return pol
	}
	if p.policy.searchHost != "" {
		return p.policy
	}
	return newPolicy(req.URL, p.cfg.AllowHosts)
}

// validSearchURL reports whether raw is an absolute http(s) URL.
func validSearchURL(raw string) bool {
	_, ok := httpHost(raw)
	return ok
}
