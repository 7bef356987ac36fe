package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/kisa-dev/kisa"
)

// errTabNotOpened marks a visit whose tab could not even be opened; when
// the browser died meanwhile, Visit retries it once on the next browser.
var errTabNotOpened = errors.New("tab not opened")

// VisitRequest is one results page to visit.
type VisitRequest struct {
	// URL is the full search URL, with q, gl and hl already set.
	URL string
	// Screenshots asks for the three jobs.Shot* screenshots.
	Screenshots bool
	// Language is the ISO 639-1 code sent as Accept-Language; empty sends
	// Chromium's default.
	Language string
}

// VisitResult is what a visit saw once the overview had settled and been
// expanded.
type VisitResult struct {
	// FinalURL is the page's URL after redirects and the consent page.
	FinalURL string
	// HTML is document.documentElement.outerHTML at the end of the visit.
	HTML string
	// Screenshots are viewport PNGs (1366x900, what a user sees without
	// scrolling) keyed by kisa.ShotInitial, ShotAfterLoad and
	// ShotAfterExpand; nil unless the request asked for them.
	Screenshots map[string][]byte
}

// Visit opens req.URL in a fresh incognito tab of the pool's browser,
// waiting for a free tab first. It passes the consent page, waits (at most
// Config.OverviewWait) for the AI overview to finish streaming, expands it
// and returns the page. A page without overview is a normal result.
//
// It returns an error wrapping kisa.Blocked on the CAPTCHA page, one
// wrapping kisa.Unavailable when the browser died or the page failed to
// load, one wrapping kisa.TimedOut when Config.JobTimeout passed, one
// wrapping ctx's error when ctx ended,
// and a plain error for a malformed URL or anything else.
func (p *Pool) Visit(ctx context.Context, req VisitRequest) (VisitResult, error) {
	if err := checkURL(req.URL); err != nil {
		return VisitResult{}, err
	}
	if err := p.takeSlot(ctx); err != nil {
		return VisitResult{}, fmt.Errorf("browser: wait for a free tab: %w", err)
	}
	defer p.freeSlot()
	res, retry, err := p.attempt(ctx, req)
	if retry {
		p.log.Info("chromium died before the tab opened; retrying on the next one", "url", redact(req.URL))
		res, _, err = p.attempt(ctx, req)
	}
	return res, err
}

// attempt runs req in the current browser. retry says that the browser
// died before the tab could be opened, so that nothing of the visit
// happened yet.
func (p *Pool) attempt(ctx context.Context, req VisitRequest) (res VisitResult, retry bool, err error) {
	b, err := p.acquire(ctx)
	if err != nil {
		return VisitResult{}, false, fmt.Errorf("browser: wait for chromium: %w", err)
	}
	res, err = p.visitIn(ctx, b, req)
	p.release(b, err == nil)
	retry = errors.Is(err, errTabNotOpened) && b.ctx.Err() != nil && ctx.Err() == nil
	return res, retry, err
}

// visitIn runs req in a new tab of b, in a fresh incognito browser context
// closed afterwards. The tab gets the job's deadline and is cancelled when
// ctx ends. Errors are classified as Visit documents.
func (p *Pool) visitIn(ctx context.Context, b *browserProc, req VisitRequest) (VisitResult, error) {
	job, cancel := context.WithTimeout(b.ctx, p.cfg.JobTimeout)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()

	v := p.newVisit(req)
	start := time.Now()
	res, err := v.run(job, b)
	if err = p.explainFailure(ctx, b, job, err); err != nil {
		v.log.Warn("visit failed", "err", err, "ms", time.Since(start).Milliseconds())
		return VisitResult{}, err
	}
	v.log.Info("visit done", "ms", time.Since(start).Milliseconds(), "settled", v.settled,
		"expanded", v.expanded, "screenshots", len(res.Screenshots))
	return res, nil
}

// explainFailure says why a visit failed: the caller's ctx ended, the
// browser died (kisa.Unavailable) or the job's deadline passed
// (kisa.TimedOut); other errors are returned as they are.
func (p *Pool) explainFailure(ctx context.Context, b *browserProc, job context.Context, err error) error {
	switch {
	case err == nil || errors.Is(err, kisa.Blocked):
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("browser: visit stopped: %w", ctx.Err())
	case b.ctx.Err() != nil:
		if errors.Is(err, kisa.Unavailable) {
			return fmt.Errorf("chromium (pid %d) exited during the visit: %w", b.pid, err)
		}
		return fmt.Errorf("%w: chromium (pid %d) exited during the visit: %w", kisa.Unavailable, b.pid, err)
	case errors.Is(job.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: visit took longer than %s: %w", kisa.TimedOut, p.cfg.JobTimeout, err)
	}
	return err
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
