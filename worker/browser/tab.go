package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
)

// disposeWait bounds the disposal of a visit's browser context.
const disposeWait = time.Second

// tab is the page target of a visit, alone in an incognito browser
// context (its own cookies, closed with it) and in a window of its own;
// after a visit that succeeded it is wiped and serves the next visit with
// the same key (reuse.go). The consent cookies that a visit leaves are
// kept by the Pool and set in every visit's tab.
type tab struct {
	life      context.Context      // chromedp context attached to the target, b's child
	ctx       context.Context      // life bound to the current visit (bind)
	contextID cdp.BrowserContextID // its incognito browser context
	closeCtx  context.CancelFunc   // detaches and closes the target
	b         *chromium
	key       string // which visits it can serve (tabKey)
	guard     *guard // its containment (guard.go)
}

// openTab creates a tab in b, within ctx (a context derived from b's with
// the visit's deadline), and attaches chromedp to it; the tab itself lives
// as long as b or until closed.
//
// chromedp v0.16's WithNewBrowserContext creates the target without
// newWindow, and a new browser context has no window yet, so current
// Chromium refuses it: "Failed to open new tab - no browser is open". So
// the context and target are created here, the target in a new window
// (which also keeps it visible, so it gets animation frames), and chromedp
// attaches to it with WithTargetID. A window opened that way has a smaller
// viewport than the --window-size one, so the viewport is set to
// windowWidth x windowHeight. The browser context connects through proxy
// (nil: directly), and the tab is contained by pol (see contain) before anything
// loads in it. It returns an error when the browser does not answer.
func openTab(ctx context.Context, b *chromium, p *Pool, pol policy, proxy *Proxy) (*tab, error) {
	exec := cdp.WithExecutor(ctx, chromedp.FromContext(b.ctx).Browser)
	create := target.CreateBrowserContext().WithDisposeOnDetach(true)
	if proxy != nil {
		// "<-loopback>" sends loopback addresses through the proxy too, so
		// that nothing leaves the tab around it.
		create = create.WithProxyServer(proxy.Server).WithProxyBypassList("<-loopback>")
	}
	id, err := create.Do(exec)
	if err != nil {
		return nil, fmt.Errorf("create browser context: %w", err)
	}
	t := &tab{contextID: id, b: b}
	targetID, err := target.CreateTarget("about:blank").WithBrowserContextID(id).WithNewWindow(true).Do(exec)
	if err != nil {
		t.dispose()
		return nil, fmt.Errorf("create target: %w", err)
	}
	t.life, t.closeCtx = chromedp.NewContext(b.ctx, chromedp.WithTargetID(targetID))
	// chromedp ties the target's event loop to the context of the first
	// Run, which must be the tab's own; ctx bounds it from outside.
	attached := make(chan error, 1)
	go func() { attached <- chromedp.Run(t.life, chromedp.EmulateViewport(windowWidth, windowHeight)) }()
	select {
	case err = <-attached:
	case <-ctx.Done():
		t.close(nil)
		err = errors.Join(ctx.Err(), <-attached)
	}
	if err != nil {
		t.close(nil)
		return nil, fmt.Errorf("attach to target: %w", err)
	}
	within, cancel := t.bind(ctx)
	defer cancel()
	if err := t.contain(within, p, pol, proxy, targetID); err != nil {
		t.close(nil)
		return nil, fmt.Errorf("contain the tab: %w", err)
	}
	return t, nil
}

// setCookies sets jar, the cookies kept from earlier tabs, in the tab. It
// returns an error wrapping kisa.Unavailable when the browser does not
// take them.
func (t *tab) setCookies(jar []*network.CookieParam) error {
	if len(jar) == 0 {
		return nil
	}
	if err := chromedp.Run(t.ctx, network.SetCookies(jar)); err != nil {
		return fmt.Errorf("%w: set cookies: %w", kisa.Unavailable, err)
	}
	return nil
}

// cookies returns every cookie of the tab's incognito browser context, as
// the parameters that set them again in another tab. It returns an error
// wrapping kisa.Unavailable when the browser does not answer.
func (t *tab) cookies() ([]*network.CookieParam, error) {
	browser := chromedp.FromContext(t.ctx).Browser
	cookies, err := storage.GetCookies().
		WithBrowserContextID(t.contextID).
		Do(cdp.WithExecutor(t.ctx, browser))
	if err != nil {
		return nil, fmt.Errorf("%w: read cookies: %w", kisa.Unavailable, err)
	}
	return cookieParams(cookies), nil
}

// cookieParams turns cookies read from the browser into the parameters
// that set them again in another browser context. Session cookies stay
// session cookies.
func cookieParams(cookies []*network.Cookie) []*network.CookieParam {
	params := make([]*network.CookieParam, 0, len(cookies))
	for _, c := range cookies {
		p := &network.CookieParam{
			Name:         c.Name,
			Value:        c.Value,
			Domain:       c.Domain,
			Path:         c.Path,
			Secure:       c.Secure,
			HTTPOnly:     c.HTTPOnly,
			SameSite:     c.SameSite,
			Priority:     c.Priority,
			SourceScheme: c.SourceScheme,
			SourcePort:   c.SourcePort,
			PartitionKey: c.PartitionKey,
		}
		if !c.Session && c.Expires > 0 {
			exp := cdp.TimeSinceEpoch(time.Unix(0, int64(c.Expires*float64(time.Second))))
			p.Expires = &exp
		}
		params = append(params, p)
	}
	return params
}

// close closes the target and disposes of its browser context. A failure
// is only logged (when log is set): chromedp's detaching disposes of the
// context too.
func (t *tab) close(log *slog.Logger) {
	if t.closeCtx != nil {
		t.closeCtx()
	}
	if err := t.dispose(); err != nil && log != nil {
		log.Debug("dispose browser context", "err", err)
	}
}

// dispose disposes of the tab's browser context, cookies and all, unless
// the browser is gone. It returns an error when the browser refuses.
func (t *tab) dispose() error {
	if t.b.ctx.Err() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), disposeWait)
	defer cancel()
	browser := chromedp.FromContext(t.b.ctx).Browser
	return target.DisposeBrowserContext(t.contextID).Do(cdp.WithExecutor(ctx, browser))
}

// cookies returns the consent cookies kept for new tabs.
func (p *Pool) cookies() []*network.CookieParam {
	p.jarMu.Lock()
	defer p.jarMu.Unlock()
	return p.jar
}

// setCookies replaces the consent cookies kept for new tabs.
func (p *Pool) setCookies(c []*network.CookieParam) {
	p.jarMu.Lock()
	defer p.jarMu.Unlock()
	p.jar = c
}
