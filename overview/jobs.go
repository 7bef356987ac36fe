package overview

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// ScreenshotLife is how long after a visit a job lists its screenshots.
// The bucket keeps objects ScreenshotExpiryDays (2) days; a URL handed
// out is valid for URLTTL (24 h), so the last one must be handed out 24 h
// before the object goes. Past it, the job says screenshotsExpired.
const ScreenshotLife = storage.ScreenshotExpiryDays*24*time.Hour - URLTTL

// Jobs is the async use case: jobs stored in PostgreSQL for an account,
// run by the same coalesced browser task as synchronous requests, ended
// by the worker, announced by signed webhooks and removed after their
// retention.
type Jobs struct {
	visits    *Visits
	finish    *Finisher
	shots     *storage.Artifacts
	db        *storage.DB
	secrets   *storage.Secrets
	http      *http.Client
	retention time.Duration
	now       func() time.Time
	log       *slog.Logger
}

// JobsOptions are the dependencies of Jobs: Visits, the visit queue it
// shares with the web's Service, and Artifacts, which presigns results'
// URLs. Secrets and HTTP are needed by the worker side only (webhook
// deliveries): HTTP is the guarded client of webhook.Guard.Client.
type JobsOptions struct {
	Visits    *Visits
	Artifacts *storage.Artifacts
	DB        *storage.DB
	Secrets   *storage.Secrets
	HTTP      *http.Client
	Retention time.Duration // KISA_JOB_RETENTION
	Now       func() time.Time
	Logger    *slog.Logger // nil discards
}

// NewJobs returns the async use case.
func NewJobs(o JobsOptions) *Jobs {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	j := &Jobs{visits: o.Visits, shots: o.Artifacts, db: o.DB, secrets: o.Secrets, http: o.HTTP,
		retention: o.Retention, now: o.Now, log: o.Logger}
	if o.Visits != nil {
		j.finish = NewFinisher(FinisherOptions{Results: o.Visits.results, DB: o.DB, Client: o.Visits.client, Logger: o.Logger})
	}
	return j
}

// Submission is one job to submit: a validated request and, optionally,
// the webhook URL (checked by the caller with webhook.Guard).
type Submission struct {
	Request    Request
	WebhookURL string
}

// Submit stores a job for account and starts its visit (or joins the one
// in flight); a request the cache answers is done at once. Errors carry a
// kisa.Failure: Unavailable for the cache or the database.
func (j *Jobs) Submit(ctx context.Context, account uuid.UUID, sub Submission) (Job, error) {
	rows, err := j.submit(ctx, account, uuid.Nil, "", []Submission{sub})
	if err != nil {
		return Job{}, err
	}
	return j.Get(ctx, account, rows[0].ID)
}

// SubmitBatch stores a batch of jobs for account, all or none, and starts
// their visits. webhookURL ("" for none) is told once when every job of
// the batch has ended; each job's own webhook is its Submission's.
func (j *Jobs) SubmitBatch(ctx context.Context, account uuid.UUID, subs []Submission, webhookURL string) (Batch, error) {
	batch, err := uuid.NewV7()
	if err != nil {
		return Batch{}, kisa.Fail(kisa.Internal, "", err)
	}
	if _, err := j.submit(ctx, account, batch, webhookURL, subs); err != nil {
		return Batch{}, err
	}
	return j.GetBatch(ctx, account, batch)
}

func (j *Jobs) submit(ctx context.Context, account, batch uuid.UUID, batchWebhook string, subs []Submission) ([]storage.Job, error) {
	news := make([]storage.NewJob, 0, len(subs))
	for _, sub := range subs {
		n, err := j.newJob(ctx, sub)
		if err != nil {
			return nil, err
		}
		news = append(news, n)
	}
	rows, err := j.db.CreateJobs(ctx, account, batch, optional(batchWebhook), news)
	if err != nil {
		return nil, kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
	}
	var ended []storage.Job
	started := map[string]bool{}
	for i, r := range rows {
		if r.Status != storage.JobQueued {
			ended = append(ended, r)
			continue
		}
		if !started[r.Key] {
			started[r.Key] = true
			j.start(ctx, r.Key, subs[i].Request)
		} else {
			traceVisit(ctx, r.Key, "", true, subs[i].Request)
		}
	}
	j.finish.ended(ctx, ended)
	return rows, nil
}

