package overview

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/testenv"
)

// TestBurstAdmitsAtMostTheBound: N distinct misses sent at once through
// two web processes (two Services on one Redis) against KISA_QUEUE_MAX=K,
// with no worker taking tasks, enqueue exactly K visits; every other
// request is refused as Overloaded (503 with Retry-After) without waiting,
// and the K admitted ones wait out their timeout.
func TestBurstAdmitsAtMostTheBound(t *testing.T) {
	const n, bound = 12, 3
	rdb := testenv.Redis(t)
	inspector := asynq.NewInspectorFromRedisClient(rdb)
	web := func() *Service {
		return New(Options{Results: testenv.Results(t, rdb, "test:"), Client: asynq.NewClientFromRedisClient(rdb),
			Inspector: asynq.NewInspectorFromRedisClient(rdb), QueueMax: bound,
			Timing: Timing{Wait: 2 * time.Second, Visit: time.Second, MaxRetry: 1}})
	}
	webs := []*Service{web(), web()}
	overloaded, timedOut := burst(t, n, func(i int) error {
		req := Request{Query: fmt.Sprintf("burst %d %s", i, testenv.RandomHex(4)), Country: "us", Language: "en",
			CacheOn: true, CacheTTL: 60}
		_, err := webs[i%2].Run(context.Background(), req, nil)
		return err
	})
	q, err := inspector.GetQueueInfo(jobs.QueueOverview)
	if err != nil {
		t.Fatal(err)
	}
	if timedOut != bound || overloaded != n-bound || q.Pending != bound {
		t.Errorf("%d admitted (timed out), %d refused, %d tasks pending; want %d, %d, %d",
			timedOut, overloaded, q.Pending, bound, n-bound, bound)
	}
}

// TestAssistantsQueueHasItsOwnBound: the AI assistants' queue is bounded
// on its own, AssistantTasksPerSlot per live slot (one slot while no
// worker is seen yet), so a burst of assistant requests is refused past
// it while an overview is still admitted: a slow engine's backlog never
// turns the other surfaces away.
func TestAssistantsQueueHasItsOwnBound(t *testing.T) {
	const n = 2 * AssistantTasksPerSlot
	rdb := testenv.Redis(t)
	inspector := asynq.NewInspectorFromRedisClient(rdb)
	s := New(Options{Results: testenv.Results(t, rdb, "test:"), Client: asynq.NewClientFromRedisClient(rdb),
		Inspector: inspector, Timing: Timing{Wait: 2 * time.Second, Visit: time.Second, MaxRetry: 1}})
	overloaded, timedOut := burst(t, n, func(i int) error {
		req := Request{Surface: kisa.SurfaceChatGPT, Query: fmt.Sprintf("burst %d %s", i, testenv.RandomHex(4)),
			Country: "us", Language: "en", CacheOn: true, CacheTTL: 60}
		_, err := s.Run(context.Background(), req, nil)
		return err
	})
	q, err := inspector.GetQueueInfo(jobs.QueueAssistants)
	if err != nil {
		t.Fatal(err)
	}
	if timedOut != AssistantTasksPerSlot || overloaded != n-AssistantTasksPerSlot || q.Pending != AssistantTasksPerSlot {
		t.Errorf("%d admitted (timed out), %d refused, %d assistant tasks pending; want %d, %d, %d",
			timedOut, overloaded, q.Pending, AssistantTasksPerSlot, n-AssistantTasksPerSlot, AssistantTasksPerSlot)
	}
	_, err = s.Run(context.Background(), Request{Query: "an overview beside them " + testenv.RandomHex(4), Country: "us",
		Language: "en", CacheOn: true, CacheTTL: 60}, nil)
	if !errors.Is(err, kisa.TimedOut) {
		t.Errorf("an overview beside the full assistants' queue: %v, want admitted (and timed out: no worker)", err)
	}
}

// burst runs request(i) for i in [0, n) all at once, and counts the
// requests refused as Overloaded and those admitted (TimedOut: no worker
// takes their tasks); any other answer fails the test.
func burst(t *testing.T, n int, request func(i int) error) (overloaded, timedOut int) {
	t.Helper()
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = request(i)
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		switch {
		case errors.Is(err, kisa.Overloaded):
			overloaded++
		case errors.Is(err, kisa.TimedOut):
			timedOut++
		default:
			t.Errorf("request %d: %v, want Overloaded or TimedOut", i, err)
		}
	}
	return overloaded, timedOut
}
