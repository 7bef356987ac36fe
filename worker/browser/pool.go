// Package browser drives the headless Chromium of the worker: one browser
// process per Pool, one fresh incognito tab per page visit. A visit opens
// a results page, passes the consent interstitial, waits for the AI
// overview to finish streaming, expands it, and returns the page's HTML
// and PNG screenshots. What the page looks like comes from package serp:
// every in-page check is serp's page.js, given serp's selectors.
//
// Read it top-down: pool.go (the Pool, its tabs and the Visit entry),
// visit.go (one page visit from start to the result), tab.go (the
// incognito tab a visit runs in: cookies, identity), chromium.go (one
// Chromium process: launch, kill, profile dirs, reaping) and supervise.go
// (relaunching a dead browser, recycling a worn one).
package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/kisa-dev/kisa"
)

// Config is what a Pool needs. It is filled in by package config; Validate
// names the first bad setting.
type Config struct {
	// ExecPath is the Chromium binary; empty means the first of chromium,
	// chromium-browser and google-chrome found on PATH.
	ExecPath string
	// Tabs is how many visits (tabs) run at once in the browser.
	Tabs int
	// RecycleAfter restarts the browser after this many visits; 0 = never.
	RecycleAfter int
	// VisitTimeout bounds one visit; it is put on the visit's tab.
	VisitTimeout time.Duration
	// SettleQuiet is how long an answer's text must stay unchanged to
	// count as finished on a page that shows no sign of its end (e.g.
	// 700ms); never while the page shows it still being made.
	SettleQuiet time.Duration
	// OverviewWait bounds each wait for the overview or an AI Mode answer
	// to finish (e.g. 20s): one the page has not said is finished by then
	// is read as it stands, not settled.
	OverviewWait time.Duration
	// OverviewAppear is how long a loaded page may go without announcing
	// an overview (its block or hidden heading) before the visit concludes
	// that it has none; zero means OverviewWait. An announced overview
	// still gets OverviewWait to finish streaming.
	OverviewAppear time.Duration
	// AnswerWait bounds the wait for each answer of an AI assistant
	// (ModeAssistant; KISA_ASSISTANT_WAIT); 0 uses OverviewWait.
	AnswerWait time.Duration
	// SearchURL is the results page the visits open (KISA_SEARCH_URL).
	// Tabs navigate only to its host and its consent host ("consent." and
	// the host without "www."), and reach loopback, private or link-local
	// addresses only when its host is one. Empty: each visit's own URL
	// stands for it.
	SearchURL string
	// AllowHosts are the domains, with their subdomains, that a page may
	// load subresources and frames from besides the search and consent
	// hosts (KISA_BROWSER_ALLOW_HOSTS); nil allows none.
	AllowHosts []string
	// HostResolverRules, when set, is Chromium's --host-resolver-rules;
	// tests use it to keep the browser off the network.
	HostResolverRules string
	// OnBlocked, when set, is told the kind of every request, navigation
	// (Document) or popup (Popup) that the containment stopped; a metric
	// counts them. It must not block.
	OnBlocked func(kind string)
	// Logger receives the pool's logs; nil discards them.
	Logger *slog.Logger
}

// Validate returns an error naming the first setting that is out of range.
func (c Config) Validate() error {
	switch {
	case c.Tabs < 1:
		return fmt.Errorf("browser: Tabs must be at least 1, got %d", c.Tabs)
	case c.RecycleAfter < 0:
		return fmt.Errorf("browser: RecycleAfter must not be negative, got %d", c.RecycleAfter)
	case c.VisitTimeout <= 0:
		return fmt.Errorf("browser: VisitTimeout must be positive, got %s", c.VisitTimeout)
	case c.SettleQuiet <= 0:
		return fmt.Errorf("browser: SettleQuiet must be positive, got %s", c.SettleQuiet)
	case c.OverviewAppear < 0 || c.OverviewAppear > c.OverviewWait:
		return fmt.Errorf("browser: OverviewAppear (%s) must be between 0 and OverviewWait (%s)", c.OverviewAppear, c.OverviewWait)
	case c.SearchURL != "" && !validSearchURL(c.SearchURL):
		return fmt.Errorf("browser: SearchURL must be an http(s) URL")
	case c.OverviewWait <= c.SettleQuiet:
		return fmt.Errorf("browser: OverviewWait (%s) must be longer than SettleQuiet (%s)", c.OverviewWait, c.SettleQuiet)
	}
	return nil
}

