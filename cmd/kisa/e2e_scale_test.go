package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// jobsDone reads a worker's job counter from its /metrics: the task
// attempts that ended with an overview or with none.
func jobsDone(tb testing.TB, worker string) int {
	tb.Helper()
	code, body := scrape(tb, worker+"/metrics", true)
	if code != http.StatusOK {
		tb.Fatalf("GET %s/metrics: %d", worker, code)
	}
	n := 0
	for _, line := range strings.Split(body, "\n") {
		for _, outcome := range []string{`kisa_worker_tasks_total{outcome="ok",surface="ai-overview"} `, `kisa_worker_tasks_total{outcome="no_overview",surface="ai-overview"} `} {
			if v, ok := strings.CutPrefix(line, outcome); ok {
				f, _ := strconv.ParseFloat(v, 64)
				n += int(f)
			}
		}
	}
	return n
}

// TestScaleOut runs two `kisa web` and two `kisa worker` processes (real
// binaries, one tab each) on one PostgreSQL, Redis and MinIO, and spreads
// 40 distinct overview requests over both web processes: every request
// is answered and both workers ran jobs (their job counters in /metrics).
func TestScaleOut(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "90s", noWorker: true,
		fixture: serpfixture.Options{OverviewDelay: 200 * time.Millisecond},
		env:     []string{"KISA_BROWSER_CONCURRENCY=1", "KISA_OVERVIEW_SETTLE=200ms", "KISA_OVERVIEW_APPEAR=1s"}})
	var bases []string
	for range 2 {
		_, logs := s.startBinary(t, "web")
		bases = append(bases, "http://"+listenAddr(t, logs, "web listening"))
	}
	var workers []string
	for range 2 {
		_, logs := s.startBinary(t, "worker")
		workers = append(workers, "http://"+listenAddr(t, logs, "worker health and metrics listening"))
		testenv.Eventually(t, 30*time.Second, "a worker to start", func() bool { return strings.Contains(logs.String(), "worker started") })
	}

	start := time.Now()
	const n = 40
	codes := make([]int, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			codes[i] = postTo(bases[i%2], s.key, fmt.Sprintf(`{"query":"scale out question %d","languageCode":"en","screenshots":false}`, i))
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d (web %d): status %d", i, i%2, c)
		}
	}
	a, b := jobsDone(t, workers[0]), jobsDone(t, workers[1])
	t.Logf("jobs per worker: %d and %d, in %s", a, b, time.Since(start))
	if a == 0 || b == 0 || a+b < n {
		t.Errorf("workers ran %d and %d jobs; want both to run some, %d in all", a, b, n)
	}
}

// postTo sends an overview request to base and returns its status (0 when
// it could not be sent).
func postTo(base, key, body string) int {
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/networks/browser/ai-overview", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}
