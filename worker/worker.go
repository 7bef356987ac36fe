// Package worker is the browser side of the service: an asynq server
// whose handler visits a results page in a pool of Chromium tabs,
// extracts the AI overview, stores the screenshots in MinIO and tells the
// waiting API requests the outcome through Redis.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/worker/browser"
	"github.com/kisa-dev/kisa/worker/serp"
)

// Handler runs overview tasks.
type Handler struct {
	pool      *browser.Pool
	shots     *storage.Screenshots
	results   *storage.Results
	searchURL *url.URL
	log       *slog.Logger
	now       func() time.Time
}

// HandlerOptions are the dependencies of a Handler.
type HandlerOptions struct {
	Pool        *browser.Pool
	Screenshots *storage.Screenshots
	Results     *storage.Results
	SearchURL   string
	Logger      *slog.Logger
	Now         func() time.Time
}

// NewHandler returns the task handler; it fails when SearchURL is not a URL.
func NewHandler(o HandlerOptions) (*Handler, error) {
	u, err := url.Parse(o.SearchURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("search URL %q is not a URL", o.SearchURL)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Handler{pool: o.Pool, shots: o.Screenshots, results: o.Results, searchURL: u, log: o.Logger, now: o.Now}, nil
}

// ProcessTask visits the page of one overview task and publishes the
// outcome. A CAPTCHA is final (asynq.SkipRetry); a browser or storage
// failure is retried, and told to the waiting requests only on the last try.
func (h *Handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	var p jobs.OverviewPayload
	if err := decodePayload(t, &p); err != nil {
		return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
	}
	log := h.log.With("task", p.Key)
	start := h.now()
	res, err := h.visit(ctx, p)
	if err != nil {
		return h.fail(ctx, log, p.Key, err)
	}
	if err := h.results.Publish(ctx, p.Key, jobs.Outcome{Result: &res}); err != nil {
		return err
	}
	log.Info("overview done", "has_overview", res.Overview.HasOverview,
		"sources", len(res.Overview.Sources), "duration", h.now().Sub(start))
	return nil
}

// visit opens the page, extracts the overview and stores the screenshots.
func (h *Handler) visit(ctx context.Context, p jobs.OverviewPayload) (jobs.OverviewResult, error) {
	v, err := h.pool.Visit(ctx, browser.VisitRequest{URL: h.pageURL(p), Screenshots: p.Screenshots,
		Language: p.LanguageCode})
	if err != nil {
		return jobs.OverviewResult{}, err
	}
	ov, err := serp.Extract(v.HTML)
	if err != nil {
		return jobs.OverviewResult{}, fmt.Errorf("%w: extract: %v", asynq.SkipRetry, err)
	}
	res := jobs.OverviewResult{Overview: ov, TakenAt: h.now().UTC()}
	if p.Screenshots {
		res.Screenshots, err = h.storeShots(ctx, p.Key, v.Screenshots)
		if err != nil {
			return jobs.OverviewResult{}, err
		}
	}
	return res, nil
}

// pageURL is the search URL with the task's query, country and language.
func (h *Handler) pageURL(p jobs.OverviewPayload) string {
	u := *h.searchURL
	q := u.Query()
	q.Set("q", p.Query)
	q.Set("gl", p.CountryCode)
	q.Set("hl", p.LanguageCode)
	u.RawQuery = q.Encode()
	return u.String()
}

// storeShots uploads the three PNGs under a name of their own and returns
// their object keys.
func (h *Handler) storeShots(ctx context.Context, key string, shots map[string][]byte) (map[string]string, error) {
	prefix := fmt.Sprintf("%s/%s/%s/", h.now().UTC().Format("2006-01-02"), key, uuid.NewString())
	out := map[string]string{}
	for _, name := range []string{jobs.ShotInitial, jobs.ShotAfterLoad, jobs.ShotAfterExpand} {
		png, ok := shots[name]
		if !ok {
			return nil, fmt.Errorf("%w: browser returned no %s screenshot", asynq.SkipRetry, name)
		}
		obj := prefix + name + ".png"
		if err := h.shots.Put(ctx, obj, png); err != nil {
			return nil, fmt.Errorf("%w: %v", errStorage, err)
		}
		out[name] = obj
	}
	return out, nil
}

var errStorage = errors.New("screenshot storage unavailable")

// fail publishes a failure when it is final (no retry left, or not
// retryable) and returns err for asynq.
func (h *Handler) fail(ctx context.Context, log *slog.Logger, key string, err error) error {
	code, final := classify(ctx, err)
	log.Warn("overview failed", "error", err, "code", code, "final", final)
	if !final {
		return err
	}
	msg := map[string]string{jobs.CodeBlocked: "blocked by the search engine",
		jobs.CodeUnavailable: "browser or storage unavailable", jobs.CodeInternal: "internal error"}[code]
	if perr := h.results.Publish(context.WithoutCancel(ctx), key, jobs.Outcome{Error: msg, Code: code}); perr != nil {
		log.Error("publish failure", "error", perr)
	}
	if code == jobs.CodeBlocked {
		return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
	}
	return err
}

// classify names a failure and says whether no retry will follow.
func classify(ctx context.Context, err error) (code string, final bool) {
	retried, _ := asynq.GetRetryCount(ctx)
	max, _ := asynq.GetMaxRetry(ctx)
	last := retried >= max
	switch {
	case errors.Is(err, browser.ErrBlocked):
		return jobs.CodeBlocked, true
	case errors.Is(ctx.Err(), context.Canceled):
		// The worker is shutting down: asynq puts the task back.
		return jobs.CodeUnavailable, false
	case errors.Is(err, asynq.SkipRetry):
		return jobs.CodeInternal, true
	default:
		return jobs.CodeUnavailable, last
	}
}

// ServerOptions configure the asynq server of a worker process.
type ServerOptions struct {
	Concurrency int // must equal the browser's tab count
	Logger      *slog.Logger
}

// NewServer returns the asynq server for overview tasks. It polls every
// 50 ms so that a free worker picks a job up at once, and retries after
// short delays, since an API request waits for the job.
func NewServer(rdb *redis.Client, o ServerOptions) *asynq.Server {
	return asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency:              o.Concurrency,
		Queues:                   map[string]int{jobs.QueueOverview: 1},
		TaskCheckInterval:        50 * time.Millisecond,
		DelayedTaskCheckInterval: 500 * time.Millisecond,
		ShutdownTimeout:          10 * time.Second,
		RetryDelayFunc: func(n int, _ error, _ *asynq.Task) time.Duration {
			return min(time.Second<<n, 10*time.Second)
		},
		Logger:   slogAdapter{o.Logger},
		LogLevel: asynq.WarnLevel,
	})
}

// Mux routes the overview task type to h.
func Mux(h *Handler) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.Handle(jobs.TypeOverview, h)
	return mux
}
