package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kisa-dev/kisa/storage"
)

// figures measures every figure the run selected; a figure that fails
// becomes a row saying so, and the others still run.
func (s *suite) figures() {
	steps := []struct {
		name string
		fn   func() error
	}{
		{"reads", s.reads}, {"hits", s.hits}, {"miss", s.miss}, {"coalesce", s.coalesce},
		{"real", s.realPages}, {"tabs", s.tabs}, {"wait", s.wait}, {"slow", s.slowTabs}, {"stability", s.stability},
		{"monitor", s.monitor}, {"brands", s.brands},
	}
	for _, st := range steps {
		if s.only != nil && !s.only[st.name] {
			continue
		}
		fmt.Fprintf(s.log, "bench: %s (load %s)\n", st.name, loadAvg())
		if err := st.fn(); err != nil {
			s.res.add(row{Figure: st.name, Met: "error", Kisa: strings.ReplaceAll(err.Error(), "|", "/")})
		}
	}
}

// extraSide is a further server measured in every round of an A/B, with
// an informational row of its own against the same baseline runs. With
// versus set, a second row puts kisa (A) against this side directly,
// round by round: the same figure with and without what the side turns
// off.
type extraSide struct {
	figure string
	target wrkTarget
	versus string
}

// ab runs kisa (A) and its baseline (B) with wrk, alternating, and adds
// the row: median throughput and p99 of each side, and the median of the
// per-round throughput ratios. Each extra side runs between A and B in
// every round and adds a row that no target applies to. A note says what
// a request cost each side in CPU time.
func (s *suite) ab(figure string, a, b wrkTarget, minRatio float64, extra ...extraSide) error {
	var as, bs []wrkRun
	xs := make([][]wrkRun, len(extra))
	for round := range s.n.Rounds {
		if round == 0 && s.profile {
			go s.cpuProfile(strings.Fields(figure)[0])
		}
		ra, err := s.wrk(a, s.n.WrkTime)
		if err != nil {
			return err
		}
		for i, x := range extra {
			rx, err := s.wrk(x.target, s.n.WrkTime)
			if err != nil {
				return err
			}
			xs[i] = append(xs[i], rx)
		}
		rb, err := s.wrk(b, s.n.WrkTime)
		if err != nil {
			return err
		}
		as, bs = append(as, ra), append(bs, rb)
	}
	s.res.add(abRow(figure, as, bs, fmt.Sprintf(">= %.1fx, p99 <= 1.5x", minRatio), func(ratio, p99Ratio float64, errs int) string {
		return yes(ratio >= minRatio && p99Ratio <= 1.5 && errs == 0)
	}))
	cost := []string{"kisa " + cpuCost(as)}
	for i, x := range extra {
		s.res.add(abRow(x.figure, xs[i], bs, "- (shows a part's share)", func(float64, float64, int) string { return "-" }))
		if x.versus != "" {
			s.res.add(abRow(x.versus, as, xs[i], "- (the side's cost)", func(float64, float64, int) string { return "-" }))
		}
		cost = append(cost, label(x.figure)+" "+cpuCost(xs[i]))
	}
	s.res.note("%s, CPU per request (medians of the rounds): %s; baseline %s.", label(figure),
		strings.Join(cost, "; "), cpuCost(bs))
	return nil
}

// label is a figure's name: its text before the colon.
func label(figure string) string {
	name, _, _ := strings.Cut(figure, ":")
	return name
}

// abRow is the row of one side's runs against the baseline's, paired by
// round; met decides its last column.
func abRow(figure string, as, bs []wrkRun, target string, met func(ratio, p99Ratio float64, errs int) string) row {
	var ratios []float64
	for i := range as {
		ratios = append(ratios, as[i].RPS/bs[i].RPS)
	}
	rpsA, p99A, errA := summary(as)
	rpsB, p99B, _ := summary(bs)
	ratio, p99Ratio := median(ratios), p99A/p99B
	return row{Figure: figure,
		Kisa:     fmt.Sprintf("%.0f req/s, p99 %.1f ms (%d errors)", rpsA, p99A, errA),
		Baseline: fmt.Sprintf("%.0f req/s, p99 %.1f ms", rpsB, p99B),
		Ratio:    fmt.Sprintf("%.2fx throughput, p99 %.2fx", ratio, p99Ratio),
		Target:   target,
		Met:      met(ratio, p99Ratio, errA),
		Raw:      map[string]any{"kisa": as, "baseline": bs, "ratios": ratios}}
}

