// Package worker is the browser side of the service: an asynq server
// whose handler visits a results page in a pool of Chromium tabs,
// extracts the AI overview, stores the screenshots in MinIO and ends the
// visit through overview.Finisher (the cache, the waiting requests, the
// async jobs).
package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/worker/browser"
)

// Handler runs overview tasks.
type Handler struct {
	pool      *browser.Pool
	shots     *storage.Artifacts
	finish    *overview.Finisher
	searchURL *url.URL
	sites     map[kisa.Surface]site
	proxies   proxies.Set
	rotation  *storage.ProxyRotation
	onProxy   func(proxy, outcome string)
	log       *slog.Logger
	now       func() time.Time
	observer  TaskObserver
	visits    *observe.Writer[storage.ObservedVisit]
	// assistantVisit bounds an assistant's visit (0: the browser's own).
	assistantVisit time.Duration
}

// HandlerOptions are the dependencies of a Handler.
type HandlerOptions struct {
	Pool *browser.Pool
	// Artifacts is the bucket of screenshots, raw HTML and evidence.
	Artifacts *storage.Artifacts
	// Finisher is the one path of a finished visit (overview.Finisher):
	// it caches the result, publishes the outcome to the waiting
	// requests and ends the async jobs waiting on it.
	Finisher  *overview.Finisher
	SearchURL string
	// Sites are the AI assistants' sites by surface (KISA_CHATGPT_URL,
	// ...): a surface without one is refused as a bug (kisa.Internal).
	Sites map[kisa.Surface]Site
	// AssistantVisit bounds an assistant's visit (KISA_ASSISTANT_VISIT_TIMEOUT);
	// 0 leaves it to the browser's VisitTimeout.
	AssistantVisit time.Duration
	// Proxies are the proxies by country (KISA_PROXIES); empty connects
	// directly. Rotation, needed with proxies, shares their use between
	// workers.
	Proxies  proxies.Set
	Rotation *storage.ProxyRotation
	// CountProxy, when set, is told each visit through a proxy: its
	// host:port and ProxyOK or the visit's failure. It must not block.
	CountProxy func(proxy, outcome string)
	Logger     *slog.Logger // nil discards
	Now        func() time.Time
	Observer   TaskObserver // told how each attempt ended
	// Visits records each attempt for the observations (observations.go);
	// nil records none.
	Visits *observe.Writer[storage.ObservedVisit]
}

// Site is an AI assistant's site: the start page its visits open, and
// the domains (with their subdomains) its pages may reach besides that
// page's host.
type Site struct {
	URL        string
	AllowHosts []string
}

// site is a Site with its URL parsed.
type site struct {
	url   *url.URL
	allow []string
}

