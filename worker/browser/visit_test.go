package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/worker/serp"
)

// allShots are the screenshot names a visit with screenshots returns.
var allShots = []string{kisa.ShotAfterExpand, kisa.ShotAfterLoad, kisa.ShotInitial}

func TestVisit(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, nil)
	tests := []struct {
		name         string
		path         string
		screenshots  bool
		wantErr      error    // errors.Is the Visit error; nil = success
		wantOverview []string // substrings of the overview's text; nil = no overview
		wantExpanded string   // the show-more control's aria-expanded; "" = no control
		wantHTML     string   // substring of the page's HTML
		wantShots    []string // sorted screenshot names
		differ       []string // two screenshots that must differ
	}{{
		name:         "streaming overview is read once it has settled",
		path:         "/stream",
		screenshots:  true,
		wantOverview: []string{"Frogs are green", "iridophores. STREAM-END"},
		wantShots:    allShots,
		differ:       []string{kisa.ShotInitial, kisa.ShotAfterLoad},
	}, {
		name:         "collapsed overview is expanded by a real click",
		path:         "/collapsed",
		screenshots:  true,
		wantOverview: []string{"first paragraph", "TRUSTED-CLICK EXPAND-END"},
		wantExpanded: "true",
		wantShots:    allShots,
		differ:       []string{kisa.ShotAfterLoad, kisa.ShotAfterExpand},
	}, {
		name:     "page without overview is a normal result",
		path:     "/plain",
		wantHTML: "PLAIN-RESULTS",
	}, {
		name:         "no screenshots unless asked for",
		path:         "/stream",
		wantOverview: []string{"STREAM-END"},
	}, {
		name:        "redirect to the CAPTCHA page is blocked",
		path:        "/blocked?q=frogs",
		screenshots: true,
		wantErr:     kisa.Blocked,
		wantHTML:    "/sorry/index",
	}, {
		name:     "CAPTCHA form on another path is blocked",
		path:     "/captchaform",
		wantErr:  kisa.Blocked,
		wantHTML: "/captchaform",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Visit(t.Context(), VisitRequest{URL: s.url(tt.path), Screenshots: tt.screenshots})
			if tt.wantErr != nil {
				checkBlocked(t, err, tt.wantHTML)
				return
			}
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			if res.FinalURL != s.url(tt.path) {
				t.Errorf("FinalURL = %q, want %q", res.FinalURL, s.url(tt.path))
			}
			checkOverview(t, res.HTML, tt.wantOverview, tt.wantExpanded)
			checkHTML(t, res.HTML, tt.wantHTML)
			if diff := cmp.Diff(tt.wantShots, shotNames(res.Screenshots)); diff != "" {
				t.Errorf("screenshots (-want +got):\n%s", diff)
			}
			checkPNGs(t, res.Screenshots)
			if tt.differ != nil && bytes.Equal(res.Screenshots[tt.differ[0]], res.Screenshots[tt.differ[1]]) {
				t.Errorf("screenshots %s and %s are identical; want them taken at their moments", tt.differ[0], tt.differ[1])
			}
		})
	}
}

// checkBlocked fails the test unless err is kisa.Blocked (only) and names
// the page's URL without its query.
func checkBlocked(tb testing.TB, err error, url string) {
	tb.Helper()
	if !errors.Is(err, kisa.Blocked) || errors.Is(err, kisa.Unavailable) {
		tb.Fatalf("Visit error = %v, want kisa.Blocked only", err)
	}
	if msg := err.Error(); !strings.Contains(msg, url) || strings.Contains(msg, "continue=") {
		tb.Errorf("Visit error = %q, want the URL %q without its query", msg, url)
	}
}

// TestVisitConsent checks that the reject-all form is submitted once and
// that the cookies it leaves spare the next (fresh, incognito) tab the
// consent page.
func TestVisitConsent(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	for i, q := range []string{"frogs", "toads"} {
		res, err := p.Visit(t.Context(), VisitRequest{URL: s.url("/search?q=" + q)})
		if err != nil {
			t.Fatalf("visit %d: %v", i+1, err)
		}
		if want := s.url("/search?q=" + q); res.FinalURL != want {
			t.Errorf("visit %d: FinalURL = %q, want %q", i+1, res.FinalURL, want)
		}
		checkHTML(t, res.HTML, "RESULTS for "+q+" with SOCS=reject")
	}
	if got := s.consentViews.Load(); got != 1 {
		t.Errorf("consent page served %d times, want 1", got)
	}
	if got := s.rejects.Load(); got != 1 {
		t.Errorf("reject-all submitted %d times, want 1", got)
	}
	if got := p.consents.Load(); got != 1 {
		t.Errorf("pool counted %d consents passed, want 1", got)
	}
}

