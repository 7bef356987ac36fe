package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/worker/assistants"
	"github.com/kisa-dev/kisa/worker/serp"
)

const (
	// pollEvery is the least time between two reads of the page's state
	// while waiting on it (a conversation's turns, see watch).
	pollEvery = 100 * time.Millisecond
	// paintWait bounds the wait for the first painted frame.
	paintWait = 2 * time.Second
	// pngSignature starts every PNG file.
	pngSignature = "\x89PNG\r\n\x1a\n"
)

// ErrProxy marks a visit that failed because its proxy did not connect,
// refused the credentials or could not reach the search engine; it also
// wraps kisa.Unavailable. Another proxy may do better.
var ErrProxy = errors.New("proxy failed")

// errTabNotOpened marks a visit whose tab could not even be opened; when
// the browser died meanwhile, Visit retries it once on the next browser.
var errTabNotOpened = errors.New("tab not opened")

// VisitRequest is one results page to visit.
type VisitRequest struct {
	// URL is the full search URL, with q, gl and hl already set.
	URL string
	// Screenshots asks for the three kisa.Shot* screenshots.
	Screenshots bool
	// Language is the ISO 639-1 code sent as Accept-Language and given
	// to pages as navigator.languages and the locale; empty keeps
	// Chromium's default.
	Language string
	// Mobile presents the visit as a phone (see presence.go): its user
	// agent and client hints, a 412x915 screen at a device pixel ratio of
	// 2.625, touch; its screenshots are of that screen.
	Mobile bool
	// TimeZone is the IANA time zone the page sees; empty keeps the
	// machine's.
	TimeZone string
	// Geolocation, when set, is the position navigator.geolocation gives
	// the pages of the URL's origin, which alone are granted it.
	Geolocation *geo.Point
	// FullPage, when set, is asked about the final page's HTML before the
	// tab closes; when it reports true, VisitResult.FullPage holds a
	// screenshot of the whole page (evidence of a page not recognised).
	FullPage func(html string) bool
	// Redirects, when set, is asked after FullPage for the links of the
	// page that go through the engine's opaque redirect (absolute URLs);
	// VisitResult.Redirects holds the targets the visit learnt for them.
	Redirects func() []string
	// Proxy is the proxy server the visit's browser context connects through; nil
	// connects directly.
	Proxy *Proxy
	// Mode is what the visit does once the page has loaded; the zero
	// value waits for the AI overview and expands it.
	Mode Mode
	// Prompts are what a ModeConversation or ModeAssistant visit asks, in
	// order: the query and its follow-ups.
	Prompts []string
	// Hooks are the engine's in-page handles of a ModeAssistant visit.
	Hooks *assistants.Hooks
	// AllowHosts, when set, contain the visit to its URL's host (pages
	// and frames) and these domains with their subdomains (every request)
	// instead of the pool's search policy: an assistant's own hosts.
	AllowHosts []string
	// Timeout, when set, bounds the visit instead of Config.VisitTimeout
	// (the assistants answer in 10 to 60 s a prompt).
	Timeout time.Duration
}

// Mode is what a visit does on its page once it has loaded.
type Mode int

// The modes of a visit.
const (
	// ModeOverview waits for the AI overview to settle and expands it;
	// screenshots are kisa.ShotNames.
	ModeOverview Mode = iota
	// ModeResults reads the results page as it loaded; its only
	// screenshot is kisa.ShotInitial.
	ModeResults
	// ModeConversation asks VisitRequest.Prompts in the page's prompt box
	// (AI Mode) one after the other, each once the answer before it has
	// finished streaming; screenshots are kisa.AIModeShotNames.
	ModeConversation
	// ModeAssistant is ModeConversation on an AI assistant's own page,
	// driven by VisitRequest.Hooks (assistant.go); its screenshots are
	// kisa.AIModeShotNames too.
	ModeAssistant
)