// NewHandler returns the task handler; it fails when SearchURL or a
// site's URL is not a URL, Artifacts or Observer is missing, or proxies
// are configured without a Rotation.
func NewHandler(o HandlerOptions) (*Handler, error) {
	u, err := url.Parse(o.SearchURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("search URL %q is not a URL", o.SearchURL)
	}
	sites := map[kisa.Surface]site{}
	for s, st := range o.Sites {
		su, err := url.Parse(st.URL)
		if err != nil || su.Host == "" {
			return nil, fmt.Errorf("%s URL %q is not a URL", s, st.URL)
		}
		sites[s] = site{url: su, allow: append([]string{}, st.AllowHosts...)}
	}
	if o.Artifacts == nil || o.Observer == nil || o.Finisher == nil {
		return nil, errors.New("worker: a handler needs Artifacts, a Finisher and an Observer")
	}
	if !o.Proxies.Empty() && o.Rotation == nil {
		return nil, errors.New("worker: proxies need a Rotation")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{pool: o.Pool, shots: o.Artifacts, finish: o.Finisher, searchURL: u, sites: sites, assistantVisit: o.AssistantVisit, proxies: o.Proxies,
		rotation: o.Rotation, onProxy: o.CountProxy, log: o.Logger, now: o.Now, observer: o.Observer, visits: o.Visits}, nil
}

// ProcessTask visits the page of one overview task and publishes the
// outcome. A CAPTCHA or a bug is final (asynq.SkipRetry); an unavailable
// browser or storage, or a visit past its deadline, is retried, and told
// to the waiting requests only on the last try.
func (h *Handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.ParseOverviewPayload(t)
	if err != nil {
		return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
	}
	// The task id is a hash of the query (the cache key): the query's
	// text is logged at debug level only.
	log := h.log.With("task", p.Key)
	log.Debug("overview task", "query", p.Query, "country", p.CountryCode, "language", p.LanguageCode)
	start := h.now()
	if err := h.finish.Started(ctx, p.Key); err != nil {
		log.Warn("mark jobs running", "error", err)
	}
	if err := h.knows(p.Surface); err != nil {
		return h.fail(ctx, log, p, kisa.Fail(kisa.Internal, "", err))
	}
	steps := map[string]time.Duration{}
	res, err := h.visit(ctx, log, p, steps)
	h.observe(ctx, p.Surface, start, res, err, steps)
	h.recordVisit(ctx, p, start, err, steps)
	if err != nil {
		return h.fail(ctx, log, p, err)
	}
	if err := h.finish.Finish(ctx, p, jobs.Outcome{Result: &res}); err != nil {
		return err
	}
	log.Info("overview done", "outcome", outcome(ctx, res, nil), "sources", len(res.Overview.Sources),
		"duration", h.now().Sub(start), "steps_ms", milliseconds(steps))
	return nil
}

// visit opens the page, extracts the overview and stores the screenshots
// and the page's HTML. Its errors carry a kisa.Failure and the part that
// failed; a page not recognised is stored as evidence first.
//
// It adds the time each step took to steps (browser.Step* and StepUpload).
func (h *Handler) visit(ctx context.Context, log *slog.Logger, p jobs.OverviewPayload, steps map[string]time.Duration) (kisa.Result, error) {
	// The browser asks, before the tab closes, whether the page needs a
	// full-page screenshot as evidence; the answer is the extraction.
	pg := pageOf(p.Surface)
	res := kisa.Result{TakenAt: h.now().UTC()}
	var xerr error
	req := h.visitRequest(p)
	req.FullPage = func(html string) bool {
		xerr = pg.read(html, &res)
		return errors.Is(xerr, kisa.Unrecognised)
	}
	req.Redirects = func() []string {
		if xerr != nil {
			return nil
		}
		return rebaseRedirects(&res, h.searchURL)
	}
	v, err := h.browse(ctx, p.CountryCode, req)
	if ev := (*browser.EvidenceError)(nil); errors.As(err, &ev) {
		// A page that refused the visit (an assistant's human check,
		// sign-in wall, usage limit or error) is kept as evidence.
		return kisa.Result{}, h.keepEvidence(ctx, log, p.Key, browser.VisitResult{HTML: ev.HTML, FullPage: ev.FullPage, FinalURL: ev.URL}, err)
	}
	if err != nil {
		f, _ := kisa.FailureOf(err)
		return kisa.Result{}, kisa.Fail(f, kisa.PartBrowser, err)
	}
	maps.Copy(steps, v.Steps)
	defer func(start time.Time) { steps[StepUpload] += h.now().Sub(start) }(h.now())
	if f, _ := kisa.FailureOf(xerr); xerr != nil && (f == kisa.Unrecognised || f == kisa.Blocked || f == kisa.Unavailable) {
		return kisa.Result{}, h.keepEvidence(ctx, log, p.Key, v, xerr)
	}
	if xerr != nil {
		return kisa.Result{}, kisa.Fail(kisa.Internal, "", fmt.Errorf("extract: %w", xerr))
	}
	pg.settled(&res, v.Settled, p)
	settleLinks(&res, v.Redirects, res.TakenAt)
	prefix := fmt.Sprintf("%s/%s/%s/", h.now().UTC().Format("2006-01-02"), p.Key, uuid.NewString())
	// The page's HTML (gzipped, the slowest part) is stored while the
	// screenshots go up.
	var wg sync.WaitGroup
	var htmlErr error
	wg.Go(func() { htmlErr = h.shots.PutGzipHTML(ctx, prefix+"page.html.gz", v.HTML) })
	if p.Screenshots {
		res.Screenshots, err = h.storeShots(ctx, prefix, p.Surface.ShotNames(), v.Screenshots)
	}
	wg.Wait()
	if err != nil {
		return kisa.Result{}, err
	}
	// The HTML is kept best-effort: a job that needs no screenshots still
	// succeeds while storage is down; only a rawHtml request then fails.
	if htmlErr != nil {
		log.Warn("page HTML not stored", "error", htmlErr)
		return res, nil
	}
	res.RawHTML = prefix + "page.html.gz"
	return res, nil
}

// evidenceError is a page not recognised whose evidence is stored under
// prefix ("" when storing it failed).
type evidenceError struct {
	prefix string
	err    error
}

// Error names the evidence's location.
func (e *evidenceError) Error() string {
	return fmt.Sprintf("%v (evidence: %q)", e.err, e.prefix)
}

// Unwrap returns the extraction's error (kisa.Unrecognised).
func (e *evidenceError) Unwrap() error { return e.err }

// keepEvidence stores the HTML (gzip) and the full-page screenshot of a
// page not recognised (or, on an assistant's site, one that refused the
// visit: cause wraps kisa.Blocked or kisa.Unavailable) under
// storage.EvidencePrefix/<date>/<task>/, logs the location, and returns
// the failure of cause (kisa.Unrecognised when it carries none) naming
// the location. A storage failure is logged; the page is still told as
// it was.
func (h *Handler) keepEvidence(ctx context.Context, log *slog.Logger, key string, v browser.VisitResult, cause error) error {
	prefix := fmt.Sprintf("%s%s/%s/%s/", storage.EvidencePrefix, h.now().UTC().Format("2006-01-02"), key, uuid.NewString())
	err := h.shots.PutGzipHTML(ctx, prefix+"page.html.gz", v.HTML)
	if err == nil && v.FullPage != nil {
		err = h.shots.Put(ctx, prefix+"fullpage.png", v.FullPage)
	}
	if err != nil {
		log.Error("page not recognised or refused; storing its evidence failed", "error", err, "cause", cause)
		prefix = ""
	} else {
		log.Error("page not recognised or refused; evidence stored", "evidence", prefix, "url", redactQuery(v.FinalURL), "cause", cause)
	}
	f, _ := kisa.FailureOf(cause)
	if f != kisa.Blocked && f != kisa.Unavailable {
		return kisa.Fail(kisa.Unrecognised, "", &evidenceError{prefix: prefix, err: cause})
	}
	// Only an assistant's site refuses a visit with a page to keep.
	return kisa.Fail(f, kisa.PartAssistant, &evidenceError{prefix: prefix, err: cause})
}

// redactQuery returns raw without its query, for logs.
func redactQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.Fragment = "", ""
	return u.String()
}