func TestVisitTabs(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.Tabs = 2 })
	errs := visitAll(t, p, s.url("/barrier"), 4)
	for i, err := range errs {
		if err != nil {
			t.Errorf("visit %d: %v", i+1, err)
		}
	}
	if got := s.maxActive.Load(); got != 2 {
		t.Errorf("at most %d pages loaded at once, want 2 (Tabs)", got)
	}
}

// TestVisitCancel checks that callers waiting for a tab honour their ctx,
// and that cancelling a running visit ends it and frees its tab.
func TestVisitCancel(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := s.startHang(t, ctx, p) // the only tab is now busy

	waiting, stop := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer stop()
	if _, err := p.Visit(waiting, VisitRequest{URL: s.url("/fast")}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Visit waiting for a tab: error = %v, want context.DeadlineExceeded", err)
	}

	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || errors.Is(err, kisa.Unavailable) {
		t.Errorf("cancelled Visit: error = %v, want context.Canceled only", err)
	}
	res, err := p.Visit(t.Context(), VisitRequest{URL: s.url("/fast")})
	if err != nil {
		t.Fatalf("Visit after cancel: %v", err)
	}
	checkOverview(t, res.HTML, []string{"FAST-OVERVIEW"}, "")
}

func TestVisitBadURL(t *testing.T) {
	p, err := NewPool(testConfig(t))
	if err != nil {
		t.Fatalf("NewPool: %v (`apt-get install chromium`)", err)
	}
	for _, u := range []string{"", "/search?q=x", "ftp://example.com/", "http:///x"} {
		if _, err := p.Visit(t.Context(), VisitRequest{URL: u}); err == nil || errors.Is(err, kisa.Unavailable) {
			t.Errorf("Visit(%q) error = %v, want a plain error", u, err)
		}
	}
}

// visitAll runs n visits of url at once and returns their errors.
func visitAll(tb testing.TB, p *Pool, url string, n int) []error {
	tb.Helper()
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = p.Visit(context.Background(), VisitRequest{URL: url})
		})
	}
	wg.Wait()
	return errs
}

// checkOverview fails the test unless the overview of html has every
// string of want (or there is no overview, when want is nil), and its
// show-more control has aria-expanded = expanded ("" = no control).
func checkOverview(tb testing.TB, html string, want []string, expanded string) {
	tb.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		tb.Fatalf("parse HTML: %v", err)
	}
	body := doc.Find(serp.OverviewBody)
	if want == nil && body.Length() > 0 {
		tb.Errorf("page has an overview: %q", body.Text())
	}
	for _, w := range want {
		if !strings.Contains(body.Text(), w) {
			tb.Errorf("overview lacks %q: %q", w, body.Text())
		}
	}
	if got := doc.Find(serp.ShowMore).AttrOr("aria-expanded", ""); got != expanded {
		tb.Errorf("show-more aria-expanded = %q, want %q", got, expanded)
	}
}

// checkHTML fails the test unless html has every string of want.
func checkHTML(tb testing.TB, html string, want ...string) {
	tb.Helper()
	for _, w := range want {
		if !strings.Contains(html, w) {
			tb.Errorf("HTML lacks %q:\n%s", w, html)
		}
	}
}

// pngHeight returns the height of a PNG, failing the test on a bad one.
func pngHeight(tb testing.TB, b []byte) int {
	tb.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		tb.Fatalf("decode PNG: %v", err)
	}
	return cfg.Height
}

