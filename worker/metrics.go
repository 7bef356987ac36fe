package worker

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/worker/browser"
)

// The outcomes of one attempt at an overview task, as counted in the
// metrics, beside the failures (kisa.Failure: blocked, timed_out,
// unavailable, unrecognised, internal), which count under their own name.
const (
	OutcomeOK         = "ok"          // the page had an overview (an answer, organic results)
	OutcomeNoOverview = "no_overview" // the results page had no overview
	OutcomeNoAnswer   = "no_answer"   // AI Mode gave no answer, or a results page no organic result
)

// TaskObserver is told how each attempt at an overview task ended and how
// long it took; Metrics is the one a worker process uses.
type TaskObserver interface {
	TaskDone(surface kisa.Surface, outcome string, took time.Duration)
	// StepDone is told how long one step of an attempt took: a
	// browser.Step* name or StepUpload.
	StepDone(step string, took time.Duration)
}

// StepUpload is the step that stores the screenshots and the page's HTML.
const StepUpload = "upload"

// Metrics are a worker process's series: tasks by outcome with their
// durations, the browser's launches and its busy tabs.
type Metrics struct {
	tasks    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	steps    *prometheus.HistogramVec
	proxies  *prometheus.CounterVec
}

// NewMetrics registers the worker's series on reg; pool, when not nil,
// adds its launch count and busy tabs, read at scrape time.
func NewMetrics(reg prometheus.Registerer, pool *browser.Pool) *Metrics {
	m := &Metrics{
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_worker_tasks_total",
			Help: "Visit task attempts by surface (ai-overview, ai-mode, web-search, chatgpt, perplexity, gemini, copilot) and outcome (ok, no_overview, no_answer, or the failure: blocked, timed_out, unavailable, unrecognised, internal)."}, []string{"surface", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kisa_worker_task_duration_seconds",
			Help:    "Time one visit task attempt took, by surface and outcome.",
			Buckets: []float64{.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 45, 60, 90}}, []string{"surface", "outcome"}),
	}
	m.steps = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kisa_worker_step_duration_seconds",
		Help:    "Time each step of an overview visit took (navigate, consent, settle, expand, screenshots, upload).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2, 3, 5, 7.5, 10, 15, 30}}, []string{"step"})
	m.proxies = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_worker_proxy_visits_total",
		Help: "Visits through each proxy (host:port, never its credentials) by outcome (ok, or the failure: blocked, unavailable, timed_out, internal)."},
		[]string{"proxy", "outcome"})
	reg.MustRegister(m.tasks, m.duration, m.steps, m.proxies)
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kisa_browser_blocked_total",
			Help: "Requests, navigations and popups of results pages that the browser's containment stopped."},
			func() float64 { return float64(pool.Blocked()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kisa_browser_launches_total",
			Help: "Chromium launches by this worker (the first one, restarts after a crash, and recycles)."},
			func() float64 { return float64(pool.Stats().Launches) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kisa_browser_tabs_busy",
			Help: "Browser tabs running a visit now."}, func() float64 { return float64(pool.Stats().BusyTabs) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kisa_browser_tabs",
			Help: "Browser tabs of this worker (KISA_BROWSER_CONCURRENCY plus KISA_ASSISTANT_CONCURRENCY)."}, func() float64 { return float64(pool.Stats().Tabs) }),
	)
	return m
}

// TaskDone counts one attempt (TaskObserver).
func (m *Metrics) TaskDone(surface kisa.Surface, outcome string, took time.Duration) {
	m.tasks.WithLabelValues(string(surface.OrOverview()), outcome).Inc()
	m.duration.WithLabelValues(string(surface.OrOverview()), outcome).Observe(took.Seconds())
}

// StepDone records how long one step took (TaskObserver).
func (m *Metrics) StepDone(step string, took time.Duration) {
	m.steps.WithLabelValues(step).Observe(took.Seconds())
}

// ProxyVisit counts one visit through a proxy (HandlerOptions.CountProxy).
func (m *Metrics) ProxyVisit(proxy, outcome string) {
	m.proxies.WithLabelValues(proxy, outcome).Inc()
}

// outcome names how an attempt ended: its result, or the failure it
// carries (kisa.Failure's own word). An attempt cut short by the worker's
// shutdown is unavailable: asynq hands the task back.
func outcome(ctx context.Context, res kisa.Result, err error) string {
	switch {
	case err != nil:
	case res.Conversation() != nil:
		return map[bool]string{true: OutcomeOK, false: OutcomeNoAnswer}[res.Conversation().HasAnswer]
	case res.Web != nil:
		return map[bool]string{true: OutcomeOK, false: OutcomeNoAnswer}[len(res.Web.Organic) > 0]
	case res.Overview.HasOverview:
		return OutcomeOK
	default:
		return OutcomeNoOverview
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return string(kisa.Unavailable)
	}
	f, _ := kisa.FailureOf(err)
	return string(f)
}

// observe tells the observer how an attempt that began at start ended.
func (h *Handler) observe(ctx context.Context, surface kisa.Surface, start time.Time, res kisa.Result, err error, steps map[string]time.Duration) {
	h.observer.TaskDone(surface, outcome(ctx, res, err), h.now().Sub(start))
	for step, took := range steps {
		h.observer.StepDone(step, took)
	}
}

// milliseconds is steps in whole milliseconds, for the job's log line.
func milliseconds(steps map[string]time.Duration) map[string]int64 {
	out := make(map[string]int64, len(steps))
	for step, took := range steps {
		out[step] = took.Milliseconds()
	}
	return out
}