// VisitResult is what a visit saw once the overview had settled and been
// expanded.
type VisitResult struct {
	// FinalURL is the page's URL after redirects and the consent page.
	FinalURL string
	// HTML is document.documentElement.outerHTML at the end of the visit.
	HTML string
	// Screenshots are PNGs keyed by kisa.ShotInitial and ShotAfterLoad
	// (viewport images, 1366x900 or a phone's 412x915 at its pixel ratio,
	// what a user sees without scrolling) and
	// ShotAfterExpand (the whole overview block at its full height, up to
	// 16000 px; the viewport on a page without overview); nil unless the
	// request asked for them.
	Screenshots map[string][]byte
	// Settled is false when the page had not said its overview was
	// finished when Config.OverviewWait passed: one still being made, a
	// placeholder that never filled. A page that announced no overview
	// within Config.OverviewAppear is settled: it has none.
	Settled bool
	// FullPage is a PNG of the whole page when VisitRequest.FullPage asked
	// for it, else nil.
	FullPage []byte
	// Steps is how long each step of the visit took, keyed by the Step*
	// names (a step that did not happen is absent).
	Steps map[string]time.Duration
	// Redirects are the targets of the links VisitRequest.Redirects gave,
	// learnt through the engine's redirect in the visit's own tab (its
	// cookies and proxy), by link; a link whose target the visit did not
	// learn within FollowWait is absent. No target page is loaded.
	Redirects map[string]string
}

// The steps of a visit that VisitResult.Steps times.
const (
	StepOpen        = "open"
	StepNavigate    = "navigate"
	StepConsent     = "consent"
	StepSettle      = "settle"
	StepExpand      = "expand"
	StepScreenshots = "screenshots"
	// StepRedirects is the following of the answer's opaque redirects.
	StepRedirects = "redirects"
)

// visit is one page visit: a request in one browser, from opening its tab
// to the page's HTML and screenshots.
type visit struct {
	p     *Pool
	b     *chromium
	req   VisitRequest
	log   *slog.Logger
	ctx   context.Context // the tab, with the visit's deadline; set by inTab
	tab   *tab
	shots map[string][]byte

	settled  bool                     // the page said the overview was finished (or absent) within OverviewWait
	expanded bool                     // the overview was collapsed and has been expanded
	took     map[string]time.Duration // by Step* name; see timed
}

// newVisit prepares a visit of req in b.
func (p *Pool) newVisit(b *chromium, req VisitRequest) *visit {
	v := &visit{p: p, b: b, req: req, log: p.log.With("url", redact(req.URL))}
	if req.Screenshots {
		v.shots = make(map[string][]byte, 3)
	}
	return v
}

// run performs the visit in a new tab under Config.VisitTimeout, cancelled
// when ctx ends, and logs how it went. Its errors are those that
// Pool.Visit documents (see explain).
func (v *visit) run(ctx context.Context) (VisitResult, error) {
	deadline, cancel := context.WithTimeout(v.b.ctx, v.limit())
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()

	start := time.Now()
	res, err := v.inTab(deadline)
	if err = v.explain(ctx, deadline, err); err != nil {
		v.log.Warn("visit failed", "err", err, "ms", time.Since(start).Milliseconds())
		return VisitResult{}, err
	}
	v.log.Info("visit done", "ms", time.Since(start).Milliseconds(), "settled", v.settled,
		"expanded", v.expanded, "screenshots", len(res.Screenshots))
	return res, nil
}

// limit is how long the visit may take: the request's Timeout, else
// Config.VisitTimeout.
func (v *visit) limit() time.Duration {
	if v.req.Timeout > 0 {
		return v.req.Timeout
	}
	return v.p.cfg.VisitTimeout
}

