// Package api is the HTTP side of the service: a gin router with the
// response envelope, API-key authentication, the read endpoints of the
// knowledge base, integrations and secrets, and the AI overview endpoint.
package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/ops"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/webhook"
)

// MaxBodyBytes is the largest request body the API reads (1 MiB).
const MaxBodyBytes = 1 << 20

// Options are the dependencies and settings of a Server.
type Options struct {
	DB        *storage.DB
	Secrets   *storage.Secrets
	Overviews *overview.Service // nil: the overview endpoint answers 503
	Jobs      *overview.Jobs    // nil: async jobs answer 503
	Monitors  *monitor.Service  // nil: monitors answer 503
	// Webhooks vets webhook URLs when a job is submitted.
	Webhooks    webhook.Guard
	KeyPrefix   string
	DocsURL     string
	KeyCacheTTL time.Duration
	Limits      Limits // per-key request limits; no Redis: none
	// Countries are the proxies of KISA_PROXIES: the countries served. The
	// zero Set serves every country.
	Countries proxies.Set
	Logger    *slog.Logger // nil discards
	Now       func() time.Time
	// HealthChecks are the dependencies /readyz asks.
	HealthChecks ops.Checks
	// Registry receives the API's metrics; nil: a registry of its own.
	Registry *prometheus.Registry
	// AdminToken guards /metrics and /admin/queues; empty: neither route
	// exists.
	AdminToken string
	// Dashboard is the queue dashboard served at /admin/queues (asynqmon,
	// rooted there); nil: none.
	Dashboard http.Handler
	// Completions is the upstream of POST /v1/completions; its zero value
	// turns the endpoint off (503).
	Completions Completions
	// Observations records every request of an account (observations.go);
	// nil records none.
	Observations *observe.Writer[storage.ObservedRequest]
	// TrustedProxies are the addresses (CIDR or IP) whose
	// X-Forwarded-For and X-Real-IP headers name the client
	// (KISA_TRUSTED_PROXIES); none: the client is the connection's peer.
	TrustedProxies []string
}

// Server is the HTTP API.
type Server struct {
	opts    Options
	log     *slog.Logger
	keys    *keyCache
	metrics *metrics
	limiter *limiter // nil: no limits
	router  *gin.Engine
	// observations answers GET /v1/observations and /v1/usage; nil
	// without a database.
	observations *observe.Reader

	openapiJSON []byte // the OpenAPI document served at /v1/openapi.json
	openapiErr  error  // why it could not be made (a broken build)
}

// The routes of the browser's surfaces, which spend the AI budget.
const (
	overviewPath  = "/v1/networks/browser/ai-overview"
	aiModePath    = "/v1/networks/browser/ai-mode"
	webSearchPath = "/v1/networks/browser/web-search"
	// browserPath is the prefix of every surface's route: an assistant's
	// is browserPath + its surface.
	browserPath = "/v1/networks/browser/"
)

// aiRoutes are the routes that spend a key's AI budget (Limits.AI): every
// surface costs a browser visit.
var aiRoutes = map[string]bool{overviewPath: true, aiModePath: true, webSearchPath: true, batchPath: true, completionsPath: true,
	browserPath + string(kisa.SurfaceChatGPT): true, browserPath + string(kisa.SurfacePerplexity): true,
	browserPath + string(kisa.SurfaceGemini): true, browserPath + string(kisa.SurfaceCopilot): true}

// DashboardPath is where the queue dashboard is served.
const DashboardPath = "/admin/queues"

// New builds the API with its routes.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	s := &Server{opts: opts, log: opts.Logger, keys: newKeyCache(opts.KeyCacheTTL, opts.Now),
		metrics: newMetrics(opts.Registry)}
	s.limiter = newLimiter(opts.Limits, opts.Logger, s.metrics, opts.Now)
	if opts.DB != nil {
		s.observations = observe.NewReader(opts.DB)
	}
	s.openapiJSON, s.openapiErr = OpenAPI()
	s.router = s.routes()
	return s
}

