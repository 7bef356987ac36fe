package testenv

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// fatalTB records the message of Fatalf and ends the goroutine, as
// testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestEventually(t *testing.T) {
	calls := 0
	Eventually(t, time.Minute, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Errorf("cond called %d times, want 3 (until it holds)", calls)
	}

	never := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Eventually(never, 50*time.Millisecond, "what never happens", func() bool { return false })
	}()
	<-done
	if want := "waited 50ms for what never happens"; never.msg != want {
		t.Errorf("failure %q, want %q", never.msg, want)
	}
}
