package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// testResultsPrefix starts the Redis keys of the test servers' results.
const testResultsPrefix = "test:"

// overviewServer is a test server whose overview runner uses rdb, waits
// at most wait for a job and reads the server's clock; tweaks may change
// its options. No worker runs.
func overviewServer(t testing.TB, rdb *redis.Client, wait time.Duration, tweaks ...func(*overview.Options)) (*testServer, string) {
	t.Helper()
	s3 := testenv.S3(t)
	shots, err := storage.NewArtifacts(s3)
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestServer(t, 0, func(o *Options) {
		ov := overview.Options{
			Results: testenv.Results(t, rdb, testResultsPrefix), Client: asynq.NewClientFromRedisClient(rdb),
			Inspector: asynq.NewInspectorFromRedisClient(rdb), Artifacts: shots,
			Timing: overview.Timing{Wait: wait, Visit: time.Minute, MaxRetry: 1}, Logger: o.Logger, Now: o.Now,
		}
		for _, tweak := range tweaks {
			tweak(&ov)
		}
		o.Overviews = overview.New(ov)
	})
	account := newAccount(t, srv.db, true)
	key, _ := newKey(t, srv.db, account, apikey.ScopeOverviewRun)
	return srv, key
}

// TestOverviewUnavailable checks the 503 answers, each with Retry-After,
// when Redis is down or no worker finishes the job in time.
func TestOverviewUnavailable(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { down.Close() })
	tests := []struct {
		name      string
		rdb       *redis.Client
		body      string
		wantError string
	}{
		{name: "redis down, cache on", rdb: down, body: `{"query":"q"}`,
			wantError: "the result cache is unavailable; try again shortly"},
		{name: "redis down, cache off", rdb: down, body: `{"query":"q","cache":{"enabled":false}}`,
			wantError: "the task queue is unavailable; try again shortly"},
		{name: "no worker finishes in time", rdb: testenv.Redis(t), body: `{"query":"q"}`,
			wantError: "the browser did not finish in time; try again shortly"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, key := overviewServer(t, tt.rdb, 500*time.Millisecond)
			res := do(t, srv, request(http.MethodPost, "/v1/networks/browser/ai-overview", key, tt.body))
			checkJSON(t, res, http.StatusServiceUnavailable, `{"status":false,"error":"`+tt.wantError+`"}`)
			if res.Header.Get("Retry-After") == "" {
				t.Error("no Retry-After header")
			}
		})
	}
}

// TestOverviewClientGone: a client that leaves while its overview waits
// for a browser is recorded as 499, not as "the task queue is unavailable"
// (503), and its job stays queued for the next request to find.
func TestOverviewClientGone(t *testing.T) {
	rdb := testenv.Redis(t)
	srv, key := overviewServer(t, rdb, time.Minute)
	ctx, cancel := context.WithCancel(context.Background()) // as net/http does when the connection closes
	defer time.AfterFunc(300*time.Millisecond, cancel).Stop()
	req := request(http.MethodPost, "/v1/networks/browser/ai-overview", key, `{"query":"a client that leaves"}`)
	do(t, srv, req.WithContext(ctx))
	checkClientGone(t, srv, "/v1/networks/browser/ai-overview")
	pending, err := asynq.NewInspectorFromRedisClient(rdb).ListPendingTasks(jobs.QueueOverview)
	if err != nil || len(pending) != 1 {
		t.Errorf("%d pending overview tasks (%v), want the one the client left", len(pending), err)
	}
}
