package overview

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/testenv"
)

// cacheReads counts the reads of cached results ("get" of a cache: key)
// that pass through a Redis client, pipelined or not.
type cacheReads struct{ n atomic.Int64 }

func (c *cacheReads) count(cmds ...redis.Cmder) {
	for _, cmd := range cmds {
		if args := cmd.Args(); cmd.Name() == "get" && len(args) > 1 && strings.Contains(args[1].(string), ":cache:") {
			c.n.Add(1)
		}
	}
}

func (c *cacheReads) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *cacheReads) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.count(cmd); return next(ctx, cmd) }
}

func (c *cacheReads) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.count(cmds...); return next(ctx, cmds) }
}

// serviceUnderTest is a Service on the test Redis whose cache reads are
// counted; finish plays the worker for one task: it waits for the task
// of key, caches a result and publishes it.
func serviceUnderTest(t *testing.T) (svc *Service, reads *cacheReads, finish func(key string)) {
	t.Helper()
	rdb := testenv.Redis(t)
	reads = &cacheReads{}
	rdb.AddHook(reads)
	results := testenv.Results(t, rdb, "test:")
	inspector := asynq.NewInspectorFromRedisClient(rdb)
	svc = New(Options{Results: results, Client: asynq.NewClientFromRedisClient(rdb), Inspector: inspector,
		Timing: Timing{Wait: time.Minute, Visit: 30 * time.Second, MaxRetry: 1}})
	finish = func(key string) {
		testenv.Eventually(t, 10*time.Second, "the visit's task", func() bool {
			_, err := inspector.GetTaskInfo(jobs.QueueOverview, key)
			return err == nil
		})
		res := kisa.Result{Overview: kisa.Overview{HasOverview: true, Complete: true, Text: "blue"}, TakenAt: time.Now().UTC()}
		ctx := context.Background()
		if err := results.Store(ctx, key, res, time.Hour); err != nil {
			t.Error(err)
		}
		if err := results.Publish(ctx, key, jobs.Outcome{Result: &res, Cached: true}); err != nil {
			t.Error(err)
		}
	}
	return svc, reads, finish
}

// TestRunMissReadsCacheOnce: a miss reads the cache once, takes its slot
// only then and frees it when answered; the hit that follows takes no
// slot.
func TestRunMissReadsCacheOnce(t *testing.T) {
	svc, reads, finish := serviceUnderTest(t)
	req := Request{Query: "why is the sky blue " + testenv.RandomHex(4), Country: "us", Language: "en", CacheOn: true, CacheTTL: 3600}
	var held, released atomic.Int64
	slot := func(context.Context) (func(), error) {
		held.Add(1)
		return func() { released.Add(1) }, nil
	}
	go finish(req.Key())
	a, err := svc.Run(context.Background(), req, slot)
	if err != nil {
		t.Fatal(err)
	}
	if a.IsCached || !strings.Contains(string(a.Results), "blue") {
		t.Errorf("miss answered %+v, want the visit's result, not cached", a)
	}
	if n := reads.n.Load(); n != 1 {
		t.Errorf("a miss read the cache %d times, want once", n)
	}
	if held.Load() != 1 || released.Load() != 1 {
		t.Errorf("slot taken %d and released %d times on a miss, want once each", held.Load(), released.Load())
	}
	a, err = svc.Run(context.Background(), req, slot)
	if err != nil || !a.IsCached {
		t.Fatalf("second request: %+v, %v; want a cache hit", a, err)
	}
	if held.Load() != 1 {
		t.Errorf("a cache hit took a slot")
	}
}

// TestRunSlotRefused: a miss whose caller has no slot left gets the
// slot's failure, and no visit is enqueued.
func TestRunSlotRefused(t *testing.T) {
	svc, _, _ := serviceUnderTest(t)
	req := Request{Query: "refused " + testenv.RandomHex(4), Country: "us", Language: "en", CacheOn: true, CacheTTL: 60}
	full := kisa.Fail(kisa.Limited, "", errors.New("no slot left"))
	_, err := svc.Run(context.Background(), req, func(context.Context) (func(), error) { return nil, full })
	if !errors.Is(err, kisa.Limited) {
		t.Fatalf("Run = %v, want the slot's Limited failure", err)
	}
	if _, err := svc.visits.inspector.GetTaskInfo(jobs.QueueOverview, req.Key()); err == nil {
		t.Error("a visit was enqueued for a request refused its slot")
	}
}