// cpuCost says what a request of these runs cost the server process and
// Redis, and Redis's time per call of the limiter's script if any ran.
func cpuCost(rs []wrkRun) string {
	var proc, rds, calls, usec []float64
	for _, r := range rs {
		proc, rds, calls, usec = append(proc, r.ProcCPUus), append(rds, r.RedisCPUus),
			append(calls, r.ScriptCalls), append(usec, r.ScriptUsec)
	}
	out := fmt.Sprintf("process %.1f us, Redis %.1f us", median(proc), median(rds))
	if c := median(calls); c >= 0.01 {
		out += fmt.Sprintf(" (%.2f script calls at %.1f us each)", c, median(usec))
	}
	return out
}

// summary is the median throughput, the median p99 and the error total.
func summary(rs []wrkRun) (rps, p99ms float64, errs int) {
	var r, p []float64
	for _, x := range rs {
		r, p, errs = append(r, x.RPS), append(p, x.P99ms), errs+x.Errors
	}
	return median(r), median(p), errs
}

// cpuProfile saves a CPU profile of kisa web, taken during a wrk run, as
// <dir>/<name>.pprof (BENCH_PROFILE=1; read it with go tool pprof).
func (s *suite) cpuProfile(name string) {
	secs := max(1, int(s.n.WrkTime.Seconds())-1)
	req, _ := http.NewRequestWithContext(s.ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", s.web, secs), nil)
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(s.log, "bench: profile:", err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := os.WriteFile(filepath.Join(s.dir, strings.Trim(name, ":")+".pprof"), b, 0o644); err != nil {
		fmt.Fprintln(s.log, "bench: profile:", err)
	}
}

func (s *suite) auth() []string { return []string{"Authorization: Bearer " + s.key} }

// reads: GET /v1/integrations/{id} against the bare handler's same
// limiter call and query.
func (s *suite) reads() error {
	path := "/v1/integrations/" + s.integ
	a := wrkTarget{URL: s.web + path, Headers: s.auth(), PID: s.pids[s.web]}
	b := wrkTarget{URL: s.bare + "/read?" + url.Values{"account": {s.account}, "id": {s.integ}}.Encode(),
		PID: s.pids[s.bare]}
	off := extraSide{"limiter-off reads: the same GET, KISA_LIMIT_OTHER=0 (not a target)",
		wrkTarget{URL: s.webOff + path, Headers: s.auth(), PID: s.pids[s.webOff]}, ""}
	quiet := extraSide{"recording-off reads: the same GET, KISA_OBSERVATIONS=false (not a target)",
		wrkTarget{URL: s.webQuiet + path, Headers: s.auth(), PID: s.pids[s.webQuiet]},
		"recording on vs off, reads: the same GET with KISA_OBSERVATIONS=true (kisa) and false (baseline column)"}
	return s.ab("reads: GET /v1/integrations/{id}, 64 connections (baseline: the same limiter call and query)", a, b, 0.9, off, quiet)
}

// hits: the overview of a cached query against one Redis GET.
func (s *suite) hits() error {
	if err := s.ensureWorker(2); err != nil {
		return err
	}
	body := overviewBody("bench cached query "+s.res.Time, true)
	if _, err := s.overview(body); err != nil {
		return fmt.Errorf("fill the cache: %w", err)
	}
	key, err := s.cacheKey()
	if err != nil {
		return err
	}
	a := wrkTarget{URL: s.web + "/v1/networks/browser/ai-overview", Headers: s.auth(), Body: body, PID: s.pids[s.web]}
	b := wrkTarget{URL: s.bare + "/cache?" + url.Values{"key": {key}}.Encode(), PID: s.pids[s.bare]}
	quiet := extraSide{"recording-off cache hits: the same POST, KISA_OBSERVATIONS=false (not a target)",
		wrkTarget{URL: s.webQuiet + "/v1/networks/browser/ai-overview", Headers: s.auth(), Body: body, PID: s.pids[s.webQuiet]},
		"recording on vs off, cache hits: the same POST with KISA_OBSERVATIONS=true (kisa) and false (baseline column)"}
	return s.ab("cache hits: POST overview of a cached query, 64 connections", a, b, 0.6, quiet)
}

// cacheKey finds the one cached result's Redis key.
func (s *suite) cacheKey() (string, error) {
	keys, err := s.rdb.Keys(s.ctx, storage.CachedResultsPattern(storage.KeyPrefix)).Result()
	if err != nil || len(keys) != 1 {
		return "", fmt.Errorf("cached results in Redis: %v %v", keys, err)
	}
	return keys[0], nil
}

func envValue(env []string, name string) string {
	v := ""
	for _, e := range env {
		if k, val, _ := strings.Cut(e, "="); k == name {
			v = val
		}
	}
	return v
}

// overviewBody is an overview request with screenshots and the cache on.
func overviewBody(query string, screenshots bool) string {
	b, _ := json.Marshal(map[string]any{"query": query, "countryCode": "us", "languageCode": "en",
		"screenshots": screenshots, "cache": map[string]any{"enabled": true, "ttl": 3600}})
	return string(b)
}

// overview POSTs body and returns how long the answer took; a status
// other than 200 is an error.
func (s *suite) overview(body string) (time.Duration, error) {
	took, _, err := s.overviewRead(body)
	return took, err
}

// overviewRead is overview that also reports whether the answer's
// overview was read whole (results.complete: the visit did not stop
// waiting while it still streamed).
func (s *suite) overviewRead(body string) (took time.Duration, complete bool, err error) {
	req, _ := http.NewRequestWithContext(s.ctx, http.MethodPost, s.web+"/v1/networks/browser/ai-overview",
		strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	took = time.Since(start)
	if resp.StatusCode != http.StatusOK {
		return took, false, fmt.Errorf("overview: %s %s", resp.Status, b)
	}
	var v struct {
		Data struct {
			Results struct {
				Complete bool `json:"complete"`
			} `json:"results"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return took, false, fmt.Errorf("overview: %w: %.200s", err, b)
	}
	return took, v.Data.Results.Complete, nil
}

// ensureWorker starts a worker with tabs tabs unless one runs with them.
func (s *suite) ensureWorker(tabs int) error {
	if s.worker != nil && envValue(s.worker.cmd.Env, "KISA_BROWSER_CONCURRENCY") == fmt.Sprint(tabs) {
		return nil
	}
	return s.startWorker(tabs)
}

// miss: one fresh overview end to end against the page's own time (a
// plain chromedp tab from navigation to the overview's finish marker),
// alternating, each on distinct queries. The visit baseline (kisa's own
// browser pool without queue, uploads or HTTP) is reported beside it.
func (s *suite) miss() error {
	if err := s.ensureWorker(2); err != nil {
		return err
	}
	if _, err := s.overview(overviewBody("bench warm-up "+s.res.Time, true)); err != nil {
		return err
	}
	var a, b, c []float64
	for round := range s.n.Rounds {
		for i := range s.n.Misses {
			d, err := s.overview(overviewBody(fmt.Sprintf("bench miss %s %d %d", s.res.Time, round, i), true))
			if err != nil {
				return err
			}
			a = append(a, ms(d))
		}
		p, err := s.pageTimes(s.n.Misses, fmt.Sprintf("bench-page-%s-%d", s.res.Time, round))
		if err != nil {
			return err
		}
		b = append(b, p...)
		v, _, err := s.visits(false, s.n.Misses, 1, fmt.Sprintf("bench-base-%s-%d", s.res.Time, round))
		if err != nil {
			return err
		}
		c = append(c, v...)
	}
	ma, mb := median(a), median(b)
	s.res.note("One miss: the pool's own visit (navigate, settle, expand, three screenshots, no queue, uploads or HTTP) took median %.0f ms, p99 %.0f ms in the same rounds.", median(c), p99(c))
	s.res.add(row{Figure: "one miss: fresh overview, fixture streaming 1 s, 3 screenshots",
		Kisa:     fmt.Sprintf("median %.0f ms, p99 %.0f ms", ma, p99(a)),
		Baseline: fmt.Sprintf("median %.0f ms, p99 %.0f ms (the page's own time: navigation + streaming)", mb, p99(b)),
		Ratio:    fmt.Sprintf("%+.0f ms", ma-mb), Target: "<= the page's own time + 300 ms", Met: yes(ma <= mb+300),
		Raw: map[string]any{"kisa_ms": a, "page_ms": b, "visit_ms": c}})
	return nil
}

// pageTimes runs `kisa-bench page` (the page's own time) for n distinct
// queries and returns their durations in ms.
func (s *suite) pageTimes(n int, tag string) ([]float64, error) {
	c := exec.CommandContext(s.ctx, filepath.Join(s.bin, "kisa-bench"), "page", "--url", s.plainFixture+"/search", "--n", fmt.Sprint(n), "--tag", tag)
	c.Env = append(append([]string{}, s.env...), "TMPDIR="+filepath.Join(s.dir, "tmp"))
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("kisa-bench page: %w: %s", err, stderr.Bytes())
	}
	var v struct{ MS []float64 }
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, fmt.Errorf("kisa-bench page printed %q", out)
	}
	return v.MS, nil
}

// visits runs `kisa-bench visit` (the standalone browser baseline), par
// visits at once (with fresh), and returns their durations and the wall
// time of all of them, in ms.
func (s *suite) visits(fresh bool, n, par int, tag string) ([]float64, float64, error) {
	args := []string{"visit", "--url", s.fixture + "/search", "--n", fmt.Sprint(n), "--tag", tag, "--par", fmt.Sprint(par)}
	if fresh {
		args = append(args, "--fresh")
	}
	c := exec.CommandContext(s.ctx, filepath.Join(s.bin, "kisa-bench"), args...)
	c.Env = append(append([]string{}, s.env...), "TMPDIR="+filepath.Join(s.dir, "tmp"))
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("kisa-bench visit: %w: %s", err, stderr.Bytes())
	}
	var v struct {
		MS     []float64
		WallMS float64 `json:"wall_ms"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, 0, fmt.Errorf("kisa-bench visit printed %q", out)
	}
	return v.MS, v.WallMS, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// coalesce: identical concurrent misses, every other one asynchronous,
// must make one browser visit; every synchronous answer is 200 and every
// job ends done.
func (s *suite) coalesce() error {
	if err := s.ensureWorker(2); err != nil {
		return err
	}
	query := "bench coalesce " + s.res.Time
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed, async := 0, 0
	for i := range s.n.Coalesce {
		wg.Go(func() {
			var err error
			if i%2 == 1 {
				err = s.asyncOverview(overviewBodyAsync(query))
			} else {
				_, err = s.overview(overviewBody(query, true))
			}
			mu.Lock()
			defer mu.Unlock()
			if i%2 == 1 {
				async++
			}
			if err != nil {
				failed++
				fmt.Fprintln(s.log, "bench: coalesce:", err)
			}
		})
	}
	wg.Wait()
	n, err := s.fixtureVisits(query)
	if err != nil {
		return err
	}
	s.res.add(row{Figure: fmt.Sprintf("coalescing: %d identical concurrent misses (%d sync, %d async)", s.n.Coalesce, s.n.Coalesce-async, async),
		Kisa: fmt.Sprintf("%d browser visit(s), %d failed requests", n, failed), Baseline: "-", Ratio: "-",
		Target: "exactly one visit", Met: yes(n == 1 && failed == 0)})
	return nil
}

// overviewBodyAsync is overviewBody (screenshots on) as an async job.
func overviewBodyAsync(query string) string {
	var m map[string]any
	json.Unmarshal([]byte(overviewBody(query, true)), &m)
	m["async"] = true
	b, _ := json.Marshal(m)
	return string(b)
}

// asyncOverview submits body as a job (202 and Location) and polls the
// job until it ends; a job that does not end done is an error.
func (s *suite) asyncOverview(body string) error {
	req, _ := http.NewRequestWithContext(s.ctx, http.MethodPost, s.web+"/v1/networks/browser/ai-overview", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusAccepted || loc == "" {
		return fmt.Errorf("async overview: %s %s", resp.Status, b)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		var v struct {
			Data struct{ Status string } `json:"data"`
		}
		if err := s.getJSON(s.web+loc, &v); err != nil {
			return err
		}
		switch v.Data.Status {
		case "done":
			return nil
		case "failed":
			return fmt.Errorf("job %s failed", loc)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("job %s did not end within 5 minutes", loc)
}

// fixtureVisits asks the fixture how often query's page was served.
func (s *suite) fixtureVisits(query string) (int, error) {
	resp, err := http.Get(s.fixture + "/__visits?" + url.Values{"q": {query}}.Encode())
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var v struct{ Visits int }
	return v.Visits, json.NewDecoder(resp.Body).Decode(&v)
}

// runJobs sends n distinct overview misses, at most par at once, and
// calls each(i) after the i-th answer; it returns the wall time and how
// many answers were not read whole (results.complete false).
func (s *suite) runJobs(tag string, n, par int, each func(done int)) (time.Duration, int, error) {
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	sem := make(chan struct{}, par)
	var mu sync.Mutex
	var first error
	done, incomplete := 0, 0
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		sem <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			_, complete, err := s.overviewRead(overviewBody(fmt.Sprintf("%s %s %d", tag, s.res.Time, i), true))
			mu.Lock()
			defer mu.Unlock()
			if err == nil && !complete {
				incomplete++
			}
			if err != nil && first == nil {
				first = err
				cancel()
			}
			done++
			if each != nil {
				each(done)
			}
		})
	}
	wg.Wait()
	return time.Since(start), incomplete, first
}
