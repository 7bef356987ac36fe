package browser

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/chromedp/chromedp"
)

// changeWait is a JavaScript function of (ask, last, waitMs) whose
// promise answers {v: ask(), k: JSON.stringify(ask())} as soon as k
// differs from last (asked again after each burst of DOM mutations, once
// per turn of the event loop), or when waitMs have passed. The waiting
// happens in the page: while nothing changes, nothing crosses DevTools.
const changeWait = `(ask, last, waitMs) => new Promise((resolve, reject) => {
	let done = false, queued = false, timer = 0;
	const end = () => { done = true; clearTimeout(timer); observer.disconnect(); };
	const look = (always) => {
		queued = false;
		if (done) return;
		try {
			const v = ask(), k = JSON.stringify(v);
			if (always || k !== last) { end(); resolve({ v: v, k: k }); }
		} catch (e) { end(); reject(e); }
	};
	const observer = new MutationObserver(() => { if (!queued) { queued = true; setTimeout(look, 0); } });
	observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
	timer = setTimeout(() => look(true), waitMs);
	look();
})`

// watchAtMost bounds one wait in the page: a state that changes without a
// DOM mutation (none is known) is still seen within it.
const watchAtMost = time.Second

// watch waits until check reports done, reading the page's answer to expr
// (a JavaScript expression of the page's state, from the DOM) into out
// before each call. The page waits itself (changeWait): it answers once
// its state differs from the one check saw last, or at check's next
// moment (the time it returned, at which it may decide without a change:
// a quiet period's end), at limit, or after watchAtMost. Two reads are at
// least pollEvery apart, so a page that changes all the time (an answer
// streaming fast) is read no more often than a poll every pollEvery
// would; one that does not change is read once every watchAtMost instead
// of ten times. A page that cannot be read (it navigates) is read again
// pollEvery later. It reports false, without error, once limit has
// passed, and returns the tab's error when the tab ends, or check's.
func (v *visit) watch(limit time.Duration, expr string, out any, check func(now time.Time) (done bool, next time.Time, err error)) (bool, error) {
	deadline := time.Now().Add(limit)
	var last string
	var next time.Time
	for {
		start := time.Now()
		wake := earliest(deadline, start.Add(watchAtMost))
		if !next.IsZero() {
			wake = earliest(wake, next)
		}
		key, err := v.askChange(expr, last, max(time.Until(wake), 0), out)
		if v.ctx.Err() != nil {
			return false, v.ctx.Err()
		}
		if err == nil {
			last = key
			done, n, err := check(time.Now())
			if done || err != nil {
				return done, err
			}
			next = n
		}
		if !time.Now().Before(deadline) {
			return false, nil
		}
		if err := v.pause(pollEvery - time.Since(start)); err != nil {
			return false, err
		}
	}
}

// askChange evaluates expr in the page through changeWait: its answer
// once it differs from last (a key askChange returned before; "" answers
// at once) or wait has passed. It decodes the answer into out and returns
// its key, or an error when the page cannot be read.
func (v *visit) askChange(expr, last string, wait time.Duration, out any) (string, error) {
	lastJS, _ := json.Marshal(last) // a string always encodes
	ms := (wait + time.Millisecond - 1) / time.Millisecond
	script := "(" + changeWait + ")(() => (" + expr + "), " + string(lastJS) + ", " + strconv.FormatInt(int64(ms), 10) + ")"
	var got struct {
		V json.RawMessage `json:"v"`
		K string          `json:"k"`
	}
	if err := chromedp.Run(v.ctx, chromedp.Evaluate(script, &got, awaitPromise)); err != nil {
		return "", err
	}
	if err := json.Unmarshal(got.V, out); err != nil {
		return "", fmt.Errorf("read page state: %w", err)
	}
	return got.K, nil
}

// pause waits d (nothing when d <= 0), or until the tab ends, whose error
// it returns.
func (v *visit) pause(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-v.ctx.Done():
		return v.ctx.Err()
	case <-t.C:
		return nil
	}
}
