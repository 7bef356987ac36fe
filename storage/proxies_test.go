package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// TestProxyRotation checks the shared choice of proxies: least recently used
// first, a cooling proxy skipped until its cooldown ends, none when all
// cool down, and two rotations on one Redis sharing the state.
func TestProxyRotation(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	prefix := "test-" + testenv.RandomHex(4) + ":"
	a := storage.NewProxyRotation(rdb, prefix, time.Hour)
	b := storage.NewProxyRotation(rdb, prefix, time.Hour)
	pick := func(r *storage.ProxyRotation, pool string) int {
		t.Helper()
		i, ok, err := r.Pick(ctx, pool, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return -1
		}
		return i
	}
	// The scores are Redis' clock in milliseconds: each pick waits for it
	// to move on, so that no two picks tie.
	redisMs := func() int64 {
		t.Helper()
		now, err := rdb.Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		return now.UnixMilli()
	}
	pickNext := func(r *storage.ProxyRotation, pool string) int {
		t.Helper()
		at := redisMs()
		testenv.Eventually(t, 5*time.Second, "Redis' clock to pass a millisecond", func() bool { return redisMs() > at })
		return pick(r, pool)
	}
	var got []int
	for _, r := range []*storage.ProxyRotation{a, b, a, b} {
		got = append(got, pickNext(r, "de"))
	}
	if err := a.Cool(ctx, "de", 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got = append(got, pickNext(b, "de"))
	}
	for _, i := range []int{0, 2} {
		if err := b.Cool(ctx, "de", i); err != nil {
			t.Fatal(err)
		}
	}
	got = append(got, pickNext(a, "de"), pickNext(a, "at"))
	want := []int{0, 1, 2, 0, 2, 0, 2, -1, 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("picks (-want +got):\n%s", diff)
	}

	const cooldown = 50 * time.Millisecond
	short := storage.NewProxyRotation(rdb, prefix, cooldown)
	if err := short.Cool(ctx, "fr", 0); err != nil {
		t.Fatal(err)
	}
	cooled := redisMs() // proxy 0 cools until this + cooldown at the latest
	if i := pickNext(short, "fr"); i != 1 {
		t.Errorf("pick with proxy 0 cooling = %d, want 1", i)
	}
	testenv.Eventually(t, 5*time.Second, "proxy 0's cooldown to end on Redis' clock", func() bool {
		return redisMs() >= cooled+cooldown.Milliseconds()
	})
	var after []int
	for range 3 {
		after = append(after, pickNext(short, "fr"))
	}
	// Proxy 0 is back, counted as used when its cooldown ended.
	if diff := cmp.Diff([]int{2, 1, 0}, after); diff != "" {
		t.Errorf("picks after the cooldown (-want +got):\n%s", diff)
	}
}
