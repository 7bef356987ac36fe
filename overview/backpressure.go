package overview

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
)

// Backpressure (spec 7: 503): a request that would enqueue a new visit is
// refused at once, instead of waiting out its timeout, when the overview
// queue already holds more than QueueMax pending tasks or when no worker
// has been alive for NoWorkerGrace. Cache hits and requests that join a
// visit in flight are still served.
const (
	// TasksPerSlot is the automatic queue bound per live worker slot (a
	// browser tab of a running `kisa worker`): a visit takes about 5 s,
	// so 24 pending tasks are about two minutes of work for one slot.
	TasksPerSlot = 24
	// NoWorkerGrace is how long the service goes on enqueueing while it
	// sees no live worker: a worker that restarts, or a web process that
	// starts first, does not turn requests away.
	NoWorkerGrace = 30 * time.Second
	// loadTTL is how long one look at the queue and the workers is reused,
	// so that the check costs a few Redis calls per second at most.
	loadTTL = time.Second
)

// load is what the gate knows of the queue and the workers.
type load struct {
	pending int       // pending overview tasks
	slots   int       // concurrency of the live workers of the overview queue
	at      time.Time // when it was read
}

// gate decides whether a new visit may be enqueued. It reads the queue
// and the workers through the asynq Inspector at most once per loadTTL.
type gate struct {
	inspector *asynq.Inspector
	queueMax  int // 0: TasksPerSlot per live slot
	now       func() time.Time

	mu       sync.Mutex
	last     load
	lastSeen time.Time // when a live worker was last seen (start: the gate's creation)
}

func newGate(inspector *asynq.Inspector, queueMax int, now func() time.Time) *gate {
	return &gate{inspector: inspector, queueMax: queueMax, now: now, lastSeen: now()}
}

// admit returns nil when a new visit may be enqueued: a kisa.Overloaded
// failure when the queue is full, kisa.Unavailable (the browser) when no
// worker has been alive for NoWorkerGrace. When the queue cannot be read
// it admits: enqueueing then reports what is wrong.
func (g *gate) admit() error {
	l, err := g.load()
	if err != nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if l.slots == 0 && l.at.Sub(g.lastSeen) > NoWorkerGrace {
		return kisa.Fail(kisa.Unavailable, kisa.PartBrowser,
			fmt.Errorf("no worker alive since %s", g.lastSeen.Format(time.RFC3339)))
	}
	if max := g.max(l.slots); l.pending > max {
		return kisa.Fail(kisa.Overloaded, kisa.PartQueue,
			fmt.Errorf("%d tasks pending, at most %d", l.pending, max))
	}
	return nil
}

// max is the queue bound for slots live worker slots. While no worker is
// seen (within NoWorkerGrace) the automatic bound counts one slot, so that
// requests sent before the first worker is up wait for it instead of
// being refused as if the queue were full.
func (g *gate) max(slots int) int {
	if g.queueMax > 0 {
		return g.queueMax
	}
	return TasksPerSlot * max(slots, 1)
}

// load returns the queue and workers as read at most loadTTL ago.
func (g *gate) load() (load, error) {
	now := g.now()
	g.mu.Lock()
	if !g.last.at.IsZero() && now.Sub(g.last.at) < loadTTL {
		defer g.mu.Unlock()
		return g.last, nil
	}
	g.mu.Unlock()
	l, err := g.read(now)
	if err != nil {
		return l, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.last = l
	if l.slots > 0 {
		g.lastSeen = now
	}
	return l, nil
}

// read asks Redis for the pending tasks and the live workers' slots.
func (g *gate) read(now time.Time) (load, error) {
	servers, err := g.inspector.Servers()
	if err != nil {
		return load{}, err
	}
	l := load{at: now}
	for _, s := range servers {
		if _, ok := s.Queues[jobs.QueueOverview]; ok && s.Status == "active" {
			l.slots += s.Concurrency
		}
	}
	// A queue that never held a task does not exist yet: it is empty.
	queues, err := g.inspector.Queues()
	if err != nil || !slices.Contains(queues, jobs.QueueOverview) {
		return l, err
	}
	q, err := g.inspector.GetQueueInfo(jobs.QueueOverview)
	if err != nil {
		return load{}, err
	}
	l.pending = q.Pending
	return l, nil
}
