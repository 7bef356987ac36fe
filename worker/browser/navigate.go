package browser

import (
	"context"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// navigate loads raw in the tab's main frame and returns once the new
// document has arrived and been parsed (its DOMContentLoaded), with its
// response (nil when none was seen). It does not wait for the page's
// subresources (images, scripts of other hosts, frames): the reading
// waits for the answer itself, and a proxy's slow third-party hosts must
// not hold a visit. It returns an error with the network's error text
// ("page load error net::ERR_...") when the navigation fails.
func navigate(ctx context.Context, raw string) (*network.Response, error) {
	return untilDocument(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		switch _, _, errorText, _, err := page.Navigate(raw).Do(ctx); {
		case err != nil:
			return err
		case errorText != "":
			return fmt.Errorf("page load error %s", errorText)
		}
		return nil
	}))
}

// untilDocument runs action, which makes the main frame navigate (a
// navigation, a form submitted), and waits until the document it leads to
// has fired DOMContentLoaded (or, failing that sign, its load event or the
// frame's end of loading), a navigation within the document, or the
// document's request failed. It returns the document's response, as
// chromedp.RunResponse does but without waiting for the load event.
func untilDocument(ctx context.Context, action chromedp.Action) (*network.Response, error) {
	c := chromedp.FromContext(ctx)
	if c == nil || c.Target == nil {
		return nil, fmt.Errorf("navigate: no attached tab")
	}
	w := &docWait{frame: cdp.FrameID(c.Target.TargetID)}
	lctx, done := context.WithCancel(ctx)
	defer done()
	w.done = done
	chromedp.ListenTarget(lctx, w.event)
	if err := chromedp.Run(ctx, action); err != nil {
		return nil, err
	}
	select {
	case <-lctx.Done():
	case <-ctx.Done():
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.err != nil:
		return nil, w.err
	case !w.finished:
		return nil, ctx.Err()
	}
	return w.resp, nil
}

// docWait follows one navigation of the main frame through its events,
// which chromedp delivers one at a time, in order. Events that come before the
// navigation's loader is known (the "init" lifecycle event names it) are
// kept and replayed then, as chromedp.RunResponse does.
type docWait struct {
	frame cdp.FrameID // the main frame: a page target's frame id is its target id
	done  context.CancelFunc

	mu       sync.Mutex
	loader   cdp.LoaderID // the new document's, once known
	early    []any        // events before loader was known
	req      network.RequestID
	resp     *network.Response
	err      error
	finished bool
}

// event takes one of the tab's events.
func (w *docWait) event(ev any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.finished || w.err != nil {
		return
	}
	if w.loader != "" {
		w.handle(ev, false)
		return
	}
	w.early = append(w.early, ev)
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		// A navigation that never commits (too many redirects) shows no
		// "init"; its lone request has a loader id equal to its own.
		if ev.FrameID == w.frame && string(ev.LoaderID) == string(ev.RequestID) {
			w.loader = ev.LoaderID
		}
	case *page.EventLifecycleEvent:
		if ev.FrameID == w.frame && ev.Name == "init" {
			w.loader = ev.LoaderID
		}
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == w.frame {
			w.finish(nil) // a fragment: no new document
			return
		}
	}
	if w.loader != "" {
		early := w.early
		w.early = nil
		for _, ev := range early {
			if w.handle(ev, true); w.finished || w.err != nil {
				return
			}
		}
	}
}

// handle takes an event of the navigation whose loader is known, replayed
// when it came before that.
func (w *docWait) handle(ev any, replayed bool) {
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.LoaderID == w.loader && ev.Type == network.ResourceTypeDocument {
			w.req = ev.RequestID
		}
	case *network.EventResponseReceived:
		if ev.RequestID == w.req {
			w.resp = ev.Response
		}
	case *network.EventLoadingFailed:
		if ev.RequestID == w.req && ev.Canceled {
			w.finish(fmt.Errorf("page load error %s", ev.ErrorText))
		}
	case *page.EventLifecycleEvent:
		if ev.FrameID == w.frame && ev.LoaderID == w.loader && (ev.Name == "DOMContentLoaded" || ev.Name == "load") {
			w.finish(nil)
		}
	case *page.EventFrameStoppedLoading:
		// The frame stopped loading without the lifecycle event (a
		// navigation the page itself stopped); not one replayed from
		// before the loader was known, which may be the old document's.
		if ev.FrameID == w.frame && !replayed {
			w.finish(nil)
		}
	}
}

// finish ends the wait with err (nil: the document is ready).
func (w *docWait) finish(err error) {
	w.finished, w.err = err == nil, err
	w.done()
}
