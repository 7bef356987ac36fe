// Package overview is the AI overview use case, between the API and the
// queue: it answers a Request from the result cache, or enqueues one
// browser task per distinct request (joining one already in flight),
// waits for its outcome and assembles the answer with freshly presigned
// screenshot URLs and the selected fields. Failures are kisa.Failure
// errors; the API maps them to HTTP.
package overview

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// Service runs AI overview requests.
type Service struct {
	results   *storage.Results
	client    *asynq.Client
	inspector *asynq.Inspector
	shots     *storage.Artifacts
	timing    Timing
	gate      *gate
	log       *slog.Logger
	rendered  *renderings
}

// Options are the dependencies of a Service. A nil Logger discards, a nil
// Now is time.Now.
type Options struct {
	Results   *storage.Results
	Client    *asynq.Client
	Inspector *asynq.Inspector
	Artifacts *storage.Artifacts
	Timing    Timing
	// QueueMax is the most pending overview tasks before new visits are
	// refused (KISA_QUEUE_MAX); 0 is TasksPerSlot per live worker slot.
	QueueMax int
	Logger   *slog.Logger
	Now      func() time.Time
}

// New returns the overview service.
func New(o Options) *Service {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{results: o.Results, client: o.Client, inspector: o.Inspector, shots: o.Artifacts,
		timing: o.Timing, gate: newGate(o.Inspector, o.QueueMax, o.Now), log: o.Logger, rendered: newRenderings(o.Now)}
}

// Answer is the response's `data` (spec 4.5).
type Answer struct {
	IsCached       bool            `json:"isCached"`
	CacheExpiresIn *int            `json:"cacheExpiresIn"`
	Results        json.RawMessage `json:"results"` // encoded, see Trim
}

// Slot is a caller's limit on its requests that wait for a visit at once
// (KISA_LIMIT_CONCURRENT): Run takes one place on a cache miss, before it
// waits, and calls release when done. Its error is returned as it is (a
// kisa.Limited failure when the caller has no place left).
type Slot func(ctx context.Context) (release func(), err error)

// Run answers req from the cache, or from a (possibly shared) visit; a
// request that waits for a visit first takes a place of slot (nil: no
// limit). A miss reads the cache once. Its errors carry a
// kisa.Failure: slot's own, Unavailable for the cache, the queue or
// storage, or the browser when no worker is alive (backpressure.go),
// Overloaded when the queue is full, TimedOut when no outcome came within
// Timing.Wait, and the visit's own failure.
func (s *Service) Run(ctx context.Context, req Request, slot Slot) (Answer, error) {
	key := req.Key()
	if a, ok, err := s.fromCache(ctx, req, key); ok || err != nil {
		return a, err
	}
	if slot != nil {
		release, err := slot(ctx)
		if err != nil {
			return Answer{}, err
		}
		defer release()
	}
	ctx, cancel := context.WithTimeout(ctx, s.timing.Wait)
	defer cancel()
	w, err := s.results.Subscribe(ctx, key)
	if err != nil {
		return Answer{}, kisa.Fail(kisa.Unavailable, kisa.PartQueue, err)
	}
	defer w.Close()
	res, err := s.visit(ctx, w, key, req)
	if err != nil {
		return Answer{}, err
	}
	if req.RawHTML && res.RawHTML == "" { // the worker could not store it
		return Answer{}, kisa.Fail(kisa.Unavailable, kisa.PartStorage, errors.New("the page's HTML was not stored"))
	}
	// The worker has cached the result for the ttl it knew of; this
	// request may have joined too late to tell it its own.
	if req.CacheOn {
		if err := s.results.Store(ctx, key, res, time.Duration(req.CacheTTL)*time.Second); err != nil {
			s.log.WarnContext(ctx, "cache write failed", "error", err)
		}
	}
	return s.answer(ctx, req, res, false, nil)
}

// visit is the result of a visit for a cache-on request that missed: the
// one that ended and was cached between its look at the cache and the
// subscription w (its outcome is still Recent, and a second visit would
// read the page twice), else runJob's.
func (s *Service) visit(ctx context.Context, w *storage.Waiter, key string, req Request) (kisa.Result, error) {
	if req.CacheOn {
		if out, ok, err := s.results.Recent(ctx, key); err == nil && ok && out.Cached && out.Result != nil {
			return *out.Result, nil
		}
	}
	return s.runJob(ctx, w, key, req)
}

