package browser

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"
)

// A tab serves many visits. Opening one (a browser context, a window, a
// renderer process, the guard) costs about a third of a second and most
// of a visit's CPU, so a visit that succeeded leaves its tab behind,
// wiped, for the next visit with the same proxy and policy. Wiping clears
// what a page can leave for the next one to read: the context's cookies,
// the storage of every origin the visit reached (local and session
// storage, IndexedDB, cache storage, service workers), window.name and
// the tab's history; the last page's garbage is collected. The HTTP
// cache stays, as a person's browser keeps it. A visit that failed closes
// its tab: its state is unknown.

// wipeWait bounds the wiping of a tab between two visits.
const wipeWait = 2 * time.Second

// wipeScript clears what the page's own origin keeps for the tab.
const wipeScript = `(() => { try { sessionStorage.clear(); localStorage.clear(); } catch (e) {} window.name = ""; })()`

// tabKey says which visits a tab can serve: those of the same device
// (a phone's screen and touch stay with the tab), located or not (the
// geolocation permission is granted to the browser context), through the
// same proxy (a browser context's proxy is fixed when it is created),
// under the same policy (the guard's).
func tabKey(pol policy, req VisitRequest) string {
	var k strings.Builder
	fmt.Fprintf(&k, "%s\x00%s\x00%s\x00mobile=%t\x00located=%t", pol.searchHost, pol.consentHost,
		strings.Join(pol.allow, ","), req.Mobile, req.Geolocation != nil)
	if p := req.Proxy; p != nil {
		k.WriteString("\x00" + p.Server + "\x00" + p.Username + "\x00" + p.Password)
	}
	return k.String()
}

// takeIdle returns an idle tab of b for key, waiting (within ctx) while a
// tab for key is being wiped: wiping takes milliseconds, opening a tab
// hundreds. It returns nil when there is none to wait for.
func (b *chromium) takeIdle(ctx context.Context, key string) *tab {
	b.idleMu.Lock()
	defer b.idleMu.Unlock()
	for {
		if i := slices.IndexFunc(b.idle, func(t *tab) bool { return t.key == key }); i >= 0 {
			t := b.idle[i]
			b.idle = slices.Delete(b.idle, i, i+1)
			return t
		}
		if b.wiping[key] == 0 || ctx.Err() != nil {
			return nil
		}
		changed := b.idleChanged
		b.idleMu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
		b.idleMu.Lock()
	}
}

// startWipe counts a tab for key as being wiped.
func (b *chromium) startWipe(key string) {
	b.idleMu.Lock()
	defer b.idleMu.Unlock()
	if b.wiping == nil {
		b.wiping = map[string]int{}
		b.idleChanged = make(chan struct{})
	}
	b.wiping[key]++
}

// endWipe counts a wipe of a tab for key as ended, keeping t (when not
// nil) for later visits, unless b already keeps limit tabs (then it
// closes the oldest), and wakes the visits waiting in takeIdle.
func (b *chromium) endWipe(key string, t *tab, limit int, log *slog.Logger) {
	b.idleMu.Lock()
	if b.wiping[key]--; b.wiping[key] == 0 {
		delete(b.wiping, key)
	}
	if t != nil {
		b.idle = append(b.idle, t)
	}
	var extra []*tab
	if n := len(b.idle) - limit; n > 0 {
		extra = slices.Clone(b.idle[:n])
		b.idle = slices.Delete(b.idle, 0, n)
	}
	close(b.idleChanged)
	b.idleChanged = make(chan struct{})
	b.idleMu.Unlock()
	for _, e := range extra {
		e.close(log)
	}
}

// bind returns a context for one visit in t: it carries t's chromedp
// target, ends when visit ends (with its deadline), and ending it leaves
// the tab open.
func (t *tab) bind(visit context.Context) (context.Context, context.CancelFunc) {
	// t.life, not t.ctx: the tab outlives each visit.
	ctx, cancel := context.WithCancel(t.life)
	if d, ok := visit.Deadline(); ok {
		var cancelDeadline context.CancelFunc
		ctx, cancelDeadline = context.WithDeadline(ctx, d)
		stop := context.AfterFunc(visit, cancel)
		return ctx, func() { stop(); cancelDeadline(); cancel() }
	}
	stop := context.AfterFunc(visit, cancel)
	return ctx, func() { stop(); cancel() }
}

// keep wipes t, after a visit that succeeded and reached origins, and
// keeps it for the next visit with the same key, in the background; a
// tab that cannot be wiped, or whose browser is draining or gone, is
// closed instead.
func (v *visit) keep(t *tab, origins []string) {
	if v.p.draining(v.b) {
		t.close(v.log)
		return
	}
	v.b.startWipe(t.key)
	go func() {
		if err := t.wipe(origins); err != nil {
			v.log.Debug("tab not wiped; closing it", "err", err)
			t.close(v.log)
			v.b.endWipe(t.key, nil, v.p.cfg.Tabs, v.log)
			return
		}
		t.guard.forget()
		v.b.endWipe(t.key, t, v.p.cfg.Tabs, v.log)
	}()
}

// wipe clears what the last visit left in t (see the top of this file) and
// leaves it on about:blank. It returns an error when the browser does not
// do it within wipeWait.
func (t *tab) wipe(origins []string) error {
	ctx, cancel := context.WithTimeout(t.life, wipeWait)
	defer cancel()
	_ = chromedp.Run(ctx, chromedp.Evaluate(wipeScript, nil)) // an error page has no storage to clear
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank"), page.ResetNavigationHistory()); err != nil {
		return err
	}
	// The last page's objects are garbage now; without a collection the
	// idle renderer keeps them (and a V8 heap grown to hold them) into
	// the next visit: about 58 MB of PSS per renderer instead of 40 after
	// a hundred fixture visits. A full collection on about:blank takes
	// milliseconds.
	if err := chromedp.Run(ctx, heapprofiler.CollectGarbage()); err != nil {
		return err
	}
	browser := cdp.WithExecutor(ctx, chromedp.FromContext(t.life).Browser)
	if err := storage.ClearCookies().WithBrowserContextID(t.contextID).Do(browser); err != nil {
		return err
	}
	for _, o := range origins {
		if err := chromedp.Run(ctx, storage.ClearDataForOrigin(o, "all")); err != nil {
			return err
		}
	}
	return nil
}

// visitedOrigins are the origins a visit of req that ended on finalURL
// may have written to: the search URL's, the consent host's and the final
// page's.
func visitedOrigins(pol policy, req, finalURL string) []string {
	var out []string
	add := func(scheme, host string) {
		if host == "" {
			return
		}
		if o := scheme + "://" + host; !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	scheme := "https"
	for _, raw := range []string{req, finalURL} {
		if u, err := url.Parse(raw); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
			scheme = u.Scheme
			add(u.Scheme, u.Host)
		}
	}
	add(scheme, pol.consentHost)
	return out
}

// draining reports whether b takes no more visits.
func (p *Pool) draining(b *chromium) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return b.draining || b.ctx.Err() != nil
}
