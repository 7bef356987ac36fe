package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

const (
	// profilePrefix names the browser's temporary profile directories.
	profilePrefix = "kisa-chromium-"
	// profileEnv is set in Chromium's environment to the profile directory,
	// so that its processes (also crashpad's, whose command line does not
	// name the profile) can be told apart from other browsers'.
	profileEnv = "KISA_CHROMIUM_PROFILE"
	// windowWidth and windowHeight are the browser window, and so the
	// viewport that screenshots capture.
	windowWidth, windowHeight = 1366, 900
	// closeGrace bounds a graceful Browser.close before Chromium is killed.
	closeGrace = 5 * time.Second
	// minBackoff and maxBackoff bound the wait before relaunching a
	// browser that died or failed to launch; it doubles on each failure.
	minBackoff, maxBackoff = 200 * time.Millisecond, 10 * time.Second
	// reapEvery is how often orphans are reaped when running as PID 1.
	reapEvery = 10 * time.Second
	// finalReap bounds how long Close waits for orphans to exit as PID 1.
	finalReap = 3 * time.Second
	// removeTries and removePause pace the removal of a profile directory
	// that killed helpers may still be writing into.
	removeTries, removePause = 20, 50 * time.Millisecond
)

// chromium is one running Chromium process and the accounting of the
// visits in it. The fields after drained are guarded by Pool.mu.
type chromium struct {
	ctx        context.Context // the browser's chromedp context; done once Chromium is gone
	closeCtx   func()          // cancels ctx, kills Chromium and waits for it; idempotent
	closeAlloc func()          // cancels the allocator and waits for its goroutines
	dir        string          // the profile directory, removed by destroy
	pid        int
	userAgent  string        // Chromium's own user agent without "Headless"
	version    string        // Chromium's full version, e.g. "156.0.8078.108"
	drained    chan struct{} // closed when a draining browser has no visits left

	idleMu      sync.Mutex
	idle        []*tab         // wiped tabs waiting for a visit (reuse.go)
	wiping      map[string]int // tabs being wiped, by key
	idleChanged chan struct{}  // closed and replaced when a wipe ends

	visits   int  // visits started
	running  int  // visits running
	served   int  // visits that succeeded
	draining bool // takes no more visits; recycled once running is 0
}

// findChromium resolves path, or the usual Chromium names when it is empty,
// to an executable. It returns an error saying how to install Chromium.
func findChromium(path string) (string, error) {
	names := []string{"chromium", "chromium-browser", "google-chrome", "chrome", "google-chrome-stable"}
	if path != "" {
		names = []string{path}
	}
	for _, name := range names {
		if full, err := exec.LookPath(name); err == nil {
			return full, nil
		}
	}
	return "", fmt.Errorf("browser: no Chromium found (tried %q); install it with `apt-get install chromium` or set its path", names)
}

// launch starts a Chromium with its own profile directory and connects to
// it. ctx aborts the launch only; the browser's own context has no
// deadline, since a deadline on the first chromedp.Run kills the browser
// when it passes. It returns an error when Chromium does not start.
func (p *Pool) launch(ctx context.Context) (*chromium, error) {
	dir, err := os.MkdirTemp("", profilePrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("make profile dir: %w", err)
	}
	if err := writeLocalState(dir); err != nil {
		removeProfile(dir)
		return nil, err
	}
	allocCtx, closeAlloc := chromedp.NewExecAllocator(context.Background(), p.allocatorOptions(dir)...)
	bctx, cancel := chromedp.NewContext(allocCtx,
		chromedp.WithLogf(p.cdpLogf(slog.LevelDebug)),
		chromedp.WithErrorf(p.cdpLogf(slog.LevelWarn)))
	b := &chromium{ctx: bctx, closeCtx: sync.OnceFunc(cancel), closeAlloc: closeAlloc, dir: dir, drained: make(chan struct{})}
	if err := b.allocate(ctx); err != nil {
		b.destroy()
		return nil, err
	}
	n := p.launches.Add(1)
	p.log.Info("chromium launched", "pid", b.pid, "launches", n)
	return b, nil
}