// newJob makes the row of one submission: done at once from the cache
// when caching is on and the key is there, queued otherwise.
func (j *Jobs) newJob(ctx context.Context, sub Submission) (storage.NewJob, error) {
	req := sub.Request
	id, err := uuid.NewV7()
	if err != nil {
		return storage.NewJob{}, kisa.Fail(kisa.Internal, "", err)
	}
	view, err := json.Marshal(req.View())
	if err != nil {
		return storage.NewJob{}, kisa.Fail(kisa.Internal, "", err)
	}
	n := storage.NewJob{ID: id, Key: req.Key(), Request: view, Status: storage.JobQueued, WebhookURL: optional(sub.WebhookURL)}
	if !req.CacheOn {
		return n, nil
	}
	res, left, ok, err := j.visits.results.Cached(ctx, n.Key)
	if err != nil {
		return n, kisa.Fail(kisa.Unavailable, kisa.PartCache, err)
	}
	if ok {
		traceHit(ctx, req)
		secs := int(math.Ceil(left.Seconds()))
		n.Status, n.IsCached, n.CacheExpiresIn = storage.JobDone, true, &secs
		if n.Result, err = json.Marshal(res); err != nil {
			return n, kisa.Fail(kisa.Internal, "", err)
		}
	}
	return n, nil
}

// start enqueues the visit of key, or joins the one in flight. Jobs that
// joined a visit which ended just before they were stored end with its
// recent outcome (the worker's Finisher no longer sees them). When the
// queue does not answer, the jobs stay queued and the maintenance task
// starts their visit later: nothing is lost.
func (j *Jobs) start(ctx context.Context, key string, req Request) {
	joined, err := j.visits.enqueue(ctx, key, req)
	if err != nil {
		j.log.WarnContext(ctx, "enqueue job; the maintenance task will retry", "task", key, "error", err)
		return
	}
	if !joined {
		return
	}
	if out, ok, err := j.visits.results.Recent(ctx, key); err == nil && ok {
		if err := j.finish.endJobs(ctx, key, out); err != nil {
			j.log.WarnContext(ctx, "finish joined job", "task", key, "error", err)
		}
	}
}

// Get returns one of the account's jobs with its result, screenshot URLs
// presigned afresh. A job of another account is a kisa.NotFound failure,
// as is one that does not exist.
func (j *Jobs) Get(ctx context.Context, account, id uuid.UUID) (Job, error) {
	r, err := j.db.Job(ctx, account, id)
	if err != nil {
		return Job{}, dbFailure(err)
	}
	return j.view(ctx, r)
}

// ListQuery selects a page of jobs: Status ("" for any), at most Limit,
// after Cursor ("" from the newest).
type ListQuery struct {
	Status string
	Limit  int
	Cursor string
}

// List returns a page of the account's jobs, newest first. A cursor it
// did not make is a kisa.Invalid failure of the field cursor.
func (j *Jobs) List(ctx context.Context, account uuid.UUID, q ListQuery) (JobPage, error) {
	var after *storage.JobCursor
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor)
		if err != nil {
			return JobPage{}, err
		}
		after = &c
	}
	rows, err := j.db.ListJobs(ctx, account, q.Status, after, q.Limit+1)
	if err != nil {
		return JobPage{}, kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
	}
	page := JobPage{Jobs: make([]Job, 0, len(rows))}
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		next := encodeCursor(rows[len(rows)-1])
		page.NextCursor = &next
	}
	for _, r := range rows {
		v, err := j.view(ctx, r)
		if err != nil {
			return JobPage{}, err
		}
		page.Jobs = append(page.Jobs, v)
	}
	return page, nil
}

// GetBatch returns one of the account's batches, or a kisa.NotFound
// failure.
func (j *Jobs) GetBatch(ctx context.Context, account, id uuid.UUID) (Batch, error) {
	b, rows, err := j.db.Batch(ctx, account, id)
	if err != nil {
		return Batch{}, dbFailure(err)
	}
	return batchViewOrFail(b, rows)
}

