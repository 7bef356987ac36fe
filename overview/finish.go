package overview

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// Finisher is the one path of a finished visit: the worker tells it when
// a visit begins (Started) and how it ended (Finish). It is the worker's
// side of the use case; the web's Service and Jobs share only the
// pieces that a request or job arriving just after a visit needs.
type Finisher struct {
	results *storage.Results
	db      *storage.DB   // nil: no async jobs are kept
	client  *asynq.Client // enqueues the webhooks of ended jobs
	log     *slog.Logger
}

// FinisherOptions are the dependencies of a Finisher. DB nil keeps no
// async jobs (a test of the worker alone); a nil Logger discards.
type FinisherOptions struct {
	Results *storage.Results
	DB      *storage.DB
	Client  *asynq.Client
	Logger  *slog.Logger
}

// NewFinisher returns the finishing path.
func NewFinisher(o FinisherOptions) *Finisher {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Finisher{results: o.Results, db: o.DB, client: o.Client, log: o.Logger}
}

// Started marks the queued async jobs of key running; the worker calls it
// when a visit begins. Errors are the database's.
func (f *Finisher) Started(ctx context.Context, key string) error {
	if f.db == nil {
		return nil
	}
	return f.db.StartJobs(ctx, key)
}

// Finish ends the visit of the task p with its outcome, in this order:
//
//  1. a result is cached for the longest ttl that a request waiting on it
//     asked for: the task's own and the wishes of the requests that joined
//     it (storage.Results.Wished), so that it is not lost when they all
//     gave up waiting; a visit only cache-off requests wanted is not cached;
//  2. the outcome is published to the waiting requests (and stays readable
//     as Recent for a few seconds, for those that join just as it ends);
//  3. the async jobs waiting on it end (endJobs).
//
// It returns the error of publishing, for the caller to retry the task; a
// failure to cache or to end the jobs is logged (the maintenance task
// starts a new visit for jobs left open).
func (f *Finisher) Finish(ctx context.Context, p jobs.OverviewPayload, out jobs.Outcome) error {
	log := f.log.With("task", p.Key)
	if out.Result != nil {
		out.Cached = keep(ctx, f.results, log, p.Key, *out.Result, f.longestWish(ctx, log, p))
	}
	err := f.results.Publish(ctx, p.Key, out)
	if jerr := f.endJobs(ctx, p.Key, out); jerr != nil {
		log.ErrorContext(ctx, "finish jobs", "error", jerr)
	}
	return err
}

// longestWish is the longest cache ttl asked for the task p: its own, or
// a wish of a request that joined its run.
func (f *Finisher) longestWish(ctx context.Context, log *slog.Logger, p jobs.OverviewPayload) time.Duration {
	ttl := time.Duration(p.CacheTTL) * time.Second
	if p.Run != "" {
		wished, err := f.results.Wished(ctx, p.Run)
		if err != nil {
			log.WarnContext(ctx, "read cache wishes", "error", err)
		}
		ttl = max(ttl, wished)
	}
	return ttl
}

// keep caches res under key for ttl (never shortening what is cached);
// it reports whether res is cached. A ttl of 0 caches nothing; a failure
// is logged, since whoever waits still gets the result.
func keep(ctx context.Context, results *storage.Results, log *slog.Logger, key string, res kisa.Result, ttl time.Duration) bool {
	if ttl <= 0 {
		return false
	}
	if err := results.Store(ctx, key, res, ttl); err != nil {
		log.WarnContext(ctx, "cache write failed", "task", key, "error", err)
		return false
	}
	return true
}

// endJobs ends every open job of key with a visit's outcome: it stores
// the result, caches it for the longest ttl of the jobs that asked for
// caching (a job stored after its wish could be told), then enqueues the
// webhooks of the jobs and of the batches that are now complete. Errors
// are the database's.
func (f *Finisher) endJobs(ctx context.Context, key string, out jobs.Outcome) error {
	if f.db == nil {
		return nil
	}
	end := storage.JobEnd{Failure: string(out.Failure), Part: string(out.Part)}
	if out.Result != nil {
		b, err := json.Marshal(out.Result)
		if err != nil {
			return err
		}
		end = storage.JobEnd{Result: b}
	}
	if out.Result == nil && end.Failure == "" {
		end.Failure = string(kisa.Internal)
	}
	rows, err := f.db.FinishJobs(ctx, key, end)
	if err != nil {
		return err
	}
	if out.Result != nil {
		keep(ctx, f.results, f.log, key, *out.Result, longestJobTTL(rows))
	}
	f.ended(ctx, rows)
	return nil
}

// longestJobTTL is the longest cache ttl of the jobs that asked for
// caching; 0 when none did.
func longestJobTTL(rows []storage.Job) time.Duration {
	ttl := 0
	for _, r := range rows {
		var req RequestView
		if json.Unmarshal(r.Request, &req) == nil && req.Cache.Enabled {
			ttl = max(ttl, req.Cache.TTL)
		}
	}
	return time.Duration(ttl) * time.Second
}

// ended enqueues the webhooks of jobs that have just ended, and of their
// batches that have now ended as a whole (each batch once).
func (f *Finisher) ended(ctx context.Context, rows []storage.Job) {
	var batches []uuid.UUID
	for _, r := range rows {
		if r.URL != nil {
			event := jobs.EventDone
			if r.Status == storage.JobFailed {
				event = jobs.EventFailed
			}
			f.enqueueWebhook(ctx, jobs.WebhookPayload{Event: event, JobID: r.ID})
		}
		if r.BatchID != nil {
			batches = append(batches, *r.BatchID)
		}
	}
	done, err := f.db.EndBatches(ctx, batches)
	if err != nil {
		f.log.WarnContext(ctx, "end batches", "error", err)
	}
	for _, b := range done {
		if b.URL != nil {
			f.enqueueWebhook(ctx, jobs.WebhookPayload{Event: jobs.EventBatchDone, BatchID: b.ID})
		}
	}
}

func (f *Finisher) enqueueWebhook(ctx context.Context, p jobs.WebhookPayload) {
	t, err := jobs.NewWebhookTask(p)
	if err == nil {
		_, err = f.client.EnqueueContext(ctx, t)
	}
	if err != nil {
		f.log.WarnContext(ctx, "enqueue webhook", "event", p.Event, "job", p.JobID, "batch", p.BatchID, "error", err)
	}
}
