package browser

import (
	"context"
	"errors"
	"fmt"
	"html"
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// offline keeps the tests' Chromium off the network: no host name
// resolves, so only the loopback test servers can be reached, whatever
// the pages (like the captured real one) link to.
var offline = []chromedp.ExecAllocatorOption{
	chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"),
}

// testConfig is the pool configuration of the tests: short waits, so that
// the package's tests stay quick, but with room for a busy machine (under
// -race and a load of many times the cores, reading the 2.4 MB captured
// page alone has taken over 20 s).
func testConfig(tb testing.TB) Config {
	tb.Helper()
	return Config{
		ExecPath:     os.Getenv("KISA_CHROME_PATH"),
		Tabs:         2,
		VisitTimeout: 90 * time.Second,
		SettleQuiet:  500 * time.Millisecond,
		OverviewWait: 2 * time.Second,
		SearchURL:    "http://127.0.0.1/search",
		Logger:       testLogger(tb),
	}
}

// newTestPool starts a pool with testConfig changed by edit, in a private
// TMPDIR (to see its profile dirs), and closes it when the test ends. A
// missing Chromium fails the test with how to install it.
func newTestPool(tb testing.TB, edit func(*Config)) *Pool {
	tb.Helper()
	if t, ok := tb.(*testing.T); ok {
		t.Setenv("TMPDIR", t.TempDir())
	}
	cfg := testConfig(tb)
	if edit != nil {
		edit(&cfg)
	}
	p, err := NewPool(cfg)
	if err != nil {
		tb.Fatalf("NewPool: %v (Chromium is needed: `apt-get install chromium`, or set KISA_CHROME_PATH)", err)
	}
	p.extraFlags = offline
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		tb.Fatalf("Start: %v (Chromium is needed: `apt-get install chromium`, or set KISA_CHROME_PATH)", err)
	}
	tb.Cleanup(func() {
		if err := p.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return p
}

// testLogger logs to the test's log until the test ends.
func testLogger(tb testing.TB) *slog.Logger {
	tb.Helper()
	w := &tbWriter{tb: tb}
	tb.Cleanup(w.stop)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// tbWriter writes to tb.Log, and nowhere once the test has ended (logging
// after the end of a test panics).
type tbWriter struct {
	mu      sync.Mutex
	tb      testing.TB
	stopped bool
}

func (w *tbWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.tb.Log(strings.TrimRight(string(b), "\n"))
	}
	return len(b), nil
}

func (w *tbWriter) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
}

// site is the fake search engine of the tests, on 127.0.0.1.
type site struct {
	*httptest.Server
	consentViews atomic.Int64  // consent pages served
	rejects      atomic.Int64  // consent forms saved with set_eom=true
	hangs        chan struct{} // receives when /hang is requested
	arrivals     atomic.Int64  // /barrier requests seen
	active       atomic.Int64  // /barrier requests running
	maxActive    atomic.Int64  // most /barrier requests running at once
	pair         chan struct{} // closed once the first two /barrier requests are in
	quit         chan struct{} // closed when the test ends

	mu       sync.Mutex
	problems []error // found by handlers; reported by the test once the server is closed
}

// newSite serves the pages of testdata/ and the flows the tests need.
func newSite(tb testing.TB) *site {
	tb.Helper()
	s := &site{hangs: make(chan struct{}, 16), pair: make(chan struct{}), quit: make(chan struct{})}
	mux := http.NewServeMux()
	for _, name := range []string{"stream", "collapsed", "plain", "fast", "sorry", "captchaform"} {
		mux.HandleFunc("GET /"+name, s.file(tb, name+".html"))
	}
	mux.HandleFunc("GET /sorry/index", s.file(tb, "sorry.html"))
	mux.HandleFunc("GET /blocked", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/sorry/index?continue="+url.QueryEscape(r.URL.String()), http.StatusFound)
	})
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("GET /consent", s.consent())
	mux.HandleFunc("POST /save", s.save)
	mux.HandleFunc("GET /hang", s.hang)
	mux.HandleFunc("GET /barrier", s.barrier(tb))
	mux.HandleFunc("GET /headers", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><p id=ua>%s</p><p id=lang>%s</p>",
			html.EscapeString(r.UserAgent()), html.EscapeString(r.Header.Get("Accept-Language")))
	})
	s.Server = httptest.NewServer(mux)
	tb.Cleanup(func() {
		close(s.quit)
		s.Close() // waits for the handlers
		for _, err := range s.problems {
			tb.Error(err)
		}
	})
	return s
}

