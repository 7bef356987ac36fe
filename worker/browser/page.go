package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/emulation"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/serp"
)

const (
	// pollEvery is how often the page's state is read while waiting on it.
	pollEvery = 100 * time.Millisecond
	// paintWait bounds the wait for the first painted frame.
	paintWait = 2 * time.Second
	// pngSignature starts every PNG file.
	pngSignature = "\x89PNG\r\n\x1a\n"
)

// visit is one page visit in its own tab.
type visit struct {
	p     *Pool
	ctx   context.Context // the tab, with the job's deadline; set by run
	tab   *tab
	req   VisitRequest
	log   *slog.Logger
	shots map[string][]byte

	settled  bool // the overview finished streaming within OverviewWait
	expanded bool // the overview was collapsed and has been expanded
}

// newVisit prepares a visit of req.
func (p *Pool) newVisit(req VisitRequest) *visit {
	v := &visit{p: p, req: req, log: p.log.With("url", redact(req.URL))}
	if req.Screenshots {
		v.shots = make(map[string][]byte, 3)
	}
	return v
}

// run opens the visit's tab in b under job, performs the steps, and
// closes the tab. It returns an error wrapping kisa.Unavailable and
// errTabNotOpened when the tab cannot be opened.
func (v *visit) run(job context.Context, b *browserProc) (VisitResult, error) {
	t, err := openTab(job, b)
	if err != nil {
		return VisitResult{}, fmt.Errorf("%w: %w: %w", kisa.Unavailable, errTabNotOpened, err)
	}
	defer t.close(v.log)
	v.ctx, v.tab = t.ctx, t
	return v.steps()
}

// steps performs the visit in order: set cookies, load the page (consent,
// CAPTCHA), then screenshot, settle, screenshot, expand, screenshot, and
// read the result.
func (v *visit) steps() (VisitResult, error) {
	if err := v.setCookies(); err != nil {
		return VisitResult{}, err
	}
	if err := v.identify(); err != nil {
		return VisitResult{}, err
	}
	if err := v.load(); err != nil {
		return VisitResult{}, err
	}
	if err := v.initialShot(); err != nil {
		return VisitResult{}, err
	}
	var err error
	if v.settled, err = v.settle(); err != nil {
		return VisitResult{}, err
	}
	if err := v.capture(kisa.ShotAfterLoad); err != nil {
		return VisitResult{}, err
	}
	if v.expanded, err = v.expand(); err != nil {
		return VisitResult{}, err
	}
	if err := v.capture(kisa.ShotAfterExpand); err != nil {
		return VisitResult{}, err
	}
	return v.result()
}

// identify makes the tab present itself as the desktop Chromium it is:
// the user agent without "Headless" (which search engines answer with a
// different page) and the request's language as Accept-Language.
func (v *visit) identify() error {
	ua := emulation.SetUserAgentOverride(v.tab.b.userAgent)
	if v.req.Language != "" {
		ua = ua.WithAcceptLanguage(v.req.Language)
	}
	if err := chromedp.Run(v.ctx, ua); err != nil {
		return fmt.Errorf("%w: set user agent: %w", kisa.Unavailable, err)
	}
	return nil
}

// load navigates to the request's URL and passes the consent page if it
// shows. It returns an error wrapping kisa.Blocked on the CAPTCHA page and
// one wrapping kisa.Unavailable when the page does not load.
func (v *visit) load() error {
	if err := chromedp.Run(v.ctx, chromedp.Navigate(v.req.URL)); err != nil {
		return fmt.Errorf("%w: navigate: %w", kisa.Unavailable, err)
	}
	st, err := v.inspect()
	if err != nil {
		return err
	}
	if st.consent && !st.captcha {
		if st, err = v.passConsent(); err != nil {
			return err
		}
	}
	if st.captcha {
		v.log.Warn("blocked by CAPTCHA page", "at", redact(st.url))
		return fmt.Errorf("%w: %s", kisa.Blocked, redact(st.url))
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
	js := fmt.Sprintf(`({url: location.href, consent: !!document.querySelector(%s), captcha: !!document.querySelector(%s)})`,
		jsString(serp.ConsentRejectForm), jsString(serp.CaptchaForm))
	if err := chromedp.Run(v.ctx, chromedp.Evaluate(js, &got)); err != nil {
		return pageState{}, fmt.Errorf("inspect page: %w", err)
	}
	return pageState{url: got.URL, consent: got.Consent, captcha: got.Captcha || serp.IsCaptchaURL(got.URL)}, nil
}

// initialShot takes the "initial" screenshot once the loaded page has
// painted a frame (two animation frames after the load event).
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

// capture takes the viewport screenshot called name when the request asked
// for screenshots. It returns an error when Chromium fails to take it or
// it is not a PNG.
func (v *visit) capture(name string) error {
	if !v.req.Screenshots {
		return nil
	}
	var png []byte
	err := chromedp.Run(v.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		png, err = page.CaptureScreenshot().WithFormat(page.CaptureScreenshotFormatPng).WithFromSurface(true).Do(ctx)
		return err
	}))
	if err != nil {
		return fmt.Errorf("screenshot %s: %w", name, err)
	}
	if !bytes.HasPrefix(png, []byte(pngSignature)) {
		return fmt.Errorf("screenshot %s: not a PNG", name)
	}
	v.shots[name] = png
	return nil
}

// result reads the final URL and the page's HTML.
func (v *visit) result() (VisitResult, error) {
	res := VisitResult{Screenshots: v.shots}
	err := chromedp.Run(v.ctx,
		chromedp.Evaluate(`location.href`, &res.FinalURL),
		chromedp.Evaluate(`document.documentElement.outerHTML`, &res.HTML))
	if err != nil {
		return VisitResult{}, fmt.Errorf("read page: %w", err)
	}
	return res, nil
}

// jsStrings writes ss as a JavaScript array literal of strings.
func jsStrings(ss []string) string {
	b, _ := json.Marshal(ss) // strings always encode
	return string(b)
}

// jsString quotes s as a JavaScript string literal (JSON strings are
// JavaScript strings; json.Marshal also escapes U+2028 and U+2029).
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
