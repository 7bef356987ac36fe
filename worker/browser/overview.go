package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa/worker/serp"
)

// settle waits until the overview's text has been non-empty and unchanged
// for SettleQuiet, reading its length and hash every pollEvery. It reports
// false, without error, when OverviewWait passes first (one still
// streaming), or when the loaded page has not announced an overview (its
// block or hidden heading) within OverviewAppear. It returns an error
// when the page cannot be read.
func (v *visit) settle() (bool, error) {
	js := fmt.Sprintf(`(() => {
		const el = document.querySelector(%s);
		const t = el ? el.textContent : "";
		const announced = !!document.querySelector(%s) ||
			[...document.querySelectorAll(%s)].some(h => %s.includes(h.textContent.trim()));
		if (!t.trim()) return announced || document.readyState !== "complete" ? "" : "absent";
		let h = 0;
		for (let i = 0; i < t.length; i++) h = (Math.imul(h, 31) + t.charCodeAt(i)) | 0;
		return t.length + ":" + h;
	})()`, jsString(serp.OverviewBody), jsString(serp.OverviewContainer), jsString(serp.OverviewHeading),
		jsStrings(serp.OverviewHeadings))
	appear := v.p.cfg.OverviewAppear
	if appear == 0 {
		appear = v.p.cfg.OverviewWait
	}
	var last string
	var since, absentSince time.Time
	absent := false
	settled, err := v.poll(v.p.cfg.OverviewWait, func(now time.Time) (bool, error) {
		var sig string
		if err := chromedp.Run(v.ctx, chromedp.Evaluate(js, &sig)); err != nil {
			return false, fmt.Errorf("read overview: %w", err)
		}
		if sig == "absent" {
			if absentSince.IsZero() {
				absentSince = now
			}
			absent = now.Sub(absentSince) >= appear
			return absent, nil
		}
		absentSince = time.Time{}
		if sig != last {
			last, since = sig, now
		}
		return sig != "" && now.Sub(since) >= v.p.cfg.SettleQuiet, nil
	})
	return settled && !absent, err
}

// expand clicks the show-more control when the overview is collapsed,
// waits until the control says it is expanded, and lets the text settle
// again. It reports whether the overview was expanded; a control that does
// not react is logged, not an error. It returns an error when the page
// cannot be read or the tab ended.
func (v *visit) expand() (bool, error) {
	var collapsed bool
	js := fmt.Sprintf(`!!document.querySelector(%s)`, jsString(serp.ShowMoreCollapsed))
	if err := chromedp.Run(v.ctx, chromedp.Evaluate(js, &collapsed)); err != nil || !collapsed {
		return false, err
	}
	if err := v.click(); err != nil {
		return false, err
	}
	js = fmt.Sprintf(`document.querySelector(%s)?.getAttribute("aria-expanded") === "true"`, jsString(serp.ShowMore))
	open, err := v.poll(v.p.cfg.OverviewWait, func(time.Time) (bool, error) {
		var open bool
		return open, chromedp.Run(v.ctx, chromedp.Evaluate(js, &open))
	})
	if err != nil || !open {
		v.log.Warn("overview did not expand", "err", err)
		return false, err
	}
	_, err = v.settle()
	return true, err
}

// click clicks the collapsed show-more control with the mouse, waiting at
// most OverviewWait for it to be visible. A control that stays hidden is
// logged; only the tab ending is an error.
func (v *visit) click() error {
	ctx, cancel := context.WithTimeout(v.ctx, v.p.cfg.OverviewWait)
	defer cancel()
	err := chromedp.Run(ctx, chromedp.Click(serp.ShowMoreCollapsed, chromedp.ByQuery))
	if err != nil && v.ctx.Err() == nil {
		v.log.Warn("show-more control not clickable", "err", err)
		return nil
	}
	return err
}

// poll calls check every pollEvery until it reports done or fails. It
// reports false, without error, once limit has passed, and returns the
// tab's error when the tab ends.
func (v *visit) poll(limit time.Duration, check func(now time.Time) (bool, error)) (bool, error) {
	deadline := time.Now().Add(limit)
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		now := time.Now()
		if done, err := check(now); done || err != nil {
			return done, err
		}
		if now.After(deadline) {
			return false, nil
		}
		select {
		case <-v.ctx.Done():
			return false, v.ctx.Err()
		case <-tick.C:
		}
	}
}
