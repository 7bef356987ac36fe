package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// jobsDone counts the "overview done" lines of a worker's log.
func jobsDone(logs *testenv.Buffer) int {
	n := 0
	for _, line := range strings.Split(logs.String(), "\n") {
		var l struct{ Msg string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "overview done" {
			n++
		}
	}
	return n
}

// TestScaleOut runs two `kisa web` and two `kisa worker` processes (real
// binaries, one tab each) on one PostgreSQL, Redis and MinIO, and spreads
// 40 distinct overview requests over both web processes: every request
// is answered and both workers ran jobs (counted in their logs).
func TestScaleOut(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "90s", noWorker: true,
		fixture: serpfixture.Options{OverviewDelay: 200 * time.Millisecond},
		env:     []string{"KISA_BROWSER_CONCURRENCY=1", "KISA_OVERVIEW_SETTLE=200ms", "KISA_OVERVIEW_APPEAR=1s"}})
	var bases []string
	for range 2 {
		_, logs := s.startBinary(t, "web")
		bases = append(bases, "http://"+listenAddr(t, logs))
	}
	var workers []*testenv.Buffer
	for range 2 {
		_, logs := s.startBinary(t, "worker")
		workers = append(workers, logs)
	}
	for _, logs := range workers {
		waitFor(t, 30*time.Second, func() bool { return strings.Contains(logs.String(), "worker started") }, "a worker to start")
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
	a, b := jobsDone(workers[0]), jobsDone(workers[1])
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
