package overview

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// Visits is the queue of browser visits, which the web's Service and
// Jobs and the worker's monitor readings (Fresh) share: it enqueues the
// task of a request, or joins the one in flight for the same key and
// records the request's cache wish for it; it refuses a new visit under
// backpressure (backpressure.go); and it waits for a visit's outcome.
type Visits struct {
	results   *storage.Results
	client    *asynq.Client
	inspector *asynq.Inspector
	timing    Timing
	gates     map[string]*gate // by queue
	log       *slog.Logger
}

// VisitsOptions are the dependencies of Visits. A nil Logger discards, a
// nil Now is time.Now.
type VisitsOptions struct {
	Results   *storage.Results
	Client    *asynq.Client
	Inspector *asynq.Inspector
	Timing    Timing
	// QueueMax is the most pending overview tasks before new visits are
	// refused (KISA_QUEUE_MAX); 0 is TasksPerSlot per live worker slot.
	// The AI assistants' queue is bounded by AssistantTasksPerSlot per
	// live slot of its own.
	QueueMax int
	Logger   *slog.Logger
	Now      func() time.Time
}

// NewVisits returns the visit queue.
func NewVisits(o VisitsOptions) *Visits {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Visits{results: o.Results, client: o.Client, inspector: o.Inspector, timing: o.Timing,
		gates: map[string]*gate{
			jobs.QueueOverview:   newGate(jobs.QueueOverview, TasksPerSlot, o.Inspector, o.Results, o.QueueMax, o.Now, o.Logger),
			jobs.QueueAssistants: newGate(jobs.QueueAssistants, AssistantTasksPerSlot, o.Inspector, o.Results, 0, o.Now, o.Logger),
		}, log: o.Logger}
}

// gateOf returns the gate of queue (the overview's for a queue it does
// not know).
func (s *Visits) gateOf(queue string) *gate {
	if g, ok := s.gates[queue]; ok {
		return g
	}
	return s.gates[jobs.QueueOverview]
}

// await enqueues the task for key (or joins the one in flight) and waits
// on w for its outcome until ctx ends.
func (s *Visits) await(ctx context.Context, w *storage.Waiter, key string, req Request) (kisa.Result, error) {
	admitted, err := s.admit(ctx, key, jobs.QueueOf(req.Surface))
	if err != nil {
		return kisa.Result{}, err
	}
	joined, err := s.enqueue(ctx, key, req)
	admitted()
	if err != nil {
		return kisa.Result{}, kisa.Fail(kisa.Unavailable, kisa.PartQueue, err)
	}
	if joined {
		if out, ok, err := s.results.Recent(ctx, key); err == nil && ok {
			return outcome(out)
		}
	}
	out, err := w.Wait(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return kisa.Result{}, kisa.Fail(kisa.TimedOut, kisa.PartBrowser, err)
	}
	if err != nil {
		return kisa.Result{}, kisa.Fail(kisa.Unavailable, kisa.PartQueue, err)
	}
	return outcome(out)
}

// admit refuses a new visit under backpressure (see gate.admit), unless
// the task for key is in flight already: joining it costs nothing. Call
// enqueued once the task is enqueued (or joined, or not enqueued).
func (s *Visits) admit(ctx context.Context, key, queue string) (enqueued func(), err error) {
	enqueued, err = s.gateOf(queue).admit(ctx, key) // the task's id
	if err == nil {
		return enqueued, nil
	}
	info, ierr := s.inspector.GetTaskInfo(queue, key)
	if ierr == nil && info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted {
		return func() {}, nil
	}
	return nil, err
}

// outcome is a visit's result, or its failure as an error.
func outcome(out jobs.Outcome) (kisa.Result, error) {
	if err := out.Err(); err != nil {
		return kisa.Result{}, err
	}
	return *out.Result, nil
}

// enqueue submits the task; joined is true when an identical task was
// already in flight, and then a cache-on request records its ttl for the
// worker (wish). A finished or archived task of the same id is removed
// first, so a past failure does not block a new visit.
func (s *Visits) enqueue(ctx context.Context, key string, req Request) (joined bool, err error) {
	p := jobs.OverviewPayload{Key: key, Query: req.Query, CountryCode: req.Country,
		LanguageCode: req.Language, Screenshots: req.Screenshots, Run: uuid.NewString(),
		Surface: req.Surface, FollowUps: req.FollowUps, WebSearch: req.WebSearch && req.Surface == kisa.SurfaceChatGPT}
	if req.Device == kisa.DeviceMobile {
		p.Device = kisa.DeviceMobile
	}
	if !req.Location.IsZero() {
		loc := req.Location
		p.Location = &loc
	}
	if req.CacheOn {
		p.CacheTTL = req.CacheTTL
	}
	task, err := jobs.NewOverviewTask(p, s.timing.Of(req.Surface).Task(), s.timing.MaxRetry)
	if err != nil {
		return false, err
	}
	for range 2 {
		_, err = s.client.EnqueueContext(ctx, task)
		if !errors.Is(err, asynq.ErrTaskIDConflict) {
			if err == nil {
				traceVisit(ctx, key, p.Run, false, req)
			}
			return false, err
		}
		info, ierr := s.inspector.GetTaskInfo(jobs.QueueOf(req.Surface), key)
		if ierr != nil {
			traceVisit(ctx, key, "", true, req)
			return true, nil // it ended meanwhile: its outcome is Recent
		}
		if info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted {
			s.wish(ctx, req, info)
			traceVisit(ctx, key, runOf(info), true, req)
			return true, nil
		}
		if derr := s.inspector.DeleteTask(jobs.QueueOf(req.Surface), key); derr != nil && !errors.Is(derr, asynq.ErrTaskNotFound) {
			return false, derr
		}
	}
	traceVisit(ctx, key, "", true, req)
	return true, nil
}

// wish records a cache-on request's ttl for the run of the task it
// joined, so that the worker caches the result even if this request gives
// up first. A failure only costs that: it is logged.
func (s *Visits) wish(ctx context.Context, req Request, info *asynq.TaskInfo) {
	if !req.CacheOn {
		return
	}
	p, err := jobs.ParseOverviewPayload(asynq.NewTask(info.Type, info.Payload))
	if err == nil && p.Run != "" && p.CacheTTL < req.CacheTTL {
		err = s.results.Wish(ctx, p.Run, time.Duration(req.CacheTTL)*time.Second)
	}
	if err != nil {
		s.log.WarnContext(ctx, "cache wish not recorded", "error", err)
	}
}
