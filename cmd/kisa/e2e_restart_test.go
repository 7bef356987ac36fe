package main

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
)

// get sends an authenticated GET and returns the response's status and
// Retry-After header.
func (s *stack) get(tb testing.TB, path string) (int, string) {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", path, err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Retry-After")
}

// want503 fails the test unless status is 503 with a Retry-After.
func want503(tb testing.TB, what string, status int, retryAfter string) {
	tb.Helper()
	if status != http.StatusServiceUnavailable || retryAfter == "" {
		tb.Errorf("%s: status %d, Retry-After %q; want 503 with Retry-After", what, status, retryAfter)
	}
}

// TestBackingServicesRestart takes PostgreSQL, MinIO and Redis away from
// a running web and worker and brings them back: while one is down the
// requests that need it get 503 with Retry-After (cached overviews are
// still served without PostgreSQL), and within seconds after it is back
// they succeed, with no restart of kisa. PostgreSQL and MinIO are shared
// servers, so they are cut by a proxy of the test's own; Redis is a
// redis-server of the test's own, killed and started again.
func TestBackingServicesRestart(t *testing.T) {
	pgURL, err := url.Parse(testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	pg := testenv.NewProxy(t, pgURL.Host, true)
	pgURL.Host = pg.Addr()
	s3 := testenv.NewProxy(t, testenv.Get("KISA_S3_ENDPOINT", "127.0.0.1:9000"), true)
	rs := testenv.StartRedisServer(t, 0)
	s := startStack(t, stackOptions{waitTimeout: "25s", fixture: serpfixture.Options{OverviewDelay: -1},
		env: append([]string{"DATABASE_URL=" + pgURL.String(), "KISA_S3_ENDPOINT=" + s3.Addr(),
			"REDIS_URL=redis://" + rs.Addr() + "/0", "KISA_KEY_CACHE_TTL=5m"}, quickJobs...)})
	s.queue = asynq.NewInspectorFromRedisClient(rs.Client())
	overview := func(q string, shots bool) (int, string) {
		res, _, _ := s.post(t, `{"query":"`+q+`","languageCode":"en","screenshots":`+strconv.FormatBool(shots)+`}`)
		return res.StatusCode, res.Header.Get("Retry-After")
	}
	status := func(code int, _ string) int { return code }
	s.mustOK(t, `{"query":"cached before the outage","languageCode":"en","screenshots":false}`)
	if code, _ := s.get(t, "/v1/knowledgebase"); code != http.StatusOK {
		t.Fatalf("GET /v1/knowledgebase: %d", code)
	}

	t.Run("PostgreSQL", func(t *testing.T) {
		pg.Cut()
		code, ra := s.get(t, "/v1/knowledgebase")
		want503(t, "read while PostgreSQL is down", code, ra)
		if out := s.mustOK(t, `{"query":"cached before the outage","languageCode":"en","screenshots":false}`); !out.Data.IsCached {
			t.Error("the cached overview was not served from the cache")
		}
		pg.Restore()
		testenv.Eventually(t, 30*time.Second, "a read answered 200 after PostgreSQL is back", func() bool {
			return status(s.get(t, "/v1/knowledgebase")) == http.StatusOK
		})
	})
	t.Run("MinIO", func(t *testing.T) {
		s3.Cut()
		code, ra := overview("screenshots while minio is down", true)
		want503(t, "overview with screenshots while MinIO is down", code, ra)
		s3.Restore()
		testenv.Eventually(t, 30*time.Second, "an overview with screenshots answered 200 after MinIO is back", func() bool {
			return status(overview("screenshots while minio is down", true)) == http.StatusOK
		})
	})
	t.Run("Redis", func(t *testing.T) {
		rs.Kill()
		code, ra := overview("asked while redis is down", false)
		want503(t, "overview while Redis is down", code, ra)
		rs.Start()
		testenv.Eventually(t, 30*time.Second, "an overview answered 200 after Redis is back", func() bool {
			return status(overview("asked while redis is down", false)) == http.StatusOK
		})
	})
}
