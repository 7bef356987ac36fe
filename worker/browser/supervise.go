package browser

import "time"

// supervise owns the browser's life after Start: it relaunches it with
// backoff when it dies, recycles it once drained, reaps orphans as PID 1,
// and shuts it down when the pool closes.
func (p *Pool) supervise(b *chromium) {
	defer close(p.done)
	defer reapAll()
	reap := time.NewTicker(reapEvery)
	defer reap.Stop()
	backoff := minBackoff
	for b != nil {
		select {
		case <-p.life.Done():
			p.closeErr = p.shutdown(b)
			return
		case <-reap.C:
			reapOrphans()
		case <-b.drained:
			b = p.recycle(b)
		case <-b.ctx.Done():
			b, backoff = p.recover(b, backoff)
		}
	}
}

// recycle replaces a drained browser with a new one. It returns nil when
// the pool closed meanwhile.
func (p *Pool) recycle(b *chromium) *chromium {
	p.log.Info("recycling chromium", "pid", b.pid, "served", p.served(b))
	p.detach(b)
	if err := p.shutdown(b); err != nil {
		p.log.Warn("chromium shutdown", "err", err)
	}
	return p.relaunch(0)
}

// recover replaces a browser that died on its own. The wait before the
// relaunch doubles on each death of a browser that served no visit, and
// starts over after one that did. It returns the new browser (nil when the
// pool closed) and the next backoff.
func (p *Pool) recover(b *chromium, backoff time.Duration) (*chromium, time.Duration) {
	if p.served(b) > 0 {
		backoff = minBackoff
	}
	p.log.Warn("chromium died; relaunching", "pid", b.pid, "backoff", backoff)
	p.detach(b)
	if err := p.shutdown(b); err != nil {
		p.log.Warn("chromium cleanup", "err", err)
	}
	return p.relaunch(backoff), min(2*backoff, maxBackoff)
}

// relaunch launches a browser after waiting delay, retrying with a
// doubling delay until it succeeds or the pool closes (then it returns
// nil). Callers waiting meanwhile are told about a failed attempt.
func (p *Pool) relaunch(delay time.Duration) *chromium {
	for p.life.Err() == nil {
		timer := time.NewTimer(delay)
		select {
		case <-p.life.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		}
		b, err := p.launch(p.life)
		if err == nil {
			p.setCurrent(b)
			return b
		}
		if p.life.Err() != nil {
			return nil
		}
		delay = min(max(2*delay, minBackoff), maxBackoff)
		p.log.Error("chromium relaunch failed", "err", err, "retryIn", delay)
		p.setLaunchErr(err)
	}
	return nil
}

// detach stops b from taking visits; callers wait for the next browser.
func (p *Pool) detach(b *chromium) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == b {
		p.cur = nil
	}
}

// setLaunchErr records a failed relaunch and wakes the waiters, which give
// up with kisa.Unavailable instead of waiting on.
func (p *Pool) setLaunchErr(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.launchErr = err
	p.wakeLocked()
}

// served returns how many visits b served successfully.
func (p *Pool) served(b *chromium) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return b.served
}
