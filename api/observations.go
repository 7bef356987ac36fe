package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/storage"
)

// Paths of the observation endpoints.
const (
	observationsPath = "/v1/observations"
	usagePath        = "/v1/usage"
)

// Observation list limits (GET /v1/observations?limit=).
const (
	defaultObservationLimit = 10
	maxObservationLimit     = 100
	// maxUsageDays is the longest span GET /v1/usage counts at once.
	maxUsageDays = 366
	// maxUserAgent and maxPath bound what one observation keeps of them.
	maxUserAgent = 512
	maxPath      = 1024
)

// countAI runs after limitRate on every authenticated route: a request
// that gets past it on an AI route has spent the AI budget (recorded as
// its observation's aiSpent).
func (s *Server) countAI(c *gin.Context) {
	if st := stateOf(c.Request.Context()); st != nil && aiRoutes[c.FullPath()] {
		st.spentAI = true
	}
	c.Next()
}

// noteFailure tells the request's trace the failure its error answer
// told.
func noteFailure(c *gin.Context, err error) {
	if st := stateOf(c.Request.Context()); st != nil {
		st.trace.Failed(err)
	}
}

// recordObservation hands the observation of a finished request to the
// writer; requests without an account (refused credentials, unknown
// routes) are not recorded. It never blocks (observe.Writer.Add).
func (s *Server) recordObservation(c *gin.Context, start time.Time, took time.Duration) {
	st := stateOf(c.Request.Context())
	if s.opts.Observations == nil || st == nil || st.principal == nil {
		return
	}
	s.opts.Observations.Add(s.observation(c, st, start, took))
}

func (s *Server) observation(c *gin.Context, st *requestState, start time.Time, took time.Duration) storage.ObservedRequest {
	p, sum := st.principal, st.trace.Summary()
	route, status := c.FullPath(), c.Writer.Status()
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	o := storage.ObservedRequest{ID: id, At: start.UTC().Truncate(time.Microsecond), AccountID: p.AccountID, KeyID: p.KeyID,
		ClientIP: c.ClientIP(), UserAgent: clip(c.Request.UserAgent(), maxUserAgent), Method: knownMethod(c.Request.Method),
		Route: route, Path: clip(c.Request.URL.Path, maxPath), Status: status, DurationUS: took.Microseconds(),
		RequestID: st.id, Surface: surfaceOf(route, status), Items: sum.Items, CacheHits: sum.CacheHits, Joins: sum.Joins,
		Runs: sum.Runs, JoinedRuns: sum.JoinedRuns}
	if st.spentAI {
		o.AISpent = 1
		if route == batchPath && status == http.StatusAccepted {
			o.AISpent = max(1, sum.Items)
		}
	}
	if sum.Failure != "" {
		f, part := string(sum.Failure), string(sum.Part)
		o.Failure = &f
		if part != "" {
			o.FailedPart = &part
		}
	}
	if p.StoreQueries && len(sum.Queries) > 0 {
		o.Queries, _ = json.Marshal(sum.Queries)
	}
	return o
}

// surfaceOf names what a request used, for usage: an overview answered
// 202 was submitted as a job.
func surfaceOf(route string, status int) string {
	async := status == http.StatusAccepted
	switch route {
	case overviewPath:
		if async {
			return observe.SurfaceOverviewAsync
		}
		return observe.SurfaceOverview
	case aiModePath:
		if async {
			return observe.SurfaceAIModeAsync
		}
		return observe.SurfaceAIMode
	case webSearchPath:
		if async {
			return observe.SurfaceWebAsync
		}
		return observe.SurfaceWeb
	case batchPath:
		return observe.SurfaceBatch
	case browserPath + string(kisa.SurfaceChatGPT), browserPath + string(kisa.SurfacePerplexity),
		browserPath + string(kisa.SurfaceGemini), browserPath + string(kisa.SurfaceCopilot):
		return observe.AssistantSurface(kisa.Surface(strings.TrimPrefix(route, browserPath)), async)
	case completionsPath:
		return observe.SurfaceCompletions
	}
	return observe.SurfaceRead
}

func clip(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "")
	}
	return s
}

