package overview

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
)

// Backpressure (spec 7: 503): a request that would enqueue a new visit is
// refused at once, instead of waiting out its timeout, when its queue's
// bound of visits are pending already (tasks in the queue, and visits
// other requests were admitted to and are enqueueing: one atomic step in
// Redis, storage.Results.Admit, so a burst across any number of web
// processes admits at most QueueMax) or when no worker has been alive for
// NoWorkerGrace. Cache hits and requests that join a visit in flight are
// still served. Each queue (jobs.QueueOverview, jobs.QueueAssistants) has
// a gate of its own: a slow AI assistant's backlog never refuses an
// overview, nor the other way round.
const (
	// TasksPerSlot is the automatic queue bound per live worker slot (a
	// browser tab of a running `kisa worker`): a visit takes about 5 s,
	// so 24 pending tasks are about two minutes of work for one slot.
	TasksPerSlot = 24
	// AssistantTasksPerSlot is the same bound for the AI assistants'
	// queue: their answers take 10 to 60 s, so 4 pending tasks are about
	// two minutes of work for one of their tabs.
	AssistantTasksPerSlot = 4
	// NoWorkerGrace is how long the service goes on enqueueing while it
	// sees no live worker: a worker that restarts, or a web process that
	// starts first, does not turn requests away.
	NoWorkerGrace = 30 * time.Second
	// loadTTL is how long one look at the queue and the workers is reused
	// for the automatic bound, the live workers and Fresh's room, so that
	// these cost a few Redis calls per second at most.
	loadTTL = time.Second
	// admissionHold is how long an admission counts when its request
	// never says it enqueued (its process died): far longer than an
	// enqueue takes.
	admissionHold = 10 * time.Second
)

// load is what the gate knows of the queue and the workers.
type load struct {
	pending int       // pending tasks of the gate's queue
	slots   int       // concurrency of the live workers of the gate's queue
	at      time.Time // when it was read
}

// gate decides whether a new visit of its queue may be enqueued. It reads
// the workers through the asynq Inspector at most once per loadTTL, and
// admits each visit in Redis.
type gate struct {
	queue     string
	inspector *asynq.Inspector
	results   *storage.Results
	queueMax  int // 0: perSlot per live slot
	perSlot   int
	now       func() time.Time
	log       *slog.Logger

	mu       sync.Mutex
	last     load
	lastSeen time.Time // when a live worker was last seen (start: the gate's creation)
}

// newGate returns the gate of queue: at most queueMax pending visits, or
// (queueMax 0) perSlot per live worker slot of the queue.
func newGate(queue string, perSlot int, inspector *asynq.Inspector, results *storage.Results, queueMax int, now func() time.Time, log *slog.Logger) *gate {
	return &gate{queue: queue, perSlot: perSlot, inspector: inspector, results: results, queueMax: queueMax,
		now: now, log: log, lastSeen: now()}
}

// admit admits a new visit whose task will have id, or fails: kisa.Unavailable (the browser) when
// no worker has been alive for NoWorkerGrace, kisa.Overloaded when the
// bound's visits are pending. Call enqueued once the visit's task is in
// the queue (or was not enqueued). When Redis cannot be read it admits:
// enqueueing then reports what is wrong.
func (g *gate) admit(ctx context.Context, id string) (enqueued func(), err error) {
	none := func() {}
	l, err := g.load()
	if err != nil {
		return none, nil
	}
	g.mu.Lock()
	lastSeen := g.lastSeen
	g.mu.Unlock()
	if l.slots == 0 && l.at.Sub(lastSeen) > NoWorkerGrace {
		return nil, kisa.Fail(kisa.Unavailable, kisa.PartBrowser,
			fmt.Errorf("no worker alive since %s", lastSeen.Format(time.RFC3339)))
	}
	bound := g.max(l.slots)
	ok, pending, err := g.results.Admit(ctx, g.queue, id, bound, admissionHold)
	if err != nil {
		return none, nil
	}
	if !ok {
		return nil, kisa.Fail(kisa.Overloaded, kisa.PartQueue,
			fmt.Errorf("%d visits pending, at most %d", pending, bound))
	}
	return func() {
		if err := g.results.Enqueued(context.WithoutCancel(ctx), g.queue, id); err != nil {
			g.log.WarnContext(ctx, "end a visit's admission (it lapses by itself)", "error", err)
		}
	}, nil
}

// max is the queue bound for slots live worker slots. While no worker is
// seen (within NoWorkerGrace) the automatic bound counts one slot, so that
// requests sent before the first worker is up wait for it instead of
// being refused as if the queue were full.
func (g *gate) max(slots int) int {
	if g.queueMax > 0 {
		return g.queueMax
	}
	return g.perSlot * max(slots, 1)
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
		if _, ok := s.Queues[g.queue]; ok && s.Status == "active" {
			l.slots += s.Concurrency
		}
	}
	// A queue that never held a task does not exist yet: it is empty.
	queues, err := g.inspector.Queues()
	if err != nil || !slices.Contains(queues, g.queue) {
		return l, err
	}
	q, err := g.inspector.GetQueueInfo(g.queue)
	if err != nil {
		return load{}, err
	}
	l.pending = q.Pending
	return l, nil
}