// explain says why the visit failed: the caller's ctx ended, the browser
// died (kisa.Unavailable) or the visit's deadline passed (kisa.TimedOut);
// other errors are returned as they are.
func (v *visit) explain(ctx, deadline context.Context, err error) error {
	switch {
	case err == nil || errors.Is(err, kisa.Blocked):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("browser: visit stopped: %w", ctx.Err())
	case v.b.ctx.Err() != nil:
		if errors.Is(err, kisa.Unavailable) {
			return fmt.Errorf("chromium (pid %d) exited during the visit: %w", v.b.pid, err)
		}
		return fmt.Errorf("%w: chromium (pid %d) exited during the visit: %w", kisa.Unavailable, v.b.pid, err)
	case errors.Is(deadline.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: visit took longer than %s: %w", kisa.TimedOut, v.limit(), err)
	}
	return err
}

// inTab takes an idle tab for the visit, or opens one, under ctx,
// performs the steps, and keeps the tab for the next visit when they
// succeeded (else closes it). It returns an error wrapping
// kisa.Unavailable and errTabNotOpened when no tab can be opened.
func (v *visit) inTab(ctx context.Context) (VisitResult, error) {
	pol := v.p.policyFor(v.req)
	key := tabKey(pol, v.req)
	t := v.b.takeIdle(ctx, key)
	if t == nil {
		err := v.timed(StepOpen, func() (err error) {
			t, err = openTab(ctx, v.b, v.p, pol, v.req.Proxy)
			return err
		})
		if err != nil {
			return VisitResult{}, fmt.Errorf("%w: %w: %w", kisa.Unavailable, errTabNotOpened, err)
		}
		t.key = key
	}
	within, cancel := t.bind(ctx)
	defer cancel()
	v.ctx, v.tab, t.ctx = within, t, within
	res, err := v.steps()
	if err != nil || ctx.Err() != nil {
		t.close(v.log)
		return res, err
	}
	v.keep(t, visitedOrigins(pol, v.req.URL, res.FinalURL))
	return res, nil
}

// steps performs the visit in order: set the kept cookies and the
// identity, load the page (consent, CAPTCHA), then screenshot, settle,
// screenshot, expand, screenshot, and read the result.
func (v *visit) steps() (VisitResult, error) {
	if err := v.tab.setCookies(v.p.cookies()); err != nil {
		return VisitResult{}, err
	}
	if err := v.tab.present(v.req); err != nil {
		return VisitResult{}, err
	}
	if err := v.load(); err != nil {
		return VisitResult{}, err
	}
	if err := v.timed(StepScreenshots, v.initialShot); err != nil {
		return VisitResult{}, err
	}
	switch v.req.Mode {
	case ModeResults:
		v.settled = true
		return v.result()
	case ModeConversation:
		return v.converse()
	case ModeAssistant:
		return v.assist()
	}
	err := v.timed(StepSettle, func() (err error) { v.settled, err = v.settle(false); return err })
	if err != nil {
		return VisitResult{}, err
	}
	if err := v.timed(StepScreenshots, func() error { return v.capture(kisa.ShotAfterLoad) }); err != nil {
		return VisitResult{}, err
	}
	if err := v.timed(StepExpand, func() (err error) { v.expanded, err = v.expand(); return err }); err != nil {
		return VisitResult{}, err
	}
	if err := v.timed(StepScreenshots, func() error { return v.captureBlock(kisa.ShotAfterExpand) }); err != nil {
		return VisitResult{}, err
	}
	return v.result()
}

// timed runs f and adds the time it took to step's total.
func (v *visit) timed(step string, f func() error) error {
	start := time.Now()
	err := f()
	if v.took == nil {
		v.took = map[string]time.Duration{}
	}
	v.took[step] += time.Since(start)
	return err
}

// load navigates to the request's URL and passes the consent page if it
// shows, each once the page's document is ready (navigate: not waiting
// for its subresources). It returns an error wrapping kisa.Blocked on the
// CAPTCHA page and one wrapping kisa.Unavailable when the page does not
// load.
func (v *visit) load() error {
	var resp *network.Response
	err := v.timed(StepNavigate, func() (err error) {
		resp, err = navigate(v.ctx, v.req.URL)
		return err
	})
	if err := v.proxyFailed(resp, err); err != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("%w: navigate: %w", kisa.Unavailable, err)
	}
	if v.req.Mode == ModeAssistant {
		return nil // an assistant's site: its banners and checks are its hooks' (assistant.go)
	}
	st, err := v.inspect()
	if err != nil {
		return err
	}
	if st.consent && !st.captcha {
		if err := v.timed(StepConsent, func() (err error) { st, err = v.passConsent(); return err }); err != nil {
			return err
		}
	}
	if st.captcha {
		v.log.Warn("blocked by CAPTCHA page", "at", redact(st.url))
		return fmt.Errorf("%w: %s", kisa.Blocked, redact(st.url))
	}
	return nil
}

