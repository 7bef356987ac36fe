package overview

import (
	"strings"
	"testing"
	"time"
)

func TestTimingValidate(t *testing.T) {
	tests := []struct {
		name    string
		timing  Timing
		wantErr string
	}{
		{"defaults", Timing{Wait: 60 * time.Second, Visit: 45 * time.Second, MaxRetry: 2}, ""},
		{"wait exactly one attempt", Timing{Wait: 20 * time.Second, Visit: 5 * time.Second}, ""},
		{"wait shorter than one attempt", Timing{Wait: 30 * time.Second, Visit: 45 * time.Second},
			"KISA_OVERVIEW_TIMEOUT (30s) must be at least KISA_VISIT_TIMEOUT (45s) + 15s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.timing.Validate()
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("Validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	var got []time.Duration
	for n := range 6 {
		got = append(got, Timing{}.RetryDelay(n))
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("RetryDelay(0..5) = %v, want %v", got, want)
		}
	}
}
