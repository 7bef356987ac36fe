package api

import (
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the web process's own series, registered on the process's
// registry. Queue sizes are not among them: the worker exports those, so
// that a sum over processes does not count them once per web process.
type metrics struct {
	requests *prometheus.CounterVec   // method, route, status
	duration *prometheus.HistogramVec // method, route
	cache    *prometheus.CounterVec   // surface, result: hit or miss
	limiter  *prometheus.CounterVec   // budget, decision
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_http_requests_total",
			Help: "HTTP requests by method, route template and status."}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kisa_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by method and route template.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}}, []string{"method", "route"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_overview_cache_requests_total",
			Help: "Browser requests (by surface: ai-overview, ai-mode, web-search, chatgpt, perplexity, gemini, copilot) answered from the cache (hit) or by a visit (miss, also with the cache off)."}, []string{"surface", "result"}),
		limiter: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_ratelimit_decisions_total",
			Help: "Rate limiter decisions by budget (ai, other, concurrent) and decision (allowed, limited, error: Redis did not answer and the request passed)."},
			[]string{"budget", "decision"}),
	}
	reg.MustRegister(m.requests, m.duration, m.cache, m.limiter)
	return m
}

// routeLabel is the request's route template (never its path), or
// "unmatched" for a request no route matched.
func routeLabel(c *gin.Context) string {
	if r := c.FullPath(); r != "" {
		return r
	}
	return "unmatched"
}

// observe counts one answered request; the method is a standard one or
// "other" (knownMethod), so that made-up methods make no new series.
func (m *metrics) observe(c *gin.Context, took time.Duration) {
	method, route := knownMethod(c.Request.Method), routeLabel(c)
	m.requests.WithLabelValues(method, route, strconv.Itoa(c.Writer.Status())).Inc()
	m.duration.WithLabelValues(method, route).Observe(took.Seconds())
}
