package browser

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// disposeWait bounds the disposal of a visit's browser context.
const disposeWait = time.Second

// tab is the page target of one visit, alone in a fresh incognito browser
// context and in a window of its own.
type tab struct {
	ctx       context.Context      // chromedp context attached to the target
	contextID cdp.BrowserContextID // its incognito browser context
	closeCtx  context.CancelFunc   // detaches and closes the target
	b         *browserProc
}

// openTab creates a tab in b under job, a context derived from b's with
// the job's deadline, and attaches chromedp to it.
//
// chromedp v0.16's WithNewBrowserContext creates the target without
// newWindow, and a new browser context has no window yet, so current
// Chromium refuses it: "Failed to open new tab - no browser is open". So
// the context and target are created here, the target in a new window
// (which also keeps it visible, so it gets animation frames), and chromedp
// attaches to it with WithTargetID. A window opened that way has a smaller
// viewport than the --window-size one, so the viewport is set to
// windowWidth x windowHeight. It returns an error when the browser does
// not answer.
func openTab(job context.Context, b *browserProc) (*tab, error) {
	exec := cdp.WithExecutor(job, chromedp.FromContext(b.ctx).Browser)
	id, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(exec)
	if err != nil {
		return nil, fmt.Errorf("create browser context: %w", err)
	}
	t := &tab{contextID: id, b: b}
	targetID, err := target.CreateTarget("about:blank").WithBrowserContextID(id).WithNewWindow(true).Do(exec)
	if err != nil {
		t.dispose()
		return nil, fmt.Errorf("create target: %w", err)
	}
	t.ctx, t.closeCtx = chromedp.NewContext(job, chromedp.WithTargetID(targetID))
	if err := chromedp.Run(t.ctx, chromedp.EmulateViewport(windowWidth, windowHeight)); err != nil {
		t.close(nil)
		return nil, fmt.Errorf("attach to target: %w", err)
	}
	return t, nil
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
