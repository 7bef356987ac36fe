package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/proxies"
	"github.com/kisa-dev/kisa/worker/browser"
)

// ProxyOK is the outcome of a visit through a proxy that read a page, as
// CountProxy is told it; a visit that failed is told its failure
// (kisa.Failure's word: blocked for the CAPTCHA, unavailable for a proxy
// that did not connect, ...).
const ProxyOK = "ok"

// browse visits req for country: directly when no proxy is configured,
// else through the least recently used proxy of the country's pool that is
// not cooling down. A CAPTCHA or a proxy failure cools that proxy down and
// the visit is tried at once through the next one, each proxy at most
// once. It returns an error wrapping kisa.Blocked when every proxy of the
// country cools down, the last proxy's error when all failed, and an error
// wrapping kisa.Internal when no proxy serves the country (the web and the
// worker disagree on KISA_PROXIES).
func (h *Handler) browse(ctx context.Context, country string, req browser.VisitRequest) (browser.VisitResult, error) {
	if h.proxies.Empty() {
		return h.pool.Visit(ctx, req)
	}
	pool := h.proxies.Pool(country)
	if len(pool) == 0 {
		return browser.VisitResult{}, fmt.Errorf("%w: no proxy serves country %q (KISA_PROXIES differs between web and worker?)", kisa.Internal, country)
	}
	name := pool[0].Country
	last := fmt.Errorf("%w: every proxy for %s is cooling down", kisa.Blocked, name)
	for range pool {
		i, ok, err := h.rotation.Pick(ctx, name, len(pool))
		if err != nil {
			return browser.VisitResult{}, fmt.Errorf("%w: %w", kisa.Unavailable, err)
		}
		if !ok {
			break
		}
		res, err := h.browseVia(ctx, pool[i], req)
		if !rotate(err) {
			return res, err
		}
		last = err
	}
	return browser.VisitResult{}, last
}

// browseVia visits req through proxy e, counts the outcome, and cools e
// down when it was blocked or failed as a proxy.
func (h *Handler) browseVia(ctx context.Context, e proxies.Proxy, req browser.VisitRequest) (browser.VisitResult, error) {
	req.Proxy = &browser.Proxy{Server: e.Server, Username: e.Username, Password: e.Password}
	res, err := h.pool.Visit(ctx, req)
	outcome := ProxyOK
	if err != nil {
		f, _ := kisa.FailureOf(err)
		outcome = string(f)
	}
	h.countProxy(e.Host, outcome)
	if rotate(err) {
		h.log.Warn("proxy failed; cooling it down", "proxy", e.String(), "outcome", outcome, "err", err)
		if cerr := h.rotation.Cool(context.WithoutCancel(ctx), e.Country, e.Index); cerr != nil {
			h.log.Error("cool proxy down", "proxy", e.String(), "err", cerr)
		}
	} else {
		h.log.Log(ctx, slog.LevelDebug, "visit through proxy", "proxy", e.String(), "outcome", outcome)
	}
	return res, err
}

// rotate says whether a visit's error calls for another proxy: a CAPTCHA,
// or a proxy that failed.
func rotate(err error) bool {
	return errors.Is(err, kisa.Blocked) || errors.Is(err, browser.ErrProxy)
}

// countProxy tells the CountProxy hook, if any, one outcome of proxy.
func (h *Handler) countProxy(proxy, outcome string) {
	if h.onProxy != nil {
		h.onProxy(proxy, outcome)
	}
}