// fail records a problem found by a handler, which runs on a goroutine of
// the server: the test reports it once the server is closed.
func (s *site) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.problems = append(s.problems, err)
}

// url returns the absolute URL of path on the site.
func (s *site) url(path string) string { return s.URL + path }

// file serves testdata/name.
func (s *site) file(tb testing.TB, name string) http.HandlerFunc {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
	}
}

// search is a results page behind the consent page: without the SOCS
// cookie it redirects there, like the real one does in the EU.
func (s *site) search(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie("SOCS")
	if err != nil {
		http.Redirect(w, r, "/consent?continue="+url.QueryEscape(r.URL.String()), http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><html><body><div id="search"><p>RESULTS for %s with SOCS=%s</p></div></body></html>`,
		template.HTMLEscapeString(r.URL.Query().Get("q")), template.HTMLEscapeString(c.Value))
}

// consent serves the consent page with its accept and reject forms.
func (s *site) consent() http.HandlerFunc {
	page := template.Must(template.ParseFiles(filepath.Join("testdata", "consent.html")))
	return func(w http.ResponseWriter, r *http.Request) {
		s.consentViews.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := page.Execute(w, struct{ Continue string }{r.URL.Query().Get("continue")}); err != nil {
			s.fail(fmt.Errorf("consent page: %w", err))
		}
	}
}

// save stores the consent choice in the SOCS cookie and goes back.
func (s *site) save(w http.ResponseWriter, r *http.Request) {
	choice := "accept"
	if r.PostFormValue("set_eom") == "true" {
		choice = "reject"
		s.rejects.Add(1)
	}
	http.SetCookie(w, &http.Cookie{Name: "SOCS", Value: choice, Path: "/", MaxAge: 3600})
	next := r.PostFormValue("continue")
	if !strings.HasPrefix(next, "/") {
		next = "/"
	}
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// hang never answers: it holds the request until the browser drops it or
// the test ends.
func (s *site) hang(w http.ResponseWriter, r *http.Request) {
	s.hangs <- struct{}{}
	select {
	case <-r.Context().Done():
	case <-s.quit:
	}
}

// startHang starts a visit of /hang with ctx and returns once the page is
// being requested: the visit then holds its tab until ctx ends or the
// browser dies. The visit's error arrives on the returned channel. It
// fails the test when the visit ends before, or /hang is not requested
// within 30s.
func (s *site) startHang(tb testing.TB, ctx context.Context, p *Pool) <-chan error {
	tb.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := p.Visit(ctx, VisitRequest{URL: s.url("/hang")})
		done <- err
	}()
	select {
	case <-s.hangs:
	case err := <-done:
		tb.Fatalf("visit of /hang ended before requesting it: %v", err)
	case <-time.After(30 * time.Second):
		tb.Fatal("/hang was not requested within 30s")
	}
	return done
}

// barrier serves the fast page, holding each of the first two requests
// until both are in, and records how many requests run at once.
func (s *site) barrier(tb testing.TB) http.HandlerFunc {
	page := s.file(tb, "fast.html")
	return func(w http.ResponseWriter, r *http.Request) {
		n := s.active.Add(1)
		defer s.active.Add(-1)
		for m := s.maxActive.Load(); n > m && !s.maxActive.CompareAndSwap(m, n); m = s.maxActive.Load() {
		}
		switch s.arrivals.Add(1) {
		case 2:
			close(s.pair)
		case 1:
			select {
			case <-s.pair:
			case <-time.After(15 * time.Second):
				s.fail(errors.New("the second visit never came while the first was loading: visits do not run in parallel"))
			}
		}
		page(w, r)
	}
}

// current is the browser taking visits now, or nil.
func (p *Pool) current() *chromium {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cur
}

// idleCount is how many wiped tabs b keeps for the next visits.
func (b *chromium) idleCount() int {
	b.idleMu.Lock()
	defer b.idleMu.Unlock()
	return len(b.idle)
}
