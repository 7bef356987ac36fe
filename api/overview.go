package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// taskMargin is what a task may take beyond its browser visit: storing
// the screenshots and publishing the outcome.
const taskMargin = 30 * time.Second

// ScreenshotURLTTL is how long a screenshot URL stays valid (spec 4.5 rule 2).
const ScreenshotURLTTL = 24 * time.Hour

// Overviews runs AI overview requests: it answers from the cache, or
// enqueues one task per distinct request and waits for its outcome.
type Overviews struct {
	results   *storage.Results
	client    *asynq.Client
	inspector *asynq.Inspector
	shots     *storage.Screenshots
	wait      time.Duration
	job       time.Duration
	maxRetry  int
	log       *slog.Logger
}

// OverviewsOptions are the dependencies of Overviews.
type OverviewsOptions struct {
	Results     *storage.Results
	Client      *asynq.Client
	Inspector   *asynq.Inspector
	Screenshots *storage.Screenshots
	Wait        time.Duration // how long a request waits for its job
	JobTimeout  time.Duration // how long the worker may spend on one visit
	MaxRetry    int
	Logger      *slog.Logger
}

// NewOverviews returns the overview runner.
func NewOverviews(o OverviewsOptions) *Overviews {
	return &Overviews{results: o.Results, client: o.Client, inspector: o.Inspector, shots: o.Screenshots,
		wait: o.Wait, job: o.JobTimeout, maxRetry: o.MaxRetry, log: o.Logger}
}

// overviewData is the response's `data` (spec 4.5).
type overviewData struct {
	IsCached       bool           `json:"isCached"`
	CacheExpiresIn *int           `json:"cacheExpiresIn"`
	Results        map[string]any `json:"results"`
}

func (s *Server) overview(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		if tooLarge(err) {
			s.writeError(c, Errorf(CodeTooLarge, "request body is larger than %d bytes", MaxBodyBytes))
			return
		}
		s.writeError(c, Errorf(CodeBadRequest, "could not read the request body"))
		return
	}
	req, err := parseOverviewRequest(body)
	if err != nil {
		s.writeError(c, err)
		return
	}
	if s.opts.Overviews == nil {
		s.writeError(c, &Error{Code: CodeUnavailable, Message: "AI overviews are not available on this server", RetryAfter: 60})
		return
	}
	data, err := s.opts.Overviews.Run(c.Request.Context(), req)
	if err != nil {
		s.metrics.add("kisa_overview_requests_total", 1, "result", "failed")
		s.writeError(c, err)
		return
	}
	s.metrics.add("kisa_overview_requests_total", 1, "result", map[bool]string{true: "cached", false: "fresh"}[data.IsCached])
	writeData(c, data)
}

// CacheKey is the identity of a request: the query with case and
// whitespace folded, the country, the language and whether screenshots
// are needed. It is the cache key and the asynq task id.
func CacheKey(query, country, lang string, screenshots bool) string {
	folded := strings.ToLower(strings.Join(strings.Fields(query), " "))
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%t", folded, country, lang, screenshots))
	return "ov1-" + hex.EncodeToString(h[:16])
}

// Run answers req from the cache, or from a (possibly shared) job.
func (o *Overviews) Run(ctx context.Context, req overviewRequest) (overviewData, error) {
	key := CacheKey(req.Query, req.Country, req.Language, req.Screenshots)
	if data, ok, err := o.fromCache(ctx, req, key); ok || err != nil {
		return data, err
	}
	ctx, cancel := context.WithTimeout(ctx, o.wait)
	defer cancel()
	w, err := o.results.Subscribe(ctx, key)
	if err != nil {
		return overviewData{}, unavailable("the job queue is unavailable", err)
	}
	defer w.Close()
	// A job that ended between the first look and the subscription has
	// filled the cache: look again rather than visit the page twice.
	if data, ok, err := o.fromCache(ctx, req, key); ok || err != nil {
		return data, err
	}
	res, err := o.runJob(ctx, w, key, req)
	if err != nil {
		return overviewData{}, err
	}
	if req.CacheOn {
		if err := o.results.Store(ctx, key, res, time.Duration(req.CacheTTL)*time.Second); err != nil {
			o.log.WarnContext(ctx, "cache write failed", "error", err)
		}
	}
	return o.answer(ctx, req, res, false, nil)
}

// fromCache answers from the cache when caching is on and key is there.
func (o *Overviews) fromCache(ctx context.Context, req overviewRequest, key string) (overviewData, bool, error) {
	if !req.CacheOn {
		return overviewData{}, false, nil
	}
	res, left, ok, err := o.results.Cached(ctx, key)
	if err != nil {
		return overviewData{}, false, unavailable("the result cache is unavailable", err)
	}
	if !ok {
		return overviewData{}, false, nil
	}
	secs := int(math.Ceil(left.Seconds()))
	data, err := o.answer(ctx, req, res, true, &secs)
	return data, true, err
}

