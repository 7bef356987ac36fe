package api

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa/testenv"
)

// docsScreenshot is where TestDocsPage keeps what it saw (git-ignored).
const docsScreenshot = "../.data/artifacts/docs.png"

// TestDocsPage opens /docs in headless Chromium as a reader would: the
// rendered reference lists the AI overview endpoint with its request
// fields, the page logged no error, and nothing left for another origin:
// the one outside request Redoc makes (its "API docs by Redocly" logo on
// cdn.redoc.ly) must be refused by the page's Content-Security-Policy.
// The screenshot is kept at .data/artifacts/docs.png.
func TestDocsPage(t *testing.T) {
	srv := httptest.NewServer(newTestServer(t, 0))
	t.Cleanup(srv.Close)
	ctx, seen := docsBrowser(t)

	var section string
	var shot []byte
	err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+"/docs"),
		chromedp.WaitVisible(`[data-section-id="operation/aiOverview"]`, chromedp.ByQuery),
		chromedp.Text(`[data-section-id="operation/aiOverview"]`, &section, chromedp.ByQuery),
		chromedp.FullScreenshot(&shot, 100),
	)
	if err != nil {
		t.Fatalf("render /docs: %v", err)
	}
	keepScreenshot(t, shot)
	for _, want := range []string{"Read the AI overview of a search results page", "/v1/networks/browser/ai-overview",
		"query", "countryCode", "languageCode", "screenshots", "fields", "cache", "required", "Default: \"at\""} {
		if !strings.Contains(section, want) {
			t.Errorf("the overview section does not show %q; it reads:\n%.1500s", want, section)
		}
	}
	requests, blocked, problems := seen.snapshot()
	for id, u := range requests {
		inside := strings.HasPrefix(u, srv.URL+"/") || strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:")
		if !inside && !blocked[id] {
			t.Errorf("the page fetched %s, outside the service, and the CSP did not stop it", u)
		}
	}
	for _, p := range problems {
		t.Errorf("the page logged an error: %s", p)
	}
}

// pageLog is what the page did: the URLs it requested (by request id),
// those the Content-Security-Policy refused, and the errors it logged.
type pageLog struct {
	mu       sync.Mutex
	requests map[network.RequestID]string
	blocked  map[network.RequestID]bool
	problems []string
}

func (l *pageLog) record(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		l.requests[e.RequestID] = e.Request.URL
	case *network.EventLoadingFailed:
		l.blocked[e.RequestID] = e.BlockedReason == network.BlockedReasonCsp
	case *runtime.EventExceptionThrown:
		l.problems = append(l.problems, e.ExceptionDetails.Error())
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.APITypeError {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
			}
			l.problems = append(l.problems, strings.Join(parts, " "))
		}
	}
}

func (l *pageLog) snapshot() (map[network.RequestID]string, map[network.RequestID]bool, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.requests), maps.Clone(l.blocked), slices.Clone(l.problems)
}

// docsBrowser starts a headless Chromium that resolves no host name (only
// loopback is reachable) and records what its tab does.
func docsBrowser(t *testing.T) (context.Context, *pageLog) {
	t.Helper()
	// The profile is removed by hand, after the browser: Chromium's helpers
	// may still write to it for a moment, which t.TempDir would fail on.
	profile, err := os.MkdirTemp("", "kisa-docs-test-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(testenv.Chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.NoFirstRun,
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 1600),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-gpu", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() {
		_ = chromedp.Cancel(ctx) // closes the browser
		cancelTime()
		cancelTab()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	})
	log := &pageLog{requests: map[network.RequestID]string{}, blocked: map[network.RequestID]bool{}}
	chromedp.ListenTarget(ctx, log.record)
	if err := chromedp.Run(ctx, network.Enable()); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx, log
}

// keepScreenshot writes the page's screenshot under .data/artifacts.
func keepScreenshot(tb testing.TB, png []byte) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(docsScreenshot), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(docsScreenshot, png, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestDocsHeaders checks the page's Content-Security-Policy and that
// the bundle is served with its licence.
func TestDocsHeaders(t *testing.T) {
	srv := newTestServer(t, 0)
	res := do(t, srv, request(http.MethodGet, "/docs", "", ""))
	if res.Status != 200 || res.Header.Get("Content-Security-Policy") != docsCSP || !strings.Contains(res.Body, "/docs/assets/redoc.standalone.js") {
		t.Errorf("GET /docs: status %d, CSP %q", res.Status, res.Header.Get("Content-Security-Policy"))
	}
	for _, tt := range []struct{ path, want string }{
		{"/docs/assets/redoc.standalone.js", "For license information please see redoc.standalone.js.LICENSE.txt"},
		{"/docs/assets/redoc.standalone.js.LICENSE.txt", "@license"},
		{"/docs/assets/redoc-LICENSE.txt", "The MIT License"},
	} {
		res := do(t, srv, request(http.MethodGet, tt.path, "", ""))
		if res.Status != 200 || !strings.Contains(res.Body, tt.want) {
			t.Errorf("GET %s: status %d, body without %q", tt.path, res.Status, tt.want)
		}
	}
}