// pageURL is the page of the task's surface (worker/surfaces.go) with the
// task's location (uule; see geo.Location.Param).
func (h *Handler) pageURL(p jobs.OverviewPayload) string {
	if st, ok := h.sites[p.Surface]; ok {
		return pageOf(p.Surface).url(st.url, p) // an assistant's site: no uule
	}
	raw := pageOf(p.Surface).url(h.searchURL, p)
	if p.Location != nil && !p.Location.IsZero() {
		raw += "&" + p.Location.Param(h.now())
	}
	return raw
}

// visitRequest is the browser's request for the task's page: what the
// surface does on it, its device, the language, the time zone of its
// place, and the location's coordinates as the page's position.
func (h *Handler) visitRequest(p jobs.OverviewPayload) browser.VisitRequest {
	var loc geo.Location
	if p.Location != nil {
		loc = *p.Location
	}
	pg := pageOf(p.Surface)
	req := browser.VisitRequest{URL: h.pageURL(p), Screenshots: p.Screenshots, Language: p.LanguageCode,
		Mobile: p.Device == kisa.DeviceMobile, TimeZone: geo.TimeZone(p.CountryCode, loc), Geolocation: loc.Point,
		Mode: pg.mode, Prompts: pg.prompts(p), Hooks: pg.hooks}
	if st, ok := h.sites[p.Surface]; ok {
		req.AllowHosts, req.Timeout = st.allow, h.assistantVisit
	}
	return req
}

// knows returns an error wrapping kisa.Internal when the handler cannot
// visit surface s: no page describes it, or it is an assistant without
// a site.
func (h *Handler) knows(s kisa.Surface) error {
	if _, ok := pages[s.OrOverview()]; !ok {
		return fmt.Errorf("%w: no page for surface %q", kisa.Internal, s)
	}
	if _, ok := h.sites[s]; s.Assistant() && !ok {
		return fmt.Errorf("%w: no site configured for %s", kisa.Internal, s)
	}
	return nil
}