// proxyFailed returns an error wrapping ErrProxy and kisa.Unavailable
// when the visit has a proxy and the navigation failed because of it: a
// proxy or tunnel error of Chromium's network stack, or the proxy's own
// 407 or 502 to 504 answer.
func (v *visit) proxyFailed(resp *network.Response, err error) error {
	if v.req.Proxy == nil {
		return nil
	}
	if err != nil {
		msg := err.Error()
		for _, code := range []string{"ERR_PROXY", "ERR_TUNNEL", "ERR_SOCKS", "ERR_NO_SUPPORTED_PROXIES"} {
			if strings.Contains(msg, code) {
				return fmt.Errorf("%w: %w: navigate: %w", kisa.Unavailable, ErrProxy, err)
			}
		}
		return nil
	}
	if resp != nil && (resp.Status == 407 || resp.Status >= 502 && resp.Status <= 504) {
		return fmt.Errorf("%w: %w: the proxy answered %d", kisa.Unavailable, ErrProxy, resp.Status)
	}
	return nil
}

// pageState is what inspect reads from the page after a navigation.
type pageState struct {
	url     string
	consent bool // the consent interstitial
	captcha bool // the "unusual traffic" page
}

// inspect reads the page's URL and recognises the consent and the CAPTCHA
// page with the selectors of package serp, in the page itself (no copy of
// the HTML crosses over). It returns an error when the page cannot be read.
func (v *visit) inspect() (pageState, error) {
	var got struct {
		URL     string `json:"url"`
		Consent bool   `json:"consent"`
		Captcha bool   `json:"captcha"`
	}
	if err := v.ask(serp.AskInspect, &got); err != nil {
		return pageState{}, fmt.Errorf("inspect page: %w", err)
	}
	return pageState{url: got.URL, consent: got.Consent, captcha: got.Captcha || serp.IsCaptchaURL(got.URL)}, nil
}

// passConsent submits the consent page's reject-all form, waits for the
// page it leads back to (its document ready, see untilDocument), and saves the browser context's cookies for the
// tabs to come. It returns that page's state, and an error wrapping
// kisa.Unavailable when the consent page does not go away.
func (v *visit) passConsent() (pageState, error) {
	if _, err := untilDocument(v.ctx, chromedp.Evaluate(serp.PageScript(serp.AskRejectConsent), nil)); err != nil {
		return pageState{}, fmt.Errorf("%w: reject consent: %w", kisa.Unavailable, err)
	}
	st, err := v.inspect()
	if err != nil {
		return pageState{}, err
	}
	if st.consent {
		return st, fmt.Errorf("%w: consent page still shown after rejecting", kisa.Unavailable)
	}
	jar, err := v.tab.cookies()
	if err != nil {
		return st, err
	}
	v.p.setCookies(jar)
	v.log.Info("consent passed", "consents", v.p.consents.Add(1))
	return st, nil
}