// fromCache answers from the cache when caching is on and key is there.
// A hit on the same cached bytes and selection as a recent one reuses
// that answer's encoded results.
func (s *Service) fromCache(ctx context.Context, req Request, key string) (Answer, bool, error) {
	if !req.CacheOn {
		return Answer{}, false, nil
	}
	b, left, ok, err := s.results.CachedBytes(ctx, key)
	if err != nil {
		return Answer{}, false, kisa.Fail(kisa.Unavailable, kisa.PartCache, err)
	}
	if !ok {
		return Answer{}, false, nil
	}
	secs := int(math.Ceil(left.Seconds()))
	rk := renderKey(key, req)
	if results, ok := s.rendered.get(rk, b); ok {
		traceHit(ctx, req)
		return Answer{IsCached: true, CacheExpiresIn: &secs, Results: results}, true, nil
	}
	var res kisa.Result
	if err := storage.DecodeResult(b, &res); err != nil {
		return Answer{}, false, kisa.Fail(kisa.Unavailable, kisa.PartCache, err)
	}
	if req.RawHTML && res.RawHTML == "" { // a result stored before raw HTML was kept
		return Answer{}, false, nil
	}
	a, err := s.answer(ctx, req, res, true, &secs)
	if err == nil {
		s.rendered.put(rk, b, a.Results)
		traceHit(ctx, req)
	}
	return a, true, err
}

// runJob enqueues the task for key (or joins the one in flight) and waits
// on w for its outcome until ctx ends.
func (s *Service) runJob(ctx context.Context, w *storage.Waiter, key string, req Request) (kisa.Result, error) {
	if err := s.admit(key); err != nil {
		return kisa.Result{}, err
	}
	joined, err := s.enqueue(ctx, key, req)
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
// the task for key is in flight already: joining it costs nothing.
func (s *Service) admit(key string) error {
	err := s.gate.admit()
	if err == nil {
		return nil
	}
	info, ierr := s.inspector.GetTaskInfo(jobs.QueueOverview, key)
	if ierr == nil && info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted {
		return nil
	}
	return err
}

// outcome is a job's result, or its failure as an error.
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
func (s *Service) enqueue(ctx context.Context, key string, req Request) (joined bool, err error) {
	p := jobs.OverviewPayload{Key: key, Query: req.Query, CountryCode: req.Country,
		LanguageCode: req.Language, Screenshots: req.Screenshots, Run: uuid.NewString(),
		Surface: req.Surface, FollowUps: req.FollowUps}
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
	task, err := jobs.NewOverviewTask(p, s.timing.Task(), s.timing.MaxRetry)
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
		info, ierr := s.inspector.GetTaskInfo(jobs.QueueOverview, key)
		if ierr != nil {
			traceVisit(ctx, key, "", true, req)
			return true, nil // it ended meanwhile: its outcome is Recent
		}
		if info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted {
			s.wish(ctx, req, info)
			traceVisit(ctx, key, runOf(info), true, req)
			return true, nil
		}
		if derr := s.inspector.DeleteTask(jobs.QueueOverview, key); derr != nil && !errors.Is(derr, asynq.ErrTaskNotFound) {
			return false, derr
		}
	}
	traceVisit(ctx, key, "", true, req)
	return true, nil
}

// wish records a cache-on request's ttl for the run of the task it
// joined, so that the worker caches the result even if this request gives
// up first. A failure only costs that: it is logged.
func (s *Service) wish(ctx context.Context, req Request, info *asynq.TaskInfo) {
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

// answer builds the response data: presigned screenshot and raw HTML URLs
// (valid for at least URLTTL, also from the cache; one signature is
// shared for a minute, see storage.SharedURL) and the fields the request
// selected.
func (s *Service) answer(ctx context.Context, req Request, res kisa.Result, cached bool, left *int) (Answer, error) {
	results := Results(req, res)
	if req.Screenshots {
		urls := map[string]string{}
		for _, name := range req.Surface.ShotNames() {
			obj, ok := res.Screenshots[name]
			if !ok {
				return Answer{}, kisa.Fail(kisa.Internal, "", errors.New("result lacks screenshot "+name))
			}
			u, err := s.shots.SharedURL(ctx, obj, URLTTL)
			if err != nil {
				return Answer{}, kisa.Fail(kisa.Unavailable, kisa.PartStorage, err)
			}
			urls[name] = u
		}
		results["screenshots"] = urls
	}
	if req.RawHTML && req.Fields.RawHTML && res.RawHTML != "" {
		u, err := s.shots.SharedURL(ctx, res.RawHTML, URLTTL)
		if err != nil {
			return Answer{}, kisa.Fail(kisa.Unavailable, kisa.PartStorage, err)
		}
		results["rawHtml"] = u
	}
	enc, err := encodeResults(results)
	if err != nil {
		return Answer{}, kisa.Fail(kisa.Internal, "", err)
	}
	return Answer{IsCached: cached, CacheExpiresIn: left, Results: enc}, nil
}
