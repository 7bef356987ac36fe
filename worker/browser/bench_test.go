package browser

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkVisit measures visits per second with two tabs against a local
// page whose overview is complete on load, with the production settle
// time (700ms of quiet). A visit therefore lasts at least SettleQuiet.
func BenchmarkVisit(b *testing.B) {
	s := newSite(b)
	for _, shots := range []bool{false, true} {
		name := "screenshots=false"
		if shots {
			name = "screenshots=true"
		}
		b.Run(name, func(b *testing.B) {
			p := newTestPool(b, func(c *Config) {
				c.Tabs, c.SettleQuiet, c.OverviewWait = 2, 700*time.Millisecond, 10*time.Second
			})
			visitOK(b, p, s.url("/fast")) // warm up
			b.ResetTimer()
			start := time.Now()
			runVisits(b, p, VisitRequest{URL: s.url("/fast"), Screenshots: shots}, 2)
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "visits/s")
		})
	}
}

// runVisits runs b.N visits of req on workers goroutines and fails the
// benchmark, after they are all done, if any visit failed.
func runVisits(b *testing.B, p *Pool, req VisitRequest, workers int) {
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) && errs[w] == nil {
				_, errs[w] = p.Visit(b.Context(), req)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		b.Fatal(err)
	}
}
