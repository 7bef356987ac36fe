package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa/worker/serp"
)

// loadedScript waits in the page until the overview block carries
// data-loaded (the fixture sets it when its answer has finished
// streaming), observing the DOM rather than polling it.
const loadedScript = `new Promise((resolve) => {
  const done = () => document.querySelector('[data-loaded]');
  if (done()) return resolve(true);
  const o = new MutationObserver(() => { if (done()) { o.disconnect(); resolve(true); } });
  o.observe(document, { subtree: true, childList: true, attributes: true });
})`

// runPage is the page's own time: a plain chromedp tab in a running
// Chromium navigates to the fixture and waits, in the page, for the
// overview's finish marker; no screenshot, no expand, nothing kisa adds.
// This is the floor a miss is compared with. It prints the durations of
// n visits of distinct queries as JSON {"ms":[...]} after one untimed
// warm-up visit.
func runPage(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("page", flag.ContinueOnError)
	search := fs.String("url", "", "search URL (the fixture's /search)")
	n := fs.Int("n", 3, "timed visits")
	tag := fs.String("tag", "page", "query prefix, so that queries are distinct across runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "kisa-bench-page-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(getenv("KISA_CHROME_PATH")),
		chromedp.NoSandbox, chromedp.UserDataDir(dir), chromedp.WindowSize(1366, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-quic", true))
	alloc, cancel := chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	browserCtx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Run(browserCtx); err != nil {
		return fmt.Errorf("start chromium: %w", err)
	}
	once := func(query string) (float64, error) {
		tab, cancel := chromedp.NewContext(browserCtx)
		defer cancel()
		if err := chromedp.Run(tab); err != nil { // the tab exists before the clock starts
			return 0, err
		}
		tab, cancelTimeout := context.WithTimeout(tab, 30*time.Second)
		defer cancelTimeout()
		start := time.Now()
		err := chromedp.Run(tab, chromedp.Navigate(visitRequest(*search, query).URL),
			chromedp.Evaluate(loadedScript, nil, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
		return ms(time.Since(start)), err
	}
	// The warm-up passes the consent page, whose cookie the later tabs
	// share (they are in the same browser context).
	warm, cancelWarm := context.WithTimeout(browserCtx, 30*time.Second)
	defer cancelWarm()
	err = chromedp.Run(warm, chromedp.Navigate(visitRequest(*search, *tag+"-warm").URL),
		chromedp.Evaluate(serp.PageScript(serp.AskRejectConsent), nil),
		chromedp.WaitReady("[data-loaded]", chromedp.ByQuery))
	if err != nil {
		return fmt.Errorf("warm-up visit: %w", err)
	}
	var out []float64
	for i := range *n {
		d, err := once(fmt.Sprintf("%s-%d", *tag, i))
		if err != nil {
			return err
		}
		out = append(out, d)
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"ms": out})
}
