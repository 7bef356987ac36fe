package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/exits"
	"github.com/kisa-dev/kisa/worker/browser"
)

// ExitOK is the outcome of a visit through an exit that read a page, as
// CountExit is told it; a visit that failed is told its failure
// (kisa.Failure's word: blocked for the CAPTCHA, unavailable for a proxy
// that did not connect, ...).
const ExitOK = "ok"

// browse visits req for country: directly when no proxy is configured,
// else through the least recently used exit of the country's pool that is
// not cooling down. A CAPTCHA or a proxy failure cools that exit down and
// the visit is tried at once through the next one, each exit at most
// once. It returns an error wrapping kisa.Blocked when every exit of the
// country cools down, the last exit's error when all failed, and an error
// wrapping kisa.Internal when no exit serves the country (the web and the
// worker disagree on KISA_PROXIES).
func (h *Handler) browse(ctx context.Context, country string, req browser.VisitRequest) (browser.VisitResult, error) {
	if h.exits.Empty() {
		return h.pool.Visit(ctx, req)
	}
	pool := h.exits.Pool(country)
	if len(pool) == 0 {
		return browser.VisitResult{}, fmt.Errorf("%w: no exit serves country %q (KISA_PROXIES differs between web and worker?)", kisa.Internal, country)
	}
	name := pool[0].Country
	last := fmt.Errorf("%w: every exit for %s is cooling down", kisa.Blocked, name)
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

// browseVia visits req through exit e, counts the outcome, and cools e
// down when it was blocked or failed as a proxy.
func (h *Handler) browseVia(ctx context.Context, e exits.Exit, req browser.VisitRequest) (browser.VisitResult, error) {
	req.Proxy = &browser.Proxy{Server: e.Server, Username: e.Username, Password: e.Password}
	res, err := h.pool.Visit(ctx, req)
	outcome := ExitOK
	if err != nil {
		f, _ := kisa.FailureOf(err)
		outcome = string(f)
	}
	h.countExit(e.Host, outcome)
	if rotate(err) {
		h.log.Warn("exit failed; cooling it down", "exit", e.String(), "outcome", outcome, "err", err)
		if cerr := h.rotation.Cool(context.WithoutCancel(ctx), e.Country, e.Index); cerr != nil {
			h.log.Error("cool exit down", "exit", e.String(), "err", cerr)
		}
	} else {
		h.log.Log(ctx, slog.LevelDebug, "visit through exit", "exit", e.String(), "outcome", outcome)
	}
	return res, err
}

// rotate says whether a visit's error calls for another exit: a CAPTCHA,
// or a proxy that failed.
func rotate(err error) bool {
	return errors.Is(err, kisa.Blocked) || errors.Is(err, browser.ErrProxy)
}

// countExit tells the CountExit hook, if any, one outcome of exit.
func (h *Handler) countExit(exit, outcome string) {
	if h.onExit != nil {
		h.onExit(exit, outcome)
	}
}