// Pool is one Chromium process shared by up to Config.Tabs concurrent
// visits. It relaunches the browser when it dies and recycles it after
// Config.RecycleAfter visits. Create it with NewPool, then Start; Close it
// when done. Its methods are safe for concurrent use.
type Pool struct {
	cfg      Config
	execPath string
	log      *slog.Logger
	tabs     chan struct{} // one token per running visit
	policy   policy        // where tabs may go

	// extraFlags are added to Chromium's flags; tests use them to keep the
	// browser off the network.
	extraFlags []chromedp.ExecAllocatorOption

	// life is cancelled by Close; it aborts launches and backoff waits.
	life context.Context
	stop context.CancelFunc

	mu        sync.Mutex
	cur       *chromium     // the browser taking visits; nil while (re)launching
	ready     chan struct{} // closed and replaced whenever cur changes or the pool closes
	launchErr error         // why the last relaunch failed, while cur is nil
	started   bool
	closed    bool
	done      chan struct{} // closed when the supervisor has shut the browser down
	closeErr  error         // from the final shutdown, set before done is closed

	jarMu sync.Mutex
	jar   []*network.CookieParam // consent cookies set in every new tab

	launches atomic.Int64 // browsers launched, for logs and tests
	consents atomic.Int64 // consent pages passed
	blocked  atomic.Int64 // requests, navigations and popups stopped
}

// NewPool checks cfg and finds the Chromium binary; it starts nothing. It
// returns an error when a setting is out of range or no Chromium is found.
func NewPool(cfg Config) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	path, err := findChromium(cfg.ExecPath)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	life, stop := context.WithCancel(context.Background())
	return &Pool{
		policy:   newPolicy(cfg.SearchURL, cfg.AllowHosts),
		cfg:      cfg,
		execPath: path,
		log:      log.With("component", "browser"),
		tabs:     make(chan struct{}, cfg.Tabs),
		life:     life,
		stop:     stop,
		ready:    make(chan struct{}),
		done:     make(chan struct{}),
	}, nil
}

// Start launches the browser and its supervisor. ctx bounds the launch
// only (so does Close): the browser then runs until Close. It returns an
// error wrapping kisa.Unavailable when Chromium does not start, and an error
// when the pool was already started or closed.
func (p *Pool) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.started || p.closed {
		p.mu.Unlock()
		return errors.New("browser: pool already started or closed")
	}
	p.started = true
	p.mu.Unlock()

	if n := sweepProfiles(os.TempDir()); n > 0 {
		p.log.Info("removed profile dirs of dead workers", "count", n)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(p.life, cancel)()
	b, err := p.launch(ctx)
	if err != nil {
		p.startFailed()
		return fmt.Errorf("%w: launch chromium: %w", kisa.Unavailable, err)
	}
	p.setCurrent(b)
	go p.supervise(b)
	return nil
}

// startFailed undoes Start's claim, so that Start may be tried again, and
// releases a Close that is waiting meanwhile.
func (p *Pool) startFailed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = false
	if p.closed {
		close(p.done)
	}
}

// Close stops taking visits, kills the browser (visits still running fail
// with kisa.Unavailable), removes its profile directory and reaps its
// processes. It returns an error when the profile could not be removed.
// Calling it again does nothing.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	started := p.started
	p.wakeLocked()
	p.mu.Unlock()

	p.stop()
	if !started {
		return nil
	}
	<-p.done
	return p.closeErr
}

