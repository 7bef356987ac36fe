package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/kisa-dev/kisa/config"
	"github.com/kisa-dev/kisa/worker/browser"
)

// runVisit is the browser baseline: the same navigate, wait, expand and
// three screenshots as a kisa job, in a browser already running (or, with
// --fresh, a browser launched for each visit, as simple scrapers do), but
// without queue, Redis, uploads or HTTP. It prints the durations of n
// visits of distinct queries as JSON {"ms":[...]} after one untimed
// warm-up visit, with the CPU per visit of its process tree, in all and
// split by process ("cpu_s_per_visit_by_process": this process, which
// runs the pool's Go side, as "worker"). With --fresh and --par P, P visits
// run at once, each in its browser, and "wall_ms" is the time for all n.
// The pool's waits and deadline are the product's (config: KISA_VISIT_TIMEOUT,
// KISA_OVERVIEW_WAIT, KISA_OVERVIEW_SETTLE, KISA_OVERVIEW_APPEAR, their
// defaults unless set). --cpuprofile FILE writes a Go CPU profile of the
// timed visits (go tool pprof bin/kisa-bench FILE).
func runVisit(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("visit", flag.ContinueOnError)
	search := fs.String("url", "", "search URL (the fixture's /search)")
	fresh := fs.Bool("fresh", false, "launch a fresh Chromium for each visit")
	n := fs.Int("n", 3, "timed visits")
	tag := fs.String("tag", "visit", "query prefix, so that queries are distinct across runs")
	par := fs.Int("par", 1, "with --fresh: visits (browsers) at once")
	profile := fs.String("cpuprofile", "", "write a Go CPU profile of the timed visits to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := poolConfig(getenv)
	if err != nil {
		return err
	}
	var pool *browser.Pool
	if !*fresh {
		p, err := startPool(ctx, cfg)
		if err != nil {
			return err
		}
		defer p.Close()
		pool = p
		if _, err := p.Visit(ctx, visitRequest(*search, *tag+"-warm")); err != nil {
			return fmt.Errorf("warm-up visit: %w", err)
		}
	}
	steps := map[string][]float64{}
	stop, err := startProfile(*profile)
	if err != nil {
		return err
	}
	before := treeCPUByKind(os.Getpid())
	ms, wall, err := timeVisits(ctx, pool, cfg, *n, max(1, *par), func(i int) browser.VisitRequest {
		return visitRequest(*search, fmt.Sprintf("%s-%d", *tag, i))
	}, steps)
	by, cpuPerVisit := treeCPUByKind(os.Getpid()), 0.0
	if err := errors.Join(err, stop()); err != nil {
		return err
	}
	for kind, v := range by {
		by[kind] = (v - before[kind]) / float64(*n)
		cpuPerVisit += by[kind]
	}
	return json.NewEncoder(stdout).Encode(map[string]any{"ms": ms, "wall_ms": wall, "steps_ms": steps,
		"cpu_s_per_visit": cpuPerVisit, "cpu_s_per_visit_by_process": by})
}

// poolConfig is the browser pool of one tab with the product's timing:
// the visit's deadline and the overview's waits as `kisa worker` reads
// them (config.Load: the environment, else the defaults).
func poolConfig(getenv func(string) string) (browser.Config, error) {
	c, err := config.Load(getenv)
	if err != nil {
		return browser.Config{}, err
	}
	return browser.Config{ExecPath: getenv("KISA_CHROME_PATH"), Tabs: 1, VisitTimeout: c.VisitTimeout,
		SettleQuiet: c.OverviewSettle, OverviewWait: c.OverviewWait, OverviewAppear: c.OverviewAppear}, nil
}

// startProfile starts a Go CPU profile written to path (nothing when path
// is empty) and returns what stops and writes it.
func startProfile(path string) (func() error, error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error { pprof.StopCPUProfile(); return f.Close() }, nil
}

// timeVisits makes n visits, par at once, and returns each one's duration
// and the wall time of all, in ms, adding each visit's step durations to
// steps; the first error stops it.
func timeVisits(ctx context.Context, pool *browser.Pool, cfg browser.Config, n, par int, req func(int) browser.VisitRequest, steps map[string][]float64) ([]float64, float64, error) {
	var mu sync.Mutex
	var took []float64
	var first error
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			t := time.Now()
			stepped, err := visitOnce(ctx, pool, cfg, req(i))
			mu.Lock()
			defer mu.Unlock()
			for step, d := range stepped {
				steps[step] = append(steps[step], ms(d))
			}
			if err != nil && first == nil {
				first = err
			}
			took = append(took, ms(time.Since(t)))
		})
	}
	wg.Wait()
	return took, ms(time.Since(start)), first
}

// visitOnce visits req in pool, or in a browser of its own when pool is
// nil, and returns the visit's step durations.
func visitOnce(ctx context.Context, pool *browser.Pool, cfg browser.Config, req browser.VisitRequest) (map[string]time.Duration, error) {
	if pool == nil {
		p, err := startPool(ctx, cfg)
		if err != nil {
			return nil, err
		}
		defer p.Close()
		pool = p
	}
	res, err := pool.Visit(ctx, req)
	if err == nil && len(res.Screenshots) != 3 {
		err = fmt.Errorf("visit %s: %d screenshots, want 3", req.URL, len(res.Screenshots))
	}
	return res.Steps, err
}

func startPool(ctx context.Context, cfg browser.Config) (*browser.Pool, error) {
	p, err := browser.NewPool(cfg)
	if err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

func visitRequest(search, query string) browser.VisitRequest {
	q := url.Values{"q": {query}, "gl": {"us"}, "hl": {"en"}}
	return browser.VisitRequest{URL: search + "?" + q.Encode(), Screenshots: true, Language: "en"}
}
