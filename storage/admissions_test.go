package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/testenv"
)

// TestAdmit: admissions and the queue's pending tasks count together
// against the bound; an admission ends when its task is enqueued, or
// lapses after its hold.
func TestAdmit(t *testing.T) {
	rdb := testenv.Redis(t)
	r := testenv.Results(t, rdb, "test-"+testenv.RandomHex(4)+":")
	ctx := context.Background()
	const queue = "admit-test"
	admit := func(id string, hold time.Duration) (bool, int) {
		t.Helper()
		ok, n, err := r.Admit(ctx, queue, id, 3, hold)
		if err != nil {
			t.Fatal(err)
		}
		return ok, n
	}
	if _, err := asynq.NewClientFromRedisClient(rdb).Enqueue(asynq.NewTask("t", nil), asynq.Queue(queue)); err != nil {
		t.Fatal(err)
	}
	if ok, n := admit("a", time.Minute); !ok || n != 1 {
		t.Errorf("first admission: %v with %d counted, want admitted with the one pending task", ok, n)
	}
	if ok, _ := admit("b", 100*time.Millisecond); !ok {
		t.Error("second admission refused")
	}
	if ok, n := admit("c", time.Minute); ok || n != 3 {
		t.Errorf("admission at the bound: %v with %d counted, want refused with 3", ok, n)
	}
	if err := r.Enqueued(ctx, queue, "a"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := admit("d", time.Minute); !ok {
		t.Error("an admission that ended still counts")
	}
	// b's hold passes on Redis' clock: its place is free.
	testenv.Eventually(t, 5*time.Second, "the lapsed admission to free its place", func() bool {
		ok, _ := admit("e", time.Minute)
		return ok
	})
}

// TestAdmitCountsAnEnqueuedVisitOnce: between its task's enqueueing and
// the end of its admission, a visit is both pending and admitted; it
// counts once, so a burst is not refused short of the bound.
func TestAdmitCountsAnEnqueuedVisitOnce(t *testing.T) {
	rdb := testenv.Redis(t)
	r := testenv.Results(t, rdb, "test-"+testenv.RandomHex(4)+":")
	ctx := context.Background()
	const queue = "admit-once-test"
	admit := func(id string) (bool, int) {
		t.Helper()
		ok, n, err := r.Admit(ctx, queue, id, 2, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok, n
	}
	if ok, _ := admit("x"); !ok {
		t.Fatal("first admission refused")
	}
	// x's task enters asynq's pending list under its id, as Enqueue puts it.
	if err := rdb.RPush(ctx, "asynq:{"+queue+"}:pending", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if ok, n := admit("y"); !ok || n != 1 {
		t.Errorf("second admission: %v with %d counted, want admitted with 1 (x once)", ok, n)
	}
	if ok, n := admit("z"); ok || n != 2 {
		t.Errorf("third admission: %v with %d counted, want refused with 2", ok, n)
	}
}