// ServeHTTP makes the Server an http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

func (s *Server) routes() *gin.Engine {
	r := gin.New()
	r.HandleMethodNotAllowed = true
	// No redirect for a trailing slash: it would answer HTML without a
	// request id; such a path gets the JSON 404 instead.
	r.RedirectTrailingSlash = false
	r.ContextWithFallback = true
	if err := r.SetTrustedProxies(s.opts.TrustedProxies); err != nil {
		// config validates KISA_TRUSTED_PROXIES: trust none rather than all.
		s.log.Error("trusted proxies", "error", err)
		_ = r.SetTrustedProxies(nil)
	}
	r.Use(s.requestIDs, s.logRequests, s.recoverPanics, limitBody)
	r.NoRoute(func(c *gin.Context) { s.writeError(c, kisa.Failf(kisa.NotFound, "no such endpoint")) })
	r.NoMethod(func(c *gin.Context) { s.writeError(c, kisa.Failf(kisa.MethodNotAllowed, "method not allowed")) })
	r.GET("/livez", gin.WrapH(ops.Live()))
	ready := gin.WrapH(ops.Ready(s.opts.HealthChecks, s.log))
	r.GET("/readyz", ready)
	r.GET("/healthz", ready) // the former name, kept as an alias
	s.adminRoutes(r)

	r.GET("/v1/openapi.json", s.serveOpenAPI)
	r.GET("/docs", s.docsPage)
	r.GET("/docs/assets/:file", s.docsAsset)

	v1 := r.Group("/v1", s.authenticate, s.limitRate, s.countAI)
	v1.GET("/knowledgebase", s.require(apikey.ScopeKnowledgebaseRead), s.listClusters)
	v1.GET("/integrations", s.require(apikey.ScopeIntegrationsRead), s.listIntegrations)
	v1.GET("/integrations/:id", s.require(apikey.ScopeIntegrationsRead), s.getIntegration)
	v1.GET("/secrets/:id", s.require(apikey.ScopeSecretsRead), s.getSecret)
	run := s.require(apikey.ScopeOverviewRun)
	v1.POST(strings.TrimPrefix(overviewPath, "/v1"), run, s.overview)
	v1.POST(strings.TrimPrefix(aiModePath, "/v1"), run, s.aiMode)
	v1.POST(strings.TrimPrefix(webSearchPath, "/v1"), run, s.webSearch)
	for _, a := range kisa.Assistants {
		v1.POST(strings.TrimPrefix(browserPath, "/v1")+string(a), run, func(c *gin.Context) { s.browse(c, a) })
	}
	v1.GET("/networks/browser/countries", s.countries)
	v1.GET(strings.TrimPrefix(jobsPath, "/v1"), run, s.listJobs)
	v1.GET(strings.TrimPrefix(jobsPath, "/v1")+"/:id", run, s.getJob)
	v1.POST(strings.TrimPrefix(batchPath, "/v1"), run, s.submitBatch)
	v1.GET(strings.TrimPrefix(batchesPath, "/v1")+"/:id", run, s.getBatch)
	v1.POST(strings.TrimPrefix(completionsPath, "/v1"), s.require(apikey.ScopeCompletionsRun), s.completions)
	s.monitorRoutes(v1)
	v1.GET(strings.TrimPrefix(observationsPath, "/v1"), s.require(apikey.ScopeObservationsRead), s.listObservations)
	v1.GET(strings.TrimPrefix(usagePath, "/v1"), s.require(apikey.ScopeUsageRead), s.usage)
	return r
}

