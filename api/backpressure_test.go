package api

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/testenv"
)

// TestBackpressure checks spec 7's 503 for a request that would start a
// new visit while the queue is full or no worker is alive, and that cache
// hits and requests joining a visit in flight are still answered. The
// requests wait 500 ms at most for a job: a request that is not refused
// at once is answered "did not finish in time" instead.
func TestBackpressure(t *testing.T) {
	const (
		body        = `{"query":"why are frogs green","countryCode":"us","languageCode":"en","screenshots":false}`
		noWorker    = `{"status":false,"error":"the browser is unavailable; try again shortly"}`
		overloaded  = `{"status":false,"error":"too many requests are waiting for a browser; try again in a minute"}`
		timedOut    = `{"status":false,"error":"the browser did not finish in time; try again shortly"}`
		fresh       = `{"status":true,"data":{"isCached":false,"cacheExpiresIn":null,"results":` + resultJSON + `}}`
		cachedFresh = `{"status":true,"data":{"isCached":true,"cacheExpiresIn":60,"results":` + resultJSON + `}}`
	)
	key := overview.Request{Query: "why are frogs green", Country: "us", Language: "en"}.Key()
	tests := []struct {
		name     string
		slots    int           // concurrency of a live worker serving the (paused) queue; 0: none
		queueMax int           // KISA_QUEUE_MAX
		pending  int           // tasks of other requests waiting in the queue
		after    time.Duration // time passed since the web process started
		cached   bool          // the answer is in the result cache
		inFlight bool          // the request's own task is queued and has just ended
		status   int
		retry    string
		want     string
	}{
		{name: "no worker for 30 s", after: 31 * time.Second, status: 503, retry: "15", want: noWorker},
		{name: "no worker yet, within 30 s of the start: waits", after: 29 * time.Second, status: 503, retry: "10", want: timedOut},
		{name: "queue deeper than KISA_QUEUE_MAX", slots: 2, queueMax: 3, pending: 4, status: 503, retry: "30", want: overloaded},
		{name: "queue at KISA_QUEUE_MAX", slots: 2, queueMax: 3, pending: 3, status: 503, retry: "30", want: overloaded},
		{name: "queue under KISA_QUEUE_MAX: waits", slots: 2, queueMax: 3, pending: 2, status: 503, retry: "10", want: timedOut},
		{name: "automatic bound: 24 per live slot", slots: 2, pending: 48, status: 503, retry: "30", want: overloaded},
		{name: "automatic bound not reached: waits", slots: 2, pending: 47, status: 503, retry: "10", want: timedOut},
		{name: "cache hit with the queue full", slots: 2, queueMax: 3, pending: 4, cached: true, status: 200, want: cachedFresh},
		{name: "cache hit with no worker", after: time.Hour, cached: true, status: 200, want: cachedFresh},
		{name: "joining a task in flight with the queue full", slots: 2, queueMax: 3, pending: 4, inFlight: true, status: 200, want: fresh},
		{name: "joining a task in flight with no worker", after: time.Hour, inFlight: true, status: 200, want: fresh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := testenv.Redis(t)
			pauseOverviewQueue(t, rdb)
			if tt.slots > 0 {
				startIdleWorker(t, rdb, tt.slots)
			}
			srv, apiKey := overviewServer(t, rdb, 500*time.Millisecond, func(o *overview.Options) { o.QueueMax = tt.queueMax })
			for i := range tt.pending {
				enqueue(t, rdb, fmt.Sprintf("other-%d", i))
			}
			results := testenv.Results(t, rdb, testResultsPrefix)
			if tt.cached {
				if err := results.Store(context.Background(), key, testResult(), time.Minute); err != nil {
					t.Fatal(err)
				}
			}
			if tt.inFlight {
				result := testResult()
				enqueue(t, rdb, key)
				if err := results.Publish(context.Background(), key, jobs.Outcome{Result: &result}); err != nil {
					t.Fatal(err)
				}
			}
			srv.clock.Advance(tt.after)

			res := do(t, srv, request(http.MethodPost, "/v1/networks/browser/ai-overview", apiKey, body))
			checkJSON(t, res, tt.status, tt.want)
			if got := res.Header.Get("Retry-After"); got != tt.retry {
				t.Errorf("Retry-After = %q, want %q", got, tt.retry)
			}
		})
	}
}

// resultJSON is testResult as the API answers it.
const resultJSON = `{"hasOverview":true,"complete":false,"text":"Frogs are green for camouflage.","citations":[],"paragraphs":[],"sources":[]}`

// testResult is a result without screenshots, as a worker stores it.
func testResult() kisa.Result {
	return kisa.Result{Overview: kisa.Overview{HasOverview: true, Text: "Frogs are green for camouflage.",
		Citations: []kisa.Citation{}, Paragraphs: []kisa.Paragraph{}, Sources: []kisa.Source{}},
		TakenAt: time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)}
}

// pauseOverviewQueue pauses the overview queue, so that what the test
// enqueues stays pending.
func pauseOverviewQueue(tb testing.TB, rdb *redis.Client) {
	tb.Helper()
	if err := asynq.NewInspectorFromRedisClient(rdb).PauseQueue(jobs.QueueOverview); err != nil {
		tb.Fatal(err)
	}
}

// startIdleWorker runs an asynq server of the overview queue with slots
// slots, as a `kisa worker` would, until the test ends, and waits for its
// first heartbeat. Its queue is paused: it runs nothing.
func startIdleWorker(tb testing.TB, rdb *redis.Client, slots int) {
	tb.Helper()
	srv := asynq.NewServerFromRedisClient(rdb, asynq.Config{Concurrency: slots,
		Queues: map[string]int{jobs.QueueOverview: 1}, LogLevel: asynq.FatalLevel})
	err := srv.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
		return fmt.Errorf("%w: the test's worker runs nothing", asynq.SkipRetry)
	}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(srv.Shutdown)
	inspector := asynq.NewInspectorFromRedisClient(rdb)
	testenv.Eventually(tb, 10*time.Second, "the test's worker's first heartbeat", func() bool {
		servers, err := inspector.Servers()
		return err == nil && len(servers) > 0
	})
}

// enqueue puts an overview task with task id key into the queue.
func enqueue(tb testing.TB, rdb *redis.Client, key string) {
	tb.Helper()
	task, err := jobs.NewOverviewTask(jobs.OverviewPayload{Key: key, Query: key}, time.Minute, 1)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := asynq.NewClientFromRedisClient(rdb).Enqueue(task); err != nil {
		tb.Fatal(err)
	}
}