// runJob enqueues the task for key (or joins the one in flight) and waits
// on w for its outcome until ctx ends.
func (o *Overviews) runJob(ctx context.Context, w *storage.Waiter, key string, req overviewRequest) (jobs.OverviewResult, error) {
	joined, err := o.enqueue(ctx, key, req)
	if err != nil {
		return jobs.OverviewResult{}, unavailable("the job queue is unavailable", err)
	}
	if joined {
		if out, ok, err := o.results.Recent(ctx, key); err == nil && ok {
			return outcomeResult(out)
		}
	}
	out, err := w.Wait(ctx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return jobs.OverviewResult{}, &Error{Code: CodeUnavailable,
				Message: "the browser did not finish in time; try again shortly", RetryAfter: 10}
		}
		return jobs.OverviewResult{}, unavailable("the job queue is unavailable", err)
	}
	return outcomeResult(out)
}

// enqueue submits the task; joined is true when an identical task was
// already in flight. A finished or archived task of the same id is
// removed first, so a past failure does not block a new visit.
func (o *Overviews) enqueue(ctx context.Context, key string, req overviewRequest) (joined bool, err error) {
	task, err := jobs.NewOverviewTask(jobs.OverviewPayload{Key: key, Query: req.Query,
		CountryCode: req.Country, LanguageCode: req.Language, Screenshots: req.Screenshots}, o.job+taskMargin, o.maxRetry)
	if err != nil {
		return false, err
	}
	for attempt := 0; attempt < 2; attempt++ {
		_, err = o.client.EnqueueContext(ctx, task)
		if !errors.Is(err, asynq.ErrTaskIDConflict) {
			return false, err
		}
		info, ierr := o.inspector.GetTaskInfo(jobs.QueueOverview, key)
		if ierr != nil || (info.State != asynq.TaskStateArchived && info.State != asynq.TaskStateCompleted) {
			return true, nil
		}
		if derr := o.inspector.DeleteTask(jobs.QueueOverview, key); derr != nil && !errors.Is(derr, asynq.ErrTaskNotFound) {
			return false, derr
		}
	}
	return true, nil
}

// queueInfo returns the overview queue's task counts by state.
func (o *Overviews) queueInfo() (map[string]int, error) {
	q, err := o.inspector.GetQueueInfo(jobs.QueueOverview)
	if err != nil {
		return nil, err
	}
	return map[string]int{"pending": q.Pending, "active": q.Active, "scheduled": q.Scheduled,
		"retry": q.Retry, "archived": q.Archived}, nil
}

// outcomeResult turns a job's outcome into a result or an API error.
func outcomeResult(out jobs.Outcome) (jobs.OverviewResult, error) {
	switch {
	case out.Result != nil:
		return *out.Result, nil
	case out.Code == jobs.CodeBlocked:
		return jobs.OverviewResult{}, &Error{Code: CodeUnavailable,
			Message: "the search engine refused the request (CAPTCHA); try again later", RetryAfter: 300}
	case out.Code == jobs.CodeUnavailable:
		return jobs.OverviewResult{}, &Error{Code: CodeUnavailable,
			Message: "the browser or screenshot storage is unavailable; try again shortly", RetryAfter: 30}
	default:
		return jobs.OverviewResult{}, fmt.Errorf("overview job failed: %s", out.Error)
	}
}

func unavailable(msg string, cause error) error {
	return fmt.Errorf("%w (%v)", &Error{Code: CodeUnavailable, Message: msg + "; try again shortly", RetryAfter: 5}, cause)
}

// answer builds the response data: presigned screenshot URLs (fresh for
// 24 hours, also from the cache) and the fields the request selected.
func (o *Overviews) answer(ctx context.Context, req overviewRequest, res jobs.OverviewResult, cached bool, left *int) (overviewData, error) {
	results := trimOverview(res.Overview, req.Fields)
	if req.Screenshots {
		urls := map[string]string{}
		for _, name := range []string{jobs.ShotInitial, jobs.ShotAfterLoad, jobs.ShotAfterExpand} {
			obj, ok := res.Screenshots[name]
			if !ok {
				return overviewData{}, fmt.Errorf("result lacks screenshot %q", name)
			}
			u, err := o.shots.URL(ctx, obj, ScreenshotURLTTL)
			if err != nil {
				return overviewData{}, unavailable("screenshot storage is unavailable", err)
			}
			urls[name] = u
		}
		results["screenshots"] = urls
	}
	return overviewData{IsCached: cached, CacheExpiresIn: left, Results: results}, nil
}