// localState is the browser's "Local State" file, written into a new
// profile before Chromium starts: Energy Saver is on (the
// "performance_tuning.battery_saver_mode.state" pref at 3, "on"), as a
// person can set it in chrome://settings/performance. Chromium then sends
// every page its frames at 30 per second instead of 60: a page that
// animates while its answer streams (a loading shimmer) costs half as
// much to draw while a visit waits (about 0.28 CPU-s a second at 60
// frames, 0.15 at 30, on a 2-core machine; bench/README.md). A page sees
// requestAnimationFrame at 30 per second, as in any Chrome with Energy
// Saver on (by default every laptop's on battery at 20% or lower); it
// stays visible and in the foreground.
const localState = `{"performance_tuning":{"battery_saver_mode":{"state":3}}}`

// writeLocalState writes localState into the profile dir. It returns an
// error when the file cannot be written.
func writeLocalState(dir string) error {
	if err := os.WriteFile(filepath.Join(dir, "Local State"), []byte(localState), 0o600); err != nil {
		return fmt.Errorf("write chromium's local state: %w", err)
	}
	return nil
}

// allocate runs chromedp's first Run on the browser context, which starts
// Chromium, and records its pid. It returns an error when Chromium does
// not start or ctx ends first.
func (b *chromium) allocate(ctx context.Context) error {
	stop := context.AfterFunc(ctx, b.closeCtx)
	err := chromedp.Run(b.ctx)
	if !stop() && err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return err
	}
	proc := chromedp.FromContext(b.ctx).Browser.Process()
	if proc == nil {
		return errors.New("chromium started without a process")
	}
	b.pid = proc.Pid
	_, product, _, ua, _, err := cdpbrowser.GetVersion().Do(cdp.WithExecutor(ctx, chromedp.FromContext(b.ctx).Browser))
	if err != nil {
		return fmt.Errorf("read chromium's version: %w", err)
	}
	b.userAgent = strings.Replace(ua, "HeadlessChrome/", "Chrome/", 1)
	_, b.version, _ = strings.Cut(product, "/")
	return nil
}

// allocatorOptions are Chromium's flags: headless, no background traffic,
// a fixed window, the profile dir, no sandbox, and nothing that tells
// pages the browser is automated (navigator.webdriver is false without
// the AutomationControlled feature; see presence.go for the rest). With
// RenderDocument off, a tab's window keeps its real outer size (with it,
// window.outerWidth and outerHeight read 0 in some tabs). Chromium sandboxes its
// renderers with a setuid helper (chrome-sandbox), which Debian's chromium
// package does not ship, or else with unprivileged user namespaces, which
// Docker's default seccomp profile refuses (clone and unshare with
// CLONE_NEWUSER need CAP_SYS_ADMIN there). So in the image, where the
// worker runs as the non-root user kisa (see the Dockerfile), Chromium
// cannot sandbox itself, and the container is the boundary. (Run as root,
// as on a test machine, Chromium does not start at all without
// --no-sandbox.)
func (p *Pool) allocatorOptions(dir string) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(p.execPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.WindowSize(windowWidth, windowHeight),
		chromedp.UserDataDir(dir),
		chromedp.Env(profileEnv + "=" + dir),
		chromedp.ModifyCmdFunc(ownProcessGroup),
	}
	for _, flag := range []string{
		"disable-gpu", "disable-background-networking", "disable-component-update",
		"disable-sync", "disable-quic", "dns-prefetch-disable", "disable-dev-shm-usage", "disable-extensions",
		"disable-default-apps", "disable-breakpad", "disable-background-timer-throttling",
		"disable-backgrounding-occluded-windows", "disable-renderer-backgrounding",
		"use-mock-keychain",
	} {
		opts = append(opts, chromedp.Flag(flag, true))
	}
	opts = append(opts, chromedp.Flag("password-store", "basic"),
		// The browser's own calls home (form autofill, hints, translation)
		// would leave through a visit's proxy, outside the tab's guard.
		// A reused tab keeps its renderer process from visit to visit:
		// without the back-forward cache, the browsing-instance swap on
		// browser-initiated navigations and the spare renderer, Chromium
		// starts no new process for the next visit of the same site (most
		// of a visit's CPU was starting and ending renderers).
		// Every new window (a tab has one) would also get the omnibox's
		// WebUI popups, preloaded in renderers of their own (about 60 MB
		// of PSS each, Chromium 156) that no page can see or use.
		chromedp.Flag("disable-features", "AutofillServerCommunication,OptimizationHints,Translate,MediaRouter,RenderDocument,"+
			"BackForwardCache,ProactivelySwapBrowsingInstance,SpareRendererForSitePerProcess,"+
			"WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI"),
		chromedp.Flag("disable-blink-features", "AutomationControlled"))
	if p.cfg.HostResolverRules != "" {
		opts = append(opts, chromedp.Flag("host-resolver-rules", p.cfg.HostResolverRules))
	}
	return append(opts, p.extraFlags...)
}