// storeShots uploads the PNGs called names under prefix, all at once,
// and returns their object keys.
func (h *Handler) storeShots(ctx context.Context, prefix string, names []string, shots map[string][]byte) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range names {
		if _, ok := shots[name]; !ok {
			return nil, kisa.Fail(kisa.Internal, kisa.PartBrowser, fmt.Errorf("browser returned no %s screenshot", name))
		}
		out[name] = prefix + name + ".png"
	}
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() { errs[i] = h.shots.Put(ctx, out[name], shots[name]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, kisa.Fail(kisa.Unavailable, kisa.PartStorage, err)
	}
	return out, nil
}

// fail ends the visit with its failure when it is final (see final) and
// returns what asynq needs: err itself to retry, or err wrapped in
// asynq.SkipRetry.
func (h *Handler) fail(ctx context.Context, log *slog.Logger, p jobs.OverviewPayload, err error) error {
	f, part := kisa.FailureOf(err)
	last, retryable := final(ctx, f)
	log.Warn("overview failed", "error", err, "failure", f, "part", part, "final", last)
	if !last {
		return err
	}
	out := jobs.Outcome{Failure: f, Part: part}
	if ev := (*evidenceError)(nil); errors.As(err, &ev) {
		out.Evidence = ev.prefix
	}
	if perr := h.finish.Finish(context.WithoutCancel(ctx), p, out); perr != nil {
		log.Error("publish failure", "error", perr)
	}
	if !retryable {
		return fmt.Errorf("%w: %w", asynq.SkipRetry, err)
	}
	return err
}

// final says whether a failure f ends the task now (last), and whether
// asynq may still retry it (retryable). A shutdown is never final: asynq
// puts the task back for another worker. Blocked and Internal are never
// retried; the rest are final on the last try.
func final(ctx context.Context, f kisa.Failure) (last, retryable bool) {
	if errors.Is(ctx.Err(), context.Canceled) {
		return false, true
	}
	switch f {
	case kisa.Blocked, kisa.Internal, kisa.Unrecognised:
		return true, false
	}
	retried, _ := asynq.GetRetryCount(ctx)
	max, _ := asynq.GetMaxRetry(ctx)
	return retried >= max, true
}

// ServerOptions configure the asynq server of a worker process.
type ServerOptions struct {
	// Concurrency is the server's slots; the browser's tabs are the sum
	// of its servers' slots.
	Concurrency int
	// Queue is the queue the server serves: jobs.QueueOverview (also
	// when empty) or jobs.QueueAssistants.
	Queue string
	// Timing gives the retry delays (the task deadline and retry count
	// travel with each task).
	Timing overview.Timing
	// ShutdownTimeout is how long running tasks may finish after
	// Shutdown before they are handed back to the queue.
	ShutdownTimeout time.Duration
	Logger          *slog.Logger // nil discards
}

// How often an asynq server of a worker process with a free slot asks
// Redis for a task (asynq polls: every empty poll runs a Lua script in
// Redis and wakes the worker, about 0.5 ms of its CPU) and looks for
// tasks whose retry is due. A worker pays for every server that polls
// while its tabs wait on a streaming answer (bench/README.md, the cost of
// waiting), so only the overview queue, whose requests wait for a free
// tab's pick-up, polls often.
const (
	// overviewPoll: a free tab picks an overview job up within about
	// 50 ms; its retries are due within half a second.
	overviewPoll, overviewRetryPoll = 50 * time.Millisecond, 500 * time.Millisecond
	// assistantPoll: an assistant's answer takes 10 to 60 s, against
	// which half a second to pick it up is nothing.
	assistantPoll, assistantRetryPoll = 500 * time.Millisecond, time.Second
	// backgroundPoll is the webhooks', maintenance's and monitor
	// readings' (asynq's default): nobody waits on their pick-up.
	backgroundPoll = time.Second
)

