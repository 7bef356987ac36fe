package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// TestLimiterSpend: a budget of two a minute allows two requests, then
// refuses with the time until the next one; a spend of more than is left
// is refused whole.
func TestLimiterSpend(t *testing.T) {
	l := storage.NewLimiter(testenv.Redis(t))
	ctx := context.Background()
	keys := storage.LimitKeysOf(uuid.New())
	for i := range 2 {
		r, err := l.Spend(ctx, keys.AI, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Allowed != 1 || r.Remaining != 1-i {
			t.Errorf("spend %d: %+v, want allowed with %d left", i+1, r, 1-i)
		}
	}
	r, err := l.Spend(ctx, keys.AI, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Allowed != 0 || r.RetryAfter <= 0 || r.RetryAfter > 30*time.Second {
		t.Errorf("third spend: %+v, want refused with a retry within 30s", r)
	}
	if r, err := l.Spend(ctx, keys.Other, 2, 3); err != nil || r.Allowed != 0 {
		t.Errorf("spending 3 of 2: %+v, %v; want refused", r, err)
	}
}

// TestLimiterSlots: at most limit slots are held at once, a released one
// is free again, and one never released frees itself after its hold.
func TestLimiterSlots(t *testing.T) {
	rdb := testenv.Redis(t)
	l := storage.NewLimiter(rdb)
	ctx := context.Background()
	set := storage.LimitKeysOf(uuid.New()).Concurrent
	take := func(slot string, hold time.Duration) bool {
		t.Helper()
		ok, err := l.TakeSlot(ctx, set, slot, 2, hold)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !take("a", time.Minute) || !take("b", 100*time.Millisecond) {
		t.Fatal("the first two slots were refused")
	}
	if take("c", time.Minute) {
		t.Fatal("a third slot was taken with a limit of 2")
	}
	if err := l.ReleaseSlot(ctx, set, "a"); err != nil {
		t.Fatal(err)
	}
	if !take("d", time.Minute) {
		t.Fatal("the released slot was not free")
	}
	// b is never released: once its hold passed on Redis' clock, its
	// place is free.
	testenv.Eventually(t, 5*time.Second, "the unreleased slot to free itself", func() bool { return take("e", time.Minute) })
	if !strings.HasPrefix(set, storage.KeyPrefix) {
		t.Errorf("slot set %q is not under %q", set, storage.KeyPrefix)
	}
}
