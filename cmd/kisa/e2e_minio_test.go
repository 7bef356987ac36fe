package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// TestMinIODownMidJob cuts MinIO off from a running worker: a job that
// needs screenshots fails cleanly (503 telling that screenshot storage is
// unavailable, with Retry-After) and leaves nothing in the cache, while a
// job without screenshots still succeeds; once MinIO is back the same
// request visits the page again and succeeds.
func TestMinIODownMidJob(t *testing.T) {
	s3 := testenv.NewProxy(t, testenv.Get("KISA_S3_ENDPOINT", "127.0.0.1:9000"), true)
	s := startStack(t, stackOptions{waitTimeout: "120s", fixture: serpfixture.Options{OverviewDelay: -1},
		env: []string{"KISA_S3_ENDPOINT=" + s3.Addr(), "KISA_TASK_MAX_RETRY=1"}})
	const (
		q     = "screenshots while minio is down"
		shots = `{"query":"` + q + `","languageCode":"en","screenshots":true}`
	)
	s3.Cut()

	plain := make(chan string, 1)
	go func() {
		status, out, raw, err := s.tryPost(`{"query":"no screenshots while minio is down","languageCode":"en","screenshots":false}`)
		if err == nil && (status != http.StatusOK || !out.Data.Results.HasOverview) {
			err = fmt.Errorf("status %d, body %s", status, raw)
		}
		plain <- errString(err)
	}()
	res, out, raw := s.post(t, shots)
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "15" ||
		out.Error != "screenshot storage is unavailable; try again shortly" {
		t.Errorf("with screenshots, MinIO down: status %d, Retry-After %q, body %s; want 503, 15, screenshot storage is unavailable",
			res.StatusCode, res.Header.Get("Retry-After"), raw)
	}
	if err := <-plain; err != "" {
		t.Errorf("without screenshots, MinIO down: %s; want 200 with the overview", err)
	}
	visits := s.fixture.Visits(q)

	s3.Restore()
	s.waitIdle(t)
	again := s.mustOK(t, shots)
	if again.Data.IsCached {
		t.Error("the failed job's answer was cached")
	}
	if n := s.fixture.Visits(q); n != visits+1 {
		t.Errorf("visits after MinIO is back = %d, want %d: one more", n, visits+1)
	}
	s.checkScreenshots(t, again.Data.Results.Screenshots)
}