// NewServer returns the asynq server for overview tasks (or, with
// ServerOptions.Queue, the AI assistants'). The overview's polls every
// 50 ms so that a free worker picks a job up at once, the assistants'
// every 500 ms (see overviewPoll); both retry after the short delays of
// Timing.RetryDelay, since a request waits for the job.
func NewServer(rdb *redis.Client, o ServerOptions) *asynq.Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	queue := cmp.Or(o.Queue, jobs.QueueOverview)
	poll, retryPoll := overviewPoll, overviewRetryPoll
	if queue == jobs.QueueAssistants {
		poll, retryPoll = assistantPoll, assistantRetryPoll
	}
	return asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency:              o.Concurrency,
		Queues:                   map[string]int{queue: 1},
		TaskCheckInterval:        poll,
		DelayedTaskCheckInterval: retryPoll,
		ShutdownTimeout:          o.ShutdownTimeout,
		RetryDelayFunc: func(n int, _ error, _ *asynq.Task) time.Duration {
			return o.Timing.RetryDelay(n)
		},
		Logger:   slogAdapter{o.Logger},
		LogLevel: asynq.WarnLevel,
	})
}

// AuxConcurrency is how many webhook deliveries and housekeeping tasks
// a worker process runs at once, apart from its browser slots.
const AuxConcurrency = 10

// NewAuxServer returns the asynq server of a worker process for the
// webhooks and maintenance queues: its own slots, so that deliveries
// never take a browser slot. Webhook retries wait
// jobs.WebhookRetryDelay.
func NewAuxServer(rdb *redis.Client, logger *slog.Logger) *asynq.Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency:              AuxConcurrency,
		Queues:                   map[string]int{jobs.QueueWebhooks: 3, jobs.QueueMaintenance: 1},
		TaskCheckInterval:        backgroundPoll,
		DelayedTaskCheckInterval: backgroundPoll,
		ShutdownTimeout:          jobs.WebhookTimeout,
		RetryDelayFunc: func(n int, _ error, _ *asynq.Task) time.Duration {
			return jobs.WebhookRetryDelay(n)
		},
		Logger:   slogAdapter{logger},
		LogLevel: asynq.WarnLevel,
	})
}

// AuxMux routes webhook deliveries and the maintenance task to js, and
// the monitors' runs, retention and webhooks to mons (nil: none).
func AuxMux(js *overview.Jobs, mons *monitor.Service) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.HandleFunc(jobs.TypeWebhook, func(ctx context.Context, t *asynq.Task) error {
		p, err := jobs.ParseWebhookPayload(t)
		if err != nil {
			return fmt.Errorf("%w: %v", asynq.SkipRetry, err)
		}
		if p.Event == jobs.EventMonitorChanged && mons != nil {
			return mons.Deliver(ctx, p)
		}
		return js.Deliver(ctx, p)
	})
	if mons != nil {
		addMonitorRoutes(mux, mons)
	}
	mux.HandleFunc(jobs.TypeJobMaintenance, func(ctx context.Context, _ *asynq.Task) error {
		return js.Maintain(ctx)
	})
	return mux
}

// NewScheduler returns the scheduler that enqueues the maintenance task
// every jobs.MaintenanceEvery; each worker process runs one, and the
// task's uniqueness keeps it to one run per period between them. conn
// is the scheduler's own client (config.RedisClientPool); asynq closes it
// on Shutdown.
func NewScheduler(conn *redis.Client, logger *slog.Logger) (*asynq.Scheduler, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := asynq.NewScheduler(ownClient{conn}, &asynq.SchedulerOpts{Logger: slogAdapter{logger}, LogLevel: asynq.WarnLevel,
		PostEnqueueFunc: func(_ *asynq.TaskInfo, err error) {
			if err != nil && !errors.Is(err, asynq.ErrDuplicateTask) {
				logger.Warn("schedule maintenance", "error", err)
			}
		}})
	if _, err := s.Register(fmt.Sprintf("@every %s", jobs.MaintenanceEvery), jobs.NewJobMaintenanceTask()); err != nil {
		return nil, fmt.Errorf("schedule maintenance: %w", err)
	}
	return s, nil
}

// ownClient hands asynq a client it owns: a scheduler made from it
// closes it on Shutdown, where one made from a shared client would not
// (and would log that it could not). Being the client itself, not its
// options, it keeps a Sentinel client's sentinels, which Options loses.
type ownClient struct{ c *redis.Client }

// MakeRedisClient implements asynq.RedisConnOpt.
func (o ownClient) MakeRedisClient() any { return o.c }

// Mux routes the overview task type to h.
func Mux(h *Handler) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	mux.Handle(jobs.TypeOverview, h)
	return mux
}