func batchViewOrFail(b storage.Batch, rows []storage.Job) (Batch, error) {
	v, err := batchView(b, rows)
	if err != nil {
		return Batch{}, kisa.Fail(kisa.Internal, "", err)
	}
	return v, nil
}

// view renders a stored job: the result as the synchronous call's data,
// or the failure's message.
func (j *Jobs) view(ctx context.Context, r storage.Job) (Job, error) {
	var req RequestView
	if err := json.Unmarshal(r.Request, &req); err != nil {
		return Job{}, kisa.Fail(kisa.Internal, "", fmt.Errorf("job %s request: %w", r.ID, err))
	}
	v := Job{ID: r.ID.String(), Status: r.Status, Request: req, CreatedAt: stamp(r.CreatedAt),
		StartedAt: stampPtr(r.StartedAt), FinishedAt: stampPtr(r.FinishedAt), Webhook: webhookView(r.Delivery)}
	if r.BatchID != nil {
		b := r.BatchID.String()
		v.BatchID = &b
	}
	switch r.Status {
	case storage.JobDone:
		return j.withResult(ctx, v, r)
	case storage.JobFailed:
		f, part := kisa.Internal, kisa.Part("")
		if r.Failure != nil {
			f = kisa.Failure(*r.Failure)
		}
		if r.FailedPart != nil {
			part = kisa.Part(*r.FailedPart)
		}
		retry := f.Retryable()
		v.Error, v.Retryable = kisa.Describe(f, part), &retry
	}
	return v, nil
}

// withResult adds a done job's result, its screenshots (and raw HTML)
// presigned now, or marked expired past ScreenshotLife: the objects live
// as long as each other.
func (j *Jobs) withResult(ctx context.Context, v Job, r storage.Job) (Job, error) {
	var res kisa.Result
	if err := json.Unmarshal(r.Result, &res); err != nil {
		return Job{}, kisa.Fail(kisa.Internal, "", fmt.Errorf("job %s result: %w", r.ID, err))
	}
	req := v.Request.Request()
	if (req.Screenshots || req.RawHTML) && j.now().Sub(res.TakenAt) >= ScreenshotLife {
		req.Screenshots, req.RawHTML, v.ScreenshotsExpired = false, false, true
	}
	a, err := answer(ctx, j.shots, req, res, r.IsCached, r.CacheExpiresIn)
	if err != nil {
		return Job{}, err
	}
	v.Result = &a
	return v, nil
}

// Maintain is the periodic task: it removes the jobs created more than
// the retention ago, and starts again the visits of jobs still open a
// period after they were created whose task is gone (a web process that
// died between storing a job and enqueueing it, a worker that died
// between its visit and ending the jobs). An enqueue joins a task that
// is still there, so a running visit is never doubled.
func (j *Jobs) Maintain(ctx context.Context) error {
	now := j.now()
	n, err := j.db.DeleteJobsBefore(ctx, now.Add(-j.retention))
	if err != nil {
		return err
	}
	if n > 0 {
		j.log.InfoContext(ctx, "expired jobs removed", "jobs", n)
	}
	stale, err := j.db.StaleJobs(ctx, now.Add(-jobs.MaintenanceEvery))
	if err != nil {
		return err
	}
	for _, s := range stale {
		var req RequestView
		if err := json.Unmarshal(s.Request, &req); err != nil {
			j.log.ErrorContext(ctx, "stale job request", "task", s.Key, "error", err)
			continue
		}
		if _, err := j.visits.enqueue(ctx, s.Key, req.Request()); err != nil {
			return err
		}
	}
	return nil
}

// dbFailure is err of a database read as a failure: the one it carries
// (kisa.NotFound, or kisa.Unavailable when PostgreSQL did not answer),
// else kisa.Unavailable of the database.
func dbFailure(err error) error {
	if f, _ := kisa.FailureOf(err); f != kisa.Internal {
		return err
	}
	return kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
