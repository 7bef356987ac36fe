package overview

import (
	"cmp"
	"fmt"
	"time"

	"github.com/kisa-dev/kisa"
)

// TaskMargin is what a task may take beyond its browser visit: storing
// the screenshots and publishing the outcome.
const TaskMargin = 15 * time.Second

// URLTTL is how long a screenshot URL stays valid (spec 4.5 rule 2).
const URLTTL = 24 * time.Hour

// Timing is every deadline and retry count of an overview, decided in one
// place (config.Config.Timing) and used by both the web and the worker
// processes.
type Timing struct {
	// Wait is how long a request waits for its job (KISA_OVERVIEW_TIMEOUT).
	Wait time.Duration
	// Visit is how long one browser visit may take (KISA_VISIT_TIMEOUT).
	Visit time.Duration
	// MaxRetry is how often a failed visit is retried (KISA_TASK_MAX_RETRY).
	MaxRetry int
	// AssistantWait and AssistantVisit are Wait and Visit for the AI
	// assistants' surfaces (KISA_ASSISTANT_TIMEOUT,
	// KISA_ASSISTANT_VISIT_TIMEOUT): their answers take 10 to 60 s each.
	// Zero: Wait and Visit.
	AssistantWait, AssistantVisit time.Duration
}

// Task is the asynq deadline of one attempt: the visit plus TaskMargin.
func (t Timing) Task() time.Duration { return t.Visit + TaskMargin }

// Of returns the timing of surface s: t itself, or for an assistant
// with AssistantWait and AssistantVisit as its Wait and Visit.
func (t Timing) Of(s kisa.Surface) Timing {
	if s.Assistant() {
		t.Wait, t.Visit = cmp.Or(t.AssistantWait, t.Wait), cmp.Or(t.AssistantVisit, t.Visit)
	}
	return t
}

// RetryDelay is how long the worker waits before retrying a task that
// has been retried n times so far (asynq's RetryDelayFunc): 1 s, doubling,
// at most 10 s; short, since a request is waiting.
func (Timing) RetryDelay(n int) time.Duration {
	return min(time.Second<<min(n, 4), 10*time.Second)
}

// Validate refuses timings in which a waiting request would give up
// before one attempt of the worker can finish.
func (t Timing) Validate() error {
	if t.Wait < t.Task() {
		return fmt.Errorf("KISA_OVERVIEW_TIMEOUT (%s) must be at least KISA_VISIT_TIMEOUT (%s) + %s, the time one attempt of the worker may take; otherwise requests give up while their visit still runs",
			t.Wait, t.Visit, TaskMargin)
	}
	if a := t.Of(kisa.SurfaceChatGPT); a.Wait < a.Task() {
		return fmt.Errorf("KISA_ASSISTANT_TIMEOUT (%s) must be at least KISA_ASSISTANT_VISIT_TIMEOUT (%s) + %s, the time one attempt of the worker may take",
			a.Wait, a.Visit, TaskMargin)
	}
	return nil
}
