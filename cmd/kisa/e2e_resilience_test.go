package main

import (
	"net/http"
	"testing"

	"github.com/kisa-dev/kisa/serpfixture"
)

// quickJobs are settings under which a request gives up after 25 s
// (KISA_OVERVIEW_TIMEOUT "25s"), shorter than the stack's default.
var quickJobs = []string{"KISA_VISIT_TIMEOUT=10s", "KISA_OVERVIEW_WAIT=5s", "KISA_OVERVIEW_APPEAR=1s",
	"KISA_OVERVIEW_SETTLE=200ms"}

// TestResultOfAbandonedRequestIsKept: a request that gave up (503 after
// its wait, no worker free) does not throw its job away; once the job
// has run, the retry is answered from the cache without a second visit.
func TestResultOfAbandonedRequestIsKept(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "25s", noWorker: true, env: quickJobs,
		fixture: serpfixture.Options{OverviewDelay: -1}})
	const body = `{"query":"what did the impatient client miss","languageCode":"en","screenshots":false}`
	res, _, raw := s.post(t, body)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q, body %s; want 503 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"), raw)
	}
	_, logs := s.startProcess(t, "worker")
	s.waitIdle(t)
	out := s.mustOK(t, body)
	if !out.Data.IsCached || !out.Data.Results.HasOverview {
		t.Errorf("retry: isCached %v, hasOverview %v; want the job's result from the cache", out.Data.IsCached, out.Data.Results.HasOverview)
	}
	if n := s.fixture.Visits("what did the impatient client miss"); n != 1 {
		t.Errorf("visits = %d, want 1; worker's log:\n%s", n, logs)
	}
}