// checkPNGs fails the test unless every screenshot is a PNG of the
// browser's viewport.
func checkPNGs(tb testing.TB, shots map[string][]byte) {
	tb.Helper()
	for name, b := range shots {
		if !bytes.HasPrefix(b, []byte(pngSignature)) {
			tb.Errorf("screenshot %s does not start with the PNG signature", name)
			continue
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(b))
		if err != nil {
			tb.Errorf("screenshot %s: %v", name, err)
			continue
		}
		if name == kisa.ShotAfterExpand {
			if cfg.Width > windowWidth || cfg.Height > maxShotHeight {
				tb.Errorf("screenshot %s is %dx%d, want at most %dx%d", name, cfg.Width, cfg.Height, windowWidth, maxShotHeight)
			}
			continue
		}
		if cfg.Width != windowWidth || cfg.Height != windowHeight {
			tb.Errorf("screenshot %s is %dx%d, want the %dx%d viewport", name, cfg.Width, cfg.Height, windowWidth, windowHeight)
		}
	}
}

// shotNames returns the sorted names of shots, nil when there are none.
func shotNames(shots map[string][]byte) []string {
	var names []string
	for _, n := range allShots {
		if _, ok := shots[n]; ok {
			names = append(names, n)
		}
	}
	if len(names) != len(shots) {
		names = append(names, "(unexpected names)")
	}
	return names
}

// TestVisitOverviewAppear checks that a loaded page which never announces
// an overview ends the wait after OverviewAppear, while an announced one
// still streams in. The job timeout is far below OverviewWait: a visit
// that waited for OverviewWait would fail.
func TestVisitOverviewAppear(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) {
		c.OverviewWait, c.OverviewAppear, c.VisitTimeout = 3*time.Minute, 300*time.Millisecond, time.Minute
	})
	tests := []struct {
		name         string
		path         string
		wantOverview []string
	}{
		{name: "page without overview", path: "/plain"},
		{name: "announced overview streams in", path: "/stream", wantOverview: []string{"STREAM-END"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := p.Visit(t.Context(), VisitRequest{URL: s.url(tt.path)})
			if err != nil {
				t.Fatalf("Visit: %v", err)
			}
			checkOverview(t, res.HTML, tt.wantOverview, "")
		})
	}
}

// TestVisitIdentity checks what the search engine sees of a visit: a
// desktop Chromium user agent (not "HeadlessChrome") and the request's
// language.
func TestVisitIdentity(t *testing.T) {
	s := newSite(t)
	p := newTestPool(t, func(c *Config) { c.OverviewAppear = 200 * time.Millisecond })
	res, err := p.Visit(t.Context(), VisitRequest{URL: s.url("/headers"), Language: "de"})
	if err != nil {
		t.Fatalf("Visit: %v", err)
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(res.HTML))
	if err != nil {
		t.Fatal(err)
	}
	if ua := doc.Find("#ua").Text(); !strings.Contains(ua, "Chrome/") || strings.Contains(ua, "Headless") {
		t.Errorf("user agent = %q, want Chrome without Headless", ua)
	}
	if lang := doc.Find("#lang").Text(); lang != "de" {
		t.Errorf("Accept-Language = %q, want de", lang)
	}
}

// leavePage reports what the tab shows a page of its origin (local and
// session storage, window.name, cookies, history length) in #seen, then
// leaves a value in each for the next page to find.
const leavePage = `<!doctype html><div id="search"><p id="seen"></p></div><script>
document.getElementById("seen").textContent = JSON.stringify({local: localStorage.getItem("k"),
  session: sessionStorage.getItem("k"), name: window.name, cookie: document.cookie, history: history.length});
localStorage.setItem("k", "v"); sessionStorage.setItem("k", "v"); window.name = "v";
document.cookie = "k=v; max-age=3600";
</script>`

