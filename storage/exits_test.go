package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// TestExitRotation checks the shared choice of exits: least recently used
// first, a cooling exit skipped until its cooldown ends, none when all
// cool down, and two rotations on one Redis sharing the state.
func TestExitRotation(t *testing.T) {
	rdb := testenv.Redis(t)
	ctx := context.Background()
	prefix := "test-" + testenv.RandomHex(4) + ":"
	a := storage.NewExitRotation(rdb, prefix, time.Hour)
	b := storage.NewExitRotation(rdb, prefix, time.Hour)
	pick := func(r *storage.ExitRotation, pool string) int {
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
	var got []int
	for _, r := range []*storage.ExitRotation{a, b, a, b} {
		got = append(got, pick(r, "de"))
		time.Sleep(2 * time.Millisecond) // the scores are milliseconds
	}
	if err := a.Cool(ctx, "de", 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		got = append(got, pick(b, "de"))
		time.Sleep(2 * time.Millisecond)
	}
	for _, i := range []int{0, 2} {
		if err := b.Cool(ctx, "de", i); err != nil {
			t.Fatal(err)
		}
	}
	got = append(got, pick(a, "de"), pick(a, "at"))
	want := []int{0, 1, 2, 0, 2, 0, 2, -1, 0}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("picks (-want +got):\n%s", diff)
	}

	short := storage.NewExitRotation(rdb, prefix, 50*time.Millisecond)
	if err := short.Cool(ctx, "fr", 0); err != nil {
		t.Fatal(err)
	}
	if i := pick(short, "fr"); i != 1 {
		t.Errorf("pick with exit 0 cooling = %d, want 1", i)
	}
	time.Sleep(100 * time.Millisecond)
	var after []int
	for range 3 {
		after = append(after, pick(short, "fr"))
		time.Sleep(2 * time.Millisecond)
	}
	// Exit 0 is back, counted as used when its cooldown ended.
	if diff := cmp.Diff([]int{2, 1, 0}, after); diff != "" {
		t.Errorf("picks after the cooldown (-want +got):\n%s", diff)
	}
}