// ownProcessGroup starts Chromium in a process group of its own, so that
// its helpers can be killed with it, and kills it when the worker dies
// (what chromedp does by default, which ModifyCmdFunc replaces).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// cdpLogf adapts chromedp's printf-style logging to the pool's logger.
func (p *Pool) cdpLogf(level slog.Level) func(string, ...any) {
	return func(format string, args ...any) {
		p.log.Log(context.Background(), level, "chromedp: "+fmt.Sprintf(format, args...))
	}
}

// shutdown closes b gracefully when it is still alive, then destroys it.
// It returns an error when the profile directory could not be removed.
func (p *Pool) shutdown(b *chromium) error {
	if b.ctx.Err() == nil {
		ctx, cancel := context.WithTimeout(b.ctx, closeGrace)
		if err := chromedp.Cancel(ctx); err != nil {
			p.log.Debug("graceful chromium close failed; killing it", "pid", b.pid, "err", err)
		}
		cancel()
	}
	err := b.destroy()
	reapOrphans()
	return err
}

// destroy kills Chromium if it still runs, waits for it (chromedp's
// allocator reaps the main process), kills its helpers and removes the
// profile directory. It returns an error when the directory could not be
// removed.
func (b *chromium) destroy() error {
	b.closeCtx()
	b.closeAlloc()
	if b.pid > 0 {
		// The helpers (zygotes, renderers, GPU and network processes) of a
		// browser that crashed or was killed live on for a moment and keep
		// writing into the profile. They are in its process group; the
		// group's id stays reserved while any of them exists.
		syscall.Kill(-b.pid, syscall.SIGKILL)
	}
	return removeProfile(b.dir)
}

// removeProfile removes dir, retrying for a moment while helpers that were
// just killed may still be writing into it. It returns the last error.
func removeProfile(dir string) error {
	var err error
	for range removeTries {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(removePause)
	}
	return fmt.Errorf("remove chromium profile: %w", err)
}

// sweepProfiles removes the profile dirs under tmp whose worker has died
// without cleaning up (a SIGKILL, a crash). A profile dir is named
// profilePrefix + the pid of the worker that made it + "-" + a random
// suffix; the name, unlike a file inside, survives a removal that fails
// halfway because the dead browser's helpers still write into the dir, so
// the next sweep tries again. Dirs of live workers, and dirs whose name
// holds no pid, are kept. It returns how many it removed.
func sweepProfiles(tmp string) int {
	dirs, _ := filepath.Glob(filepath.Join(tmp, profilePrefix+"*"))
	removed := 0
	for _, dir := range dirs {
		owner, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(dir), profilePrefix), "-")
		pid, err := strconv.Atoi(owner)
		if !ok || err != nil || pid <= 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		if removeProfile(dir) == nil {
			removed++
		}
	}
	return removed
}

// reapOrphans reaps exited children without blocking, but only when this
// process is PID 1 (a container started without an init; the image's
// entrypoint is tini, which reaps them itself): Chromium's helpers are
// then reparented to us. Elsewhere it does nothing, so as not to steal exit
// statuses from exec.Cmd. It returns how many it reaped and whether no
// child at all is left.
func reapOrphans() (reaped int, none bool) {
	if os.Getpid() != 1 {
		return 0, false
	}
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return reaped, true
		case err != nil || pid <= 0:
			return reaped, false
		}
		reaped++
	}
}

// reapAll keeps reaping, as PID 1, until no child is left or finalReap
// passes; Chromium's helpers exit shortly after the browser.
func reapAll() {
	if os.Getpid() != 1 {
		return
	}
	deadline := time.Now().Add(finalReap)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, none := reapOrphans(); none || time.Now().After(deadline) {
			return
		}
		<-tick.C
	}
}
