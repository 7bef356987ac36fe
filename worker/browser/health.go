package browser

import (
	"errors"
	"fmt"

	"github.com/kisa-dev/kisa"
)

// Ready returns nil when the pool has a running browser that takes
// visits (or is about to recycle it), and an error saying why not
// otherwise: not started, closed, relaunching or failing to relaunch. It
// is cheap (no call to Chromium), for readiness probes.
func (p *Pool) Ready() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closed:
		return fmt.Errorf("%w: pool closed", kisa.Unavailable)
	case !p.started:
		return errors.New("browser: pool not started")
	case p.cur == nil && p.launchErr != nil:
		return fmt.Errorf("%w: relaunch chromium: %w", kisa.Unavailable, p.launchErr)
	case p.cur == nil || p.cur.ctx.Err() != nil:
		return fmt.Errorf("%w: chromium is restarting", kisa.Unavailable)
	}
	return nil
}

// Stats are the pool's counters for metrics.
type Stats struct {
	Launches int64 // browsers launched since the pool started (restarts are Launches-1)
	BusyTabs int   // visits running now
	Tabs     int   // Config.Tabs
}

// Stats returns the pool's counters.
func (p *Pool) Stats() Stats {
	return Stats{Launches: p.launches.Load(), BusyTabs: len(p.tabs), Tabs: p.cfg.Tabs}
}