// initialShot takes the "initial" screenshot once the page has painted a
// frame (two animation frames after its document was ready: images and
// other subresources may still be loading).
func (v *visit) initialShot() error {
	if !v.req.Screenshots {
		return nil
	}
	ctx, cancel := context.WithTimeout(v.ctx, paintWait)
	defer cancel()
	err := chromedp.Run(ctx, chromedp.Evaluate(
		`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, nil, awaitPromise))
	switch {
	case v.ctx.Err() != nil:
		return v.ctx.Err()
	case err != nil:
		v.log.Warn("no painted frame seen; taking the screenshot anyway", "err", err)
	}
	return v.capture(kisa.ShotInitial)
}

// awaitPromise makes an evaluation wait for the promise it returns.
func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams {
	return p.WithAwaitPromise(true)
}

// settle waits until the page says the overview is finished (see
// overviewDone) and reports whether it did: true when the page marked the
// overview loaded (serp.OverviewLoaded) or showed a notice that it gave up
// (serp.OverviewNotices); on a page that has no such marks (no overview
// container), once its answer's text has been non-empty and unchanged for
// SettleQuiet with no sign that it is still being made. While a
// placeholder, a "Generating" status or an empty answer stands, it waits.
// The waiting happens in the page, which answers as soon as the overview
// changes (serp.AskOverviewChange). settle reports false, without error,
// when OverviewWait passes first (one still being made, a placeholder that
// never filled); a loaded page that has not announced an overview (its
// block or heading) within OverviewAppear has none, which settles it too.
// After expanding (again), the loaded mark is old news: the text must be
// quiet. It returns an error when the page cannot be read.
func (v *visit) settle(again bool) (bool, error) {
	appear := v.p.cfg.OverviewAppear
	if appear == 0 {
		appear = v.p.cfg.OverviewWait
	}
	start := time.Now()
	deadline := start.Add(v.p.cfg.OverviewWait)
	var last *serp.OverviewState
	since := start // when last began
	for {
		next := deadline
		if last != nil {
			switch {
			case last.Sig == "absent":
				next = earliest(next, since.Add(appear))
			case quietEnds(*last, again):
				next = earliest(next, since.Add(v.p.cfg.SettleQuiet))
			}
		}
		var st serp.OverviewState
		wait := max(time.Until(next), time.Millisecond)
		err := v.ask(serp.AskOverviewChange, &st, serp.OverviewChange{Last: last, WaitMs: wait.Milliseconds()})
		switch {
		case v.ctx.Err() != nil:
			return false, v.ctx.Err()
		case err != nil && contextReplaced(err) && time.Now().Before(deadline):
			continue // the page navigated while it waited: ask the new one
		case err != nil:
			return false, fmt.Errorf("read overview: %w", err)
		}
		now := time.Now()
		if last == nil || st != *last {
			last, since = &st, now
		}
		switch {
		case st.Sig == "absent":
			if now.Sub(since) >= appear {
				return true, nil
			}
		case overviewDone(st, again):
			return true, nil
		case quietEnds(st, again) && now.Sub(since) >= v.p.cfg.SettleQuiet:
			return true, nil
		}
		if !now.Before(deadline) {
			v.log.Warn("overview not finished within the wait", "waited", v.p.cfg.OverviewWait, "answer", st.Sig != "",
				"busy", st.Busy, "marked", st.Marked)
			return false, nil
		}
	}
}

// overviewDone reports whether the page says the overview is finished:
// marked loaded (not after expanding, see settle) or showing the notice
// of an overview given up.
func overviewDone(st serp.OverviewState, again bool) bool {
	return st.Sig != "absent" && (st.Loaded && !again || st.Notice)
}

// quietEnds reports whether a quiet period may end the wait in state st:
// the fallback for an answer on a page that shows no sign of its end (no
// container to mark loaded, or after expanding), never while the answer
// is empty or the page shows it still being made (a marked-loaded page's
// leftover status aside).
func quietEnds(st serp.OverviewState, again bool) bool {
	return st.Sig != "" && st.Sig != "absent" && (!st.Busy || st.Loaded) && (!st.Marked || again)
}

// contextReplaced reports whether err says that the page's JavaScript
// context went away during an evaluation (the page navigated).
func contextReplaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Execution context was destroyed") || strings.Contains(msg, "Cannot find context")
}

// earliest returns the earlier of a and b.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// reactWait bounds the wait for the show-more control to react to a click.
// The live page reacts within a frame (the expanded answer is already in
// the DOM, only clipped); a page whose scripts do not run (a saved page)
// never does, and its answer is read from the DOM as it is.
const reactWait = time.Second

// expand clicks the show-more control when the overview is collapsed,
// waits until the control says it is expanded, and lets the text settle
// again. It reports whether the overview was expanded; a control that is
// not rendered or does not react is logged, not an error. It returns an
// error when the page cannot be read or the tab ended.
func (v *visit) expand() (bool, error) {
	var collapsed bool
	if err := v.ask(serp.AskCollapsed, &collapsed); err != nil || !collapsed {
		return false, err
	}
	clicked, err := v.click()
	if err != nil || !clicked {
		return false, err
	}
	var open bool
	if err := v.ask(serp.AskExpandedChange, &open, serp.Wait{WaitMs: reactWait.Milliseconds()}); err != nil {
		return false, err
	}
	if !open {
		v.log.Warn("overview did not expand", "waited", reactWait)
		return false, nil
	}
	_, err = v.settle(true)
	return true, err
}

// click clicks the collapsed show-more control with the mouse, at the
// centre of its box once scrolled into view. It reports false, logging
// why, when the control is not rendered; only the tab ending or the page
// not answering is an error.
func (v *visit) click() (bool, error) {
	var at *struct{ X, Y float64 }
	if err := v.ask(serp.AskShowMoreBox, &at); err != nil {
		return false, err
	}
	if at == nil {
		v.log.Warn("show-more control not rendered; reading the overview as it is")
		return false, nil
	}
	if err := chromedp.Run(v.ctx, chromedp.MouseClickXY(at.X, at.Y)); err != nil {
		return false, fmt.Errorf("click show-more: %w", err)
	}
	return true, nil
}

// maxShotHeight caps the height of a screenshot beyond the viewport (the
// expanded overview, a full page), in CSS pixels.
const maxShotHeight = 16000

// capture takes the viewport screenshot called name when the request asked
// for screenshots. It returns an error when Chromium fails to take it or
// it is not a PNG.
func (v *visit) capture(name string) error {
	if !v.req.Screenshots {
		return nil
	}
	png, err := v.shoot(name, nil)
	if err != nil {
		return err
	}
	v.shots[name] = png
	return nil
}

// captureBlock takes the screenshot called name of the whole overview
// block (serp.OverviewContainer) at its full height, beyond the viewport
// if need be (at most maxShotHeight), when the request asked for
// screenshots; a page without the block gets a viewport screenshot.
func (v *visit) captureBlock(name string) error {
	if !v.req.Screenshots {
		return nil
	}
	png, err := v.shootArea(name, serp.AskOverviewArea)
	if err != nil {
		return err
	}
	v.shots[name] = png
	return nil
}

// captureFullPage returns a screenshot of the whole page, at most
// maxShotHeight high, for the evidence of an unrecognised page.
func (v *visit) captureFullPage() ([]byte, error) {
	return v.shootArea("fullPage", serp.AskPageArea)
}

// shootArea takes the screenshot called name of the area that page.js
// answers to question ({x, y, width, height} in page pixels, or null for
// the viewport).
func (v *visit) shootArea(name, question string) ([]byte, error) {
	var area *page.Viewport
	if err := v.ask(question, &area); err != nil {
		return nil, fmt.Errorf("screenshot %s: measure: %w", name, err)
	}
	if area != nil {
		area.Height = min(area.Height, maxShotHeight)
		area.Scale = 1
	}
	return v.shoot(name, area)
}

// shoot takes the screenshot called name of clip (nil: the viewport). It
// returns an error when Chromium fails to take it or it is not a PNG.
func (v *visit) shoot(name string, clip *page.Viewport) ([]byte, error) {
	var png []byte
	err := chromedp.Run(v.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		// optimizeForSpeed: a faster PNG encoding, a larger file.
		shot := page.CaptureScreenshot().WithFormat(page.CaptureScreenshotFormatPng).WithFromSurface(true).WithOptimizeForSpeed(true)
		if clip != nil {
			shot = shot.WithClip(clip).WithCaptureBeyondViewport(true)
		}
		var err error
		png, err = shot.Do(ctx)
		return err
	}))
	if err != nil {
		return nil, fmt.Errorf("screenshot %s: %w", name, err)
	}
	if !bytes.HasPrefix(png, []byte(pngSignature)) {
		return nil, fmt.Errorf("screenshot %s: not a PNG", name)
	}
	return png, nil
}

// result reads the final URL and the page's HTML, and takes a full-page
// screenshot when the request's FullPage says the page needs one.
func (v *visit) result() (VisitResult, error) {
	res := VisitResult{Settled: v.settled}
	err := chromedp.Run(v.ctx,
		chromedp.Evaluate(`location.href`, &res.FinalURL),
		chromedp.Evaluate(`document.documentElement.outerHTML`, &res.HTML))
	if err != nil {
		return VisitResult{}, fmt.Errorf("read page: %w", err)
	}
	if v.req.FullPage != nil && v.req.FullPage(res.HTML) {
		if res.FullPage, err = v.captureFullPage(); err != nil {
			return VisitResult{}, err
		}
	}
	if v.req.Redirects != nil {
		if links := v.req.Redirects(); len(links) > 0 {
			_ = v.timed(StepRedirects, func() error { res.Redirects = v.followRedirects(links); return nil })
		}
	}
	res.Screenshots, res.Steps = v.shots, v.took
	return res, nil
}

// checkURL returns an error unless raw is an absolute http(s) URL.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("browser: bad visit URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("browser: visit URL %q is not an absolute http(s) URL", redact(raw))
	}
	return nil
}

// redact returns raw without its query and fragment, for logs and errors.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

// ask evaluates serp's page.js for question (a serp.Ask* constant, with
// its argument if it takes one) in the tab and decodes its answer into
// out, awaiting it when it is a promise. It returns an error when the page
// cannot be read.
func (v *visit) ask(question string, out any, arg ...any) error {
	return chromedp.Run(v.ctx, chromedp.Evaluate(serp.PageScript(question, arg...), out, awaitPromise))
}