// adminRoutes mounts /metrics, the queue dashboard and the profiler
// (/debug/pprof/) behind the admin token; with no token configured they
// do not exist (404).
func (s *Server) adminRoutes(r *gin.Engine) {
	token := s.opts.AdminToken
	if token == "" {
		return
	}
	r.GET("/metrics", gin.WrapH(ops.AdminOnly(token, ops.MetricsHandler(s.opts.Registry, s.log))))
	if s.opts.Dashboard != nil {
		h := gin.WrapH(ops.AdminOnly(token, s.opts.Dashboard))
		r.Any(DashboardPath, h)
		r.Any(DashboardPath+"/*path", h)
	}
	r.GET("/debug/pprof/*path", gin.WrapH(ops.AdminOnly(token, profiler())))
}

// profiler is net/http/pprof's handlers on a mux of their own (the
// package's init registers them on http.DefaultServeMux, which kisa does
// not serve).
func profiler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// saneRequestID reports whether a client's X-Request-Id may be kept: 1 to
// 128 of A-Z a-z 0-9 . _ : - (what ^[A-Za-z0-9._:-]{1,128}$ matches,
// without a regexp run on every request).
func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '.', b == '_', b == ':', b == '-':
		default:
			return false
		}
	}
	return true
}

// requestIDs gives every request an id: the client's X-Request-Id when it
// is sane, a new UUID otherwise; the response always carries it. An id
// holding what looks like an API key is replaced, as ids are logged. The
// id goes into the request's state (requestState), which authenticate
// completes.
func (s *Server) requestIDs(c *gin.Context) {
	id := c.GetHeader("X-Request-Id")
	if !saneRequestID(id) || s.opts.KeyPrefix != "" && strings.Contains(id, s.opts.KeyPrefix+"_") {
		id = uuid.NewString()
	}
	c.Header("X-Request-Id", id)
	st := &requestState{id: id}
	ctx := context.WithValue(c.Request.Context(), requestStateKey{}, st)
	if s.opts.Observations != nil {
		ctx = observe.NewContext(ctx, &st.trace)
	}
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}

func requestID(c *gin.Context) string {
	if st := stateOf(c.Request.Context()); st != nil {
		return st.id
	}
	return ""
}

// logRequests writes one structured line per request. It never logs
// headers, bodies or keys.
func (s *Server) logRequests(c *gin.Context) {
	start := s.opts.Now()
	c.Next()
	took := s.opts.Now().Sub(start)
	s.metrics.observe(c, took)
	s.recordObservation(c, start, took)
	if !s.log.Enabled(c.Request.Context(), slog.LevelInfo) {
		return
	}
	attrs := []any{
		slog.String("method", knownMethod(c.Request.Method)),
		slog.String("route", routeLabel(c)),
		slog.Int("status", c.Writer.Status()),
		slog.Duration("duration", took),
		slog.String("request_id", requestID(c)),
	}
	if p, ok := principalFrom(c.Request.Context()); ok {
		attrs = append(attrs, slog.String("account", p.AccountID.String()))
	}
	s.log.InfoContext(c.Request.Context(), "request", attrs...)
}

// knownMethod returns an HTTP method for logs and metric labels: one of
// the standard ones, or "other", since a client may send any token as its
// method (its key, by mistake, or a new one per request).
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "other"
}

// recoverPanics turns a panic into a 500 with an incident phrase; the
// stack is logged with the phrase and the request id.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.writeError(c, fmt.Errorf("panic: %v\n%s", v, debug.Stack()))
		}
	}()
	c.Next()
}

// limitBody caps what a handler can read of the body (a request without
// one, such as a GET, has nothing to cap).
func limitBody(c *gin.Context) {
	if c.Request.Body != http.NoBody {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes)
	}
	c.Next()
}

// readError is the failure of a request body that could not be read:
// TooLarge past MaxBodyBytes, BadRequest otherwise.
func readError(err error) *kisa.Error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return kisa.Failf(kisa.TooLarge, "request body is larger than %d bytes", MaxBodyBytes)
	}
	return kisa.Failf(kisa.BadRequest, "could not read the request body")
}
