// Package overview is the AI overview use case, between the API and the
// queue: it answers a Request from the result cache, or enqueues one
// browser task per distinct request (joining one already in flight,
// visits.go), waits for its outcome and assembles the answer with freshly
// presigned screenshot URLs and the selected fields (service.go); async
// jobs (jobs.go); and the one path of a finished visit, which the worker
// takes (finish.go). Failures are kisa.Failure errors; the API maps them
// to HTTP.
package overview

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
)

// Service runs synchronous AI overview requests: the web side.
type Service struct {
	results  *storage.Results
	visits   *Visits
	shots    *storage.Artifacts
	log      *slog.Logger
	rendered *renderings
}

// Options are the dependencies of a Service. Visits is the visit queue
// it shares with Jobs; when nil, New makes one of Results, Client,
// Inspector, Timing and QueueMax. A nil Logger discards, a nil Now is
// time.Now.
type Options struct {
	Visits    *Visits
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
	if o.Visits == nil {
		o.Visits = NewVisits(VisitsOptions{Results: o.Results, Client: o.Client, Inspector: o.Inspector,
			Timing: o.Timing, QueueMax: o.QueueMax, Logger: o.Logger, Now: o.Now})
	}
	return &Service{results: o.Visits.results, visits: o.Visits, shots: o.Artifacts, log: o.Logger, rendered: newRenderings(o.Now)}
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
	ctx, cancel := context.WithTimeout(ctx, s.visits.timing.Of(req.Surface).Wait)
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
		keep(ctx, s.results, s.log, key, res, time.Duration(req.CacheTTL)*time.Second)
	}
	return answer(ctx, s.shots, req, res, false, nil)
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
	return s.visits.await(ctx, w, key, req)
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
	a, err := answer(ctx, s.shots, req, res, true, &secs)
	if err == nil {
		s.rendered.put(rk, b, a.Results)
		traceHit(ctx, req)
	}
	return a, true, err
}

// answer builds the response data: presigned screenshot and raw HTML URLs
// in shots (valid for at least URLTTL, also from the cache; one signature
// is shared for a minute, see storage.SharedURL) and the fields the
// request selected.
func answer(ctx context.Context, shots *storage.Artifacts, req Request, res kisa.Result, cached bool, left *int) (Answer, error) {
	results := Results(req, res)
	if req.Screenshots {
		urls := map[string]string{}
		for _, name := range req.Surface.ShotNames() {
			obj, ok := res.Screenshots[name]
			if !ok {
				return Answer{}, kisa.Fail(kisa.Internal, "", errors.New("result lacks screenshot "+name))
			}
			u, err := shots.SharedURL(ctx, obj, URLTTL)
			if err != nil {
				return Answer{}, kisa.Fail(kisa.Unavailable, kisa.PartStorage, err)
			}
			urls[name] = u
		}
		results["screenshots"] = urls
	}
	if req.RawHTML && req.Fields.RawHTML && res.RawHTML != "" {
		u, err := shots.SharedURL(ctx, res.RawHTML, URLTTL)
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
