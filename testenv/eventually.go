package testenv

import (
	"testing"
	"time"
)

// Eventually waits for an event that a test cannot be told of directly:
// it calls cond until it returns true, first at once and then at growing
// intervals (10 ms up to 250 ms), and fails the test with what when
// timeout passes first. cond runs on the test's goroutine and may itself
// fail the test.
func Eventually(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for pause := 10 * time.Millisecond; !cond(); pause = min(2*pause, 250*time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("waited %s for %s", timeout, what)
		}
		time.Sleep(pause)
	}
}