// TestVisitReusedTabIsWiped checks that a tab serves the next visit once
// the last one succeeded, and that the next page finds nothing the last
// one left: no storage, cookie or window name, and the history of a new
// tab.
func TestVisitReusedTabIsWiped(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /leave", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		http.SetCookie(w, &http.Cookie{Name: "server", Value: "v", MaxAge: 3600})
		io.WriteString(w, leavePage)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	seen := func(res VisitResult) string {
		t.Helper()
		m := regexp.MustCompile(`<p id="seen">([^<]*)</p>`).FindStringSubmatch(res.HTML)
		if m == nil {
			t.Fatalf("no #seen in the page: %.300s", res.HTML)
		}
		return html.UnescapeString(m[1])
	}
	first, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/leave?q=1"})
	if err != nil {
		t.Fatal(err)
	}
	// The tab is wiped and kept in the background once the visit returned.
	b := p.current()
	testenv.Eventually(t, 10*time.Second, "the tab to be kept after a visit that succeeded", func() bool { return b.idleCount() > 0 })
	second, err := p.Visit(t.Context(), VisitRequest{URL: srv.URL + "/leave?q=2"})
	if err != nil {
		t.Fatal(err)
	}
	if _, opened := second.Steps[StepOpen]; opened {
		t.Error("the second visit opened a tab; want the first one's")
	}
	if got, want := seen(second), seen(first); got != want {
		t.Errorf("a reused tab shows the page %s, want what a new tab shows: %s", got, want)
	}
}

// TestRenderersPerTab checks what a tab costs in processes: one renderer,
// kept from visit to visit. Chromium's own window furniture (the
// omnibox's WebUI popups, preloaded for every new window) would add two
// renderers per tab, about 60 MB of PSS each, that no visit uses.
func TestRenderersPerTab(t *testing.T) {
	s := newSite(t)
	const tabs = 3
	p := newTestPool(t, func(c *Config) { c.Tabs = tabs })
	visits := func() {
		var wg sync.WaitGroup
		for range tabs {
			wg.Go(func() { visitOK(t, p, s.url("/fast")) })
		}
		wg.Wait()
	}
	visits()
	b := p.current()
	testenv.Eventually(t, 10*time.Second, "the tabs to be kept", func() bool { return b.idleCount() == tabs })
	before := renderers(t, b.pid)
	// The browser's first page (about:blank, from its start) has one too.
	if len(before) > tabs+1 {
		t.Errorf("%d renderer processes for %d tabs, want at most %d", len(before), tabs, tabs+1)
	}
	exec := cdp.WithExecutor(t.Context(), chromedp.FromContext(b.ctx).Browser)
	targets, err := target.GetTargets().Do(exec)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type != "page" {
			t.Errorf("target %s %s: want only the tabs' pages", tg.Type, tg.URL)
		}
	}
	visits()
	if after := renderers(t, b.pid); !slices.Equal(after, before) {
		t.Errorf("renderer processes %v after more visits, want the same as before (%v)", after, before)
	}
}

// renderers returns the pids of root's renderer processes, sorted.
func renderers(tb testing.TB, root int) []int {
	tb.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatal(err)
	}
	parent := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	under := func(pid int) bool {
		for ; pid > 1; pid = parent[pid] {
			if pid == root {
				return true
			}
		}
		return false
	}
	var out []int
	for pid := range parent {
		cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		// Chromium rewrites its helpers' command lines; the renderer's
		// client id stays in them.
		if err == nil && under(pid) && bytes.Contains(cmd, []byte("--renderer-client-id=")) {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// TestVisitReusedTabIsCollected checks that wiping a tab collects what
// the last page left in the renderer's JavaScript heap: an idle tab
// should not carry a page's garbage into the next visit.
func TestVisitReusedTabIsCollected(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// About 80 MB of arrays, held by the page until it goes.
		io.WriteString(w, `<!doctype html><p>big</p><script>window.keep = [];
for (let i = 0; i < 80; i++) window.keep.push(new Array(128 * 1024).fill(i + 0.5));</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	p := newTestPool(t, func(c *Config) { c.Tabs = 1 })
	visitOK(t, p, srv.URL+"/big")
	b := p.current()
	testenv.Eventually(t, 10*time.Second, "the tab to be kept", func() bool { return b.idleCount() > 0 })
	tb := b.takeIdle(t.Context(), b.idle[0].key)
	defer b.endWipe(tb.key, tb, 1, testLogger(t))
	var used float64
	err := chromedp.Run(tb.life, chromedp.ActionFunc(func(ctx context.Context) (err error) {
		used, _, _, _, err = runtime.GetHeapUsage().Do(ctx)
		return err
	}))
	if err != nil {
		t.Fatal(err)
	}
	if used > 20<<20 {
		t.Errorf("the idle tab's renderer holds %.0f MB of JavaScript heap, want the last page's 80 MB collected", used/(1<<20))
	}
}