// reader returns the observations' reader, or answers 503 without one.
func (s *Server) reader(c *gin.Context) (*observe.Reader, bool) {
	if s.observations == nil {
		s.writeError(c, kisa.Fail(kisa.Unavailable, kisa.PartDatabase, nil))
		return nil, false
	}
	return s.observations, true
}

// listObservations answers GET /v1/observations: the account's requests,
// newest first, with the traces of browser requests.
func (s *Server) listObservations(c *gin.Context) {
	r, ok := s.reader(c)
	if !ok {
		return
	}
	q, err := parseObservationQuery(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	q.Filter.Account = mustPrincipal(c).AccountID
	page, err := r.List(c.Request.Context(), q)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, page)
}

// parseObservationQuery reads keyId, status, path, from, to, limit and
// cursor; problems are one 422.
func parseObservationQuery(c *gin.Context) (observe.ListQuery, error) {
	v := validation{}
	q := observe.ListQuery{Filter: storage.ObservationFilter{Limit: defaultObservationLimit, Route: c.Query("path")},
		Cursor: c.Query("cursor")}
	if l, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxObservationLimit {
			v.add("limit", "must be a whole number from 1 to %d", maxObservationLimit)
		}
		q.Filter.Limit = n
	}
	if k, ok := c.GetQuery("keyId"); ok {
		id, err := uuid.Parse(k)
		if err != nil {
			v.add("keyId", "must be the id of an API key")
		}
		q.Filter.Key = &id
	}
	if st, ok := c.GetQuery("status"); ok {
		var ok bool
		if q.Filter.StatusMin, q.Filter.StatusMax, ok = parseStatus(st); !ok {
			v.add("status", "must be a status code such as 404, or a class such as 5xx")
		}
	}
	q.Filter.From = parseTime(c, v, "from")
	q.Filter.To = parseTime(c, v, "to")
	if len(v) > 0 {
		return q, v.err()
	}
	return q, nil
}

// parseStatus reads a status code (404) or class (4xx) as a range.
func parseStatus(s string) (lo, hi int, ok bool) {
	if len(s) == 3 && s[0] >= '1' && s[0] <= '5' && strings.EqualFold(s[1:], "xx") {
		lo = int(s[0]-'0') * 100
		return lo, lo + 99, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 100 || n > 599 {
		return 0, 0, false
	}
	return n, n, true
}

// parseTime reads an RFC 3339 time parameter; absent is the zero time.
func parseTime(c *gin.Context, v validation, name string) time.Time {
	s, ok := c.GetQuery(name)
	if !ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		v.add(name, "must be a time such as 2026-11-26T12:00:00Z")
	}
	return t
}

// usage answers GET /v1/usage?from=&to=&keyId=: the account's use per
// UTC day and key, the last 30 days by default.
func (s *Server) usage(c *gin.Context) {
	r, ok := s.reader(c)
	if !ok {
		return
	}
	q, err := s.parseUsageQuery(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	u, err := r.Usage(c.Request.Context(), mustPrincipal(c).AccountID, q)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, u)
}

func (s *Server) parseUsageQuery(c *gin.Context) (observe.UsageQuery, error) {
	v := validation{}
	today := s.opts.Now().UTC().Truncate(24 * time.Hour)
	q := observe.UsageQuery{From: today.AddDate(0, 0, -29), To: today}
	day := func(name string, def time.Time) time.Time {
		s, ok := c.GetQuery(name)
		if !ok {
			return def
		}
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			v.add(name, "must be a date such as 2026-11-26")
		}
		return d
	}
	q.To = day("to", q.To)
	q.From = day("from", q.To.AddDate(0, 0, -29))
	if len(v) == 0 && (q.From.After(q.To) || q.To.Sub(q.From) >= maxUsageDays*24*time.Hour) {
		v.add("from", "must be on or before to, and at most %d days before it", maxUsageDays-1)
	}
	if k, ok := c.GetQuery("keyId"); ok {
		id, err := uuid.Parse(k)
		if err != nil {
			v.add("keyId", "must be the id of an API key")
		}
		q.Key = &id
	}
	if len(v) > 0 {
		return q, v.err()
	}
	return q, nil
}
