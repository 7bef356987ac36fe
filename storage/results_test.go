package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/testenv"
)

// TestStoreKeepsLongestTTL checks that storing a result again never
// shortens what is cached.
func TestStoreKeepsLongestTTL(t *testing.T) {
	r := testenv.Results(t, testenv.Redis(t), "test:")
	ctx := context.Background()
	tests := []struct {
		name   string
		stores []time.Duration
		want   time.Duration
	}{
		{"one store", []time.Duration{time.Minute}, time.Minute},
		{"longer wins", []time.Duration{time.Minute, time.Hour}, time.Hour},
		{"shorter does not shorten", []time.Duration{time.Hour, time.Minute}, time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := "k-" + testenv.RandomHex(4)
			for _, ttl := range tt.stores {
				if err := r.Store(ctx, key, kisa.Result{}, ttl); err != nil {
					t.Fatal(err)
				}
			}
			_, left, ok, err := r.Cached(ctx, key)
			if err != nil || !ok {
				t.Fatalf("cached %v, err %v", ok, err)
			}
			if got := left.Round(time.Minute); got != tt.want {
				t.Errorf("left %v, want %v", got, tt.want)
			}
		})
	}
}

// TestWishes checks that the longest wish of a run is kept and read once.
func TestWishes(t *testing.T) {
	r := testenv.Results(t, testenv.Redis(t), "test:")
	ctx := context.Background()
	for _, ttl := range []time.Duration{time.Minute, time.Hour, 2 * time.Minute} {
		if err := r.Wish(ctx, "run1", ttl); err != nil {
			t.Fatal(err)
		}
	}
	var got []time.Duration
	for range 2 {
		d, err := r.Wished(ctx, "run1")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, d)
	}
	if diff := cmp.Diff([]time.Duration{time.Hour, 0}, got); diff != "" {
		t.Errorf("Wished (-want +got):\n%s", diff)
	}
}
