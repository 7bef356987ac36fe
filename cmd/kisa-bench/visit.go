package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/kisa-dev/kisa/worker/browser"
)

// runVisit is the browser baseline: the same navigate, wait, expand and
// three screenshots as a kisa job, in a browser already running (or, with
// --fresh, a browser launched for each visit, as simple scrapers do), but
// without queue, Redis, uploads or HTTP. It prints the durations of n
// visits of distinct queries as JSON {"ms":[...]} after one untimed
// warm-up visit. With --fresh and --par P, P visits run at once, each in
// its browser, and "wall_ms" is the time for all n.
func runVisit(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("visit", flag.ContinueOnError)
	search := fs.String("url", "", "search URL (the fixture's /search)")
	fresh := fs.Bool("fresh", false, "launch a fresh Chromium for each visit")
	n := fs.Int("n", 3, "timed visits")
	tag := fs.String("tag", "visit", "query prefix, so that queries are distinct across runs")
	par := fs.Int("par", 1, "with --fresh: visits (browsers) at once")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := browser.Config{ExecPath: getenv("KISA_CHROME_PATH"), Tabs: 1, VisitTimeout: 90 * time.Second,
		SettleQuiet: 700 * time.Millisecond, OverviewWait: 15 * time.Second, OverviewAppear: 3 * time.Second}
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
	cpu := treeCPU(os.Getpid())
	ms, wall, err := timeVisits(ctx, pool, cfg, *n, max(1, *par), func(i int) browser.VisitRequest {
		return visitRequest(*search, fmt.Sprintf("%s-%d", *tag, i))
	}, steps)
	if err != nil {
		return err
	}
	cpuPerVisit := (treeCPU(os.Getpid()) - cpu) / float64(*n)
	return json.NewEncoder(stdout).Encode(map[string]any{"ms": ms, "wall_ms": wall, "steps_ms": steps, "cpu_s_per_visit": cpuPerVisit})
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