// Visit opens req.URL in a fresh incognito tab of the pool's browser,
// waiting for a free tab first. It passes the consent page, waits (at most
// Config.OverviewWait) for the AI overview to finish streaming, expands it
// and returns the page. A page without overview is a normal result.
//
// It returns an error wrapping kisa.Blocked on the CAPTCHA page, one
// wrapping kisa.Unavailable when the browser died or the page failed to
// load, one wrapping kisa.TimedOut when Config.VisitTimeout passed, one
// wrapping ctx's error when ctx ended, and a plain error for a malformed
// URL or anything else.
func (p *Pool) Visit(ctx context.Context, req VisitRequest) (VisitResult, error) {
	if err := checkURL(req.URL); err != nil {
		return VisitResult{}, err
	}
	if err := p.takeTab(ctx); err != nil {
		return VisitResult{}, fmt.Errorf("browser: wait for a free tab: %w", err)
	}
	defer p.freeTab()
	res, retry, err := p.attempt(ctx, req)
	if retry {
		p.log.Info("chromium died before the tab opened; retrying on the next one", "url", redact(req.URL))
		res, _, err = p.attempt(ctx, req)
	}
	return res, err
}

// attempt visits req in the current browser. retry says that the browser
// died before the tab could be opened, so that nothing of the visit
// happened yet.
func (p *Pool) attempt(ctx context.Context, req VisitRequest) (res VisitResult, retry bool, err error) {
	b, err := p.acquire(ctx)
	if err != nil {
		return VisitResult{}, false, fmt.Errorf("browser: wait for chromium: %w", err)
	}
	res, err = p.newVisit(b, req).run(ctx)
	p.release(b, err == nil)
	retry = errors.Is(err, errTabNotOpened) && b.ctx.Err() != nil && ctx.Err() == nil
	return res, retry, err
}

// takeTab waits for one of the Tabs tokens. It returns ctx's error when
// ctx ends first.
func (p *Pool) takeTab(ctx context.Context) error {
	select {
	case p.tabs <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// freeTab gives a token taken by takeTab back.
func (p *Pool) freeTab() { <-p.tabs }

// acquire returns the browser to run one visit in, counting the visit
// against it; it waits while the browser is being (re)launched or
// recycled. It returns ctx's error when ctx ends first, and an error
// wrapping kisa.Unavailable when the pool is closed or the last relaunch
// failed.
func (p *Pool) acquire(ctx context.Context) (*chromium, error) {
	for {
		p.mu.Lock()
		b, wait, err := p.pickLocked()
		p.mu.Unlock()
		if b != nil || err != nil {
			return b, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wait:
		}
	}
}

// pickLocked returns the current browser when it takes visits, else the
// channel to wait on or the error to give up with. p.mu must be held.
func (p *Pool) pickLocked() (*chromium, <-chan struct{}, error) {
	b := p.cur
	switch {
	case p.closed:
		return nil, nil, fmt.Errorf("%w: pool closed", kisa.Unavailable)
	case !p.started:
		return nil, nil, errors.New("browser: pool not started")
	case b == nil && p.launchErr != nil:
		return nil, nil, fmt.Errorf("%w: relaunch chromium: %w", kisa.Unavailable, p.launchErr)
	case b == nil || b.draining || b.ctx.Err() != nil:
		return nil, p.ready, nil
	}
	b.visits++
	b.running++
	if p.cfg.RecycleAfter > 0 && b.visits >= p.cfg.RecycleAfter {
		b.draining = true
	}
	return b, nil, nil
}

// release ends one visit in b; ok says whether it succeeded. The last
// visit of a draining browser tells the supervisor to recycle it.
func (p *Pool) release(b *chromium, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b.running--
	if ok {
		b.served++
	}
	if b.draining && b.running == 0 {
		close(b.drained)
	}
}

// setCurrent makes b the browser that takes visits and wakes the waiters.
func (p *Pool) setCurrent(b *chromium) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur = b
	p.launchErr = nil
	p.wakeLocked()
}

// wakeLocked wakes every caller waiting for a browser. p.mu must be held.
func (p *Pool) wakeLocked() {
	close(p.ready)
	p.ready = make(chan struct{})
}
