package observe

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
)

// Surfaces of a request, as observations and usage name them.
const (
	SurfaceOverview      = "overview"       // a synchronous AI overview
	SurfaceOverviewAsync = "overview_async" // an AI overview submitted as a job
	SurfaceBatch         = "batch"          // a batch of AI overview jobs
	SurfaceAIMode        = "ai_mode"        // a synchronous AI Mode request
	SurfaceAIModeAsync   = "ai_mode_async"  // an AI Mode request submitted as a job
	SurfaceWeb           = "web_search"     // a synchronous web search
	SurfaceWebAsync      = "web_search_async"
	// An assistant's requests are named after its surface (kisa.Surface:
	// "chatgpt", "perplexity", "gemini", "copilot"), with AsyncSuffix when
	// submitted as a job (AssistantSurface).
	AsyncSuffix        = "_async"
	SurfaceCompletions = "completions"
	SurfaceRead        = "read" // everything else: resources, jobs, observations, usage
)

// browserSurfaces are the surfaces whose requests have a trace.
var browserSurfaces = func() map[string]bool {
	m := map[string]bool{SurfaceOverview: true, SurfaceOverviewAsync: true, SurfaceBatch: true,
		SurfaceAIMode: true, SurfaceAIModeAsync: true, SurfaceWeb: true, SurfaceWebAsync: true}
	for _, a := range kisa.Assistants {
		m[AssistantSurface(a, false)], m[AssistantSurface(a, true)] = true, true
	}
	return m
}()

// AssistantSurface names a request of assistant a, submitted as a job
// when async.
func AssistantSurface(a kisa.Surface, async bool) string {
	if async {
		return string(a) + AsyncSuffix
	}
	return string(a)
}

// errBadCursor is the Invalid failure of a list cursor this service did
// not make.
var errBadCursor = kisa.InvalidFields(map[string]string{"cursor": "is not a cursor of this list; use nextCursor as given"})

// Reader answers an account's questions about its observations.
type Reader struct {
	db *storage.DB
}

// NewReader returns the reader of db's observations.
func NewReader(db *storage.DB) *Reader { return &Reader{db: db} }

// ListQuery selects a page of observations: Filter (its Account is the
// caller's), at most Limit, after Cursor ("" from the newest).
type ListQuery struct {
	Filter storage.ObservationFilter
	Cursor string
}

// Page is one page of observations, newest first; NextCursor continues it.
type Page struct {
	Observations []View  `json:"observations"`
	NextCursor   *string `json:"nextCursor"`
}

// View is one observation as the API shows it.
type View struct {
	ID         string  `json:"id"`
	Time       string  `json:"time"`
	KeyID      string  `json:"keyId"`
	ClientIP   string  `json:"clientIp"`
	UserAgent  string  `json:"userAgent"`
	Method     string  `json:"method"`
	Route      string  `json:"route"`
	Path       string  `json:"path"`
	Status     int     `json:"status"`
	DurationMS float64 `json:"durationMs"`
	RequestID  string  `json:"requestId"`
	Surface    string  `json:"surface"`
	Trace      *Trail  `json:"trace"` // browser requests only
}

// Trail is what happened inside a browser request.
type Trail struct {
	Items       int         `json:"items"`     // browser results asked for
	CacheHits   int         `json:"cacheHits"` // answered from the cache
	Joins       int         `json:"joins"`     // joined a visit already in flight
	QueueWaitMS *float64    `json:"queueWaitMs"`
	Visits      []VisitView `json:"visits"`
	Failure     *string     `json:"failure"`
	Part        *string     `json:"part"`
	Queries     []Query     `json:"queries,omitempty"` // accounts that store queries only
}

// VisitView is one attempt of a visit the request waited on.
type VisitView struct {
	Run          string             `json:"run"`
	Joined       bool               `json:"joined"` // started by another request
	Attempt      int                `json:"attempt"`
	StartedAt    string             `json:"startedAt"`
	QueueWaitMS  float64            `json:"queueWaitMs"` // from the request's arrival to this attempt's start
	DurationMS   float64            `json:"durationMs"`
	Steps        map[string]float64 `json:"steps"` // navigate, consent, settle, expand, screenshots, upload: milliseconds
	ProxyCountry *string            `json:"proxyCountry"`
	Failure      *string            `json:"failure"`
	Part         *string            `json:"part"`
}

// List returns a page of observations with the traces of their visits.
// A cursor it did not make is a kisa.Invalid failure.
func (r *Reader) List(ctx context.Context, q ListQuery) (Page, error) {
	f := q.Filter
	if q.Cursor != "" {
		at, id, err := decodeCursor(q.Cursor)
		if err != nil {
			return Page{}, err
		}
		f.AfterAt, f.AfterID = &at, id
	}
	limit := f.Limit
	f.Limit++
	rows, err := r.db.ListObservations(ctx, f)
	if err != nil {
		return Page{}, kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
	}
	page := Page{Observations: make([]View, 0, len(rows))}
	if len(rows) > limit {
		rows = rows[:limit]
		next := encodeCursor(rows[len(rows)-1])
		page.NextCursor = &next
	}
	visits, err := r.visits(ctx, rows)
	if err != nil {
		return Page{}, kisa.Fail(kisa.Unavailable, kisa.PartDatabase, err)
	}
	for _, o := range rows {
		page.Observations = append(page.Observations, view(o, visits))
	}
	return page, nil
}

// visits reads the visits of the rows' runs, by run.
func (r *Reader) visits(ctx context.Context, rows []storage.ObservedRequest) (map[string][]storage.ObservedVisit, error) {
	var runs []string
	since := time.Time{}
	for _, o := range rows {
		runs = append(append(runs, o.Runs...), o.JoinedRuns...)
		if since.IsZero() || o.At.Before(since) {
			since = o.At
		}
	}
	// A joined visit started before the request that joined it: at most
	// one task deadline before, which an hour covers.
	vs, err := r.db.VisitsOfRuns(ctx, runs, since.Add(-time.Hour))
	if err != nil {
		return nil, err
	}
	out := map[string][]storage.ObservedVisit{}
	for _, v := range vs {
		out[v.Run] = append(out[v.Run], v)
	}
	return out, nil
}

const timeLayout = "2006-01-02T15:04:05.000000Z07:00"

func view(o storage.ObservedRequest, visits map[string][]storage.ObservedVisit) View {
	v := View{ID: o.ID.String(), Time: o.At.UTC().Format(timeLayout), KeyID: o.KeyID.String(), ClientIP: o.ClientIP,
		UserAgent: o.UserAgent, Method: o.Method, Route: o.Route, Path: o.Path, Status: o.Status,
		DurationMS: millis(time.Duration(o.DurationUS) * time.Microsecond), RequestID: o.RequestID, Surface: o.Surface}
	if browserSurfaces[o.Surface] {
		v.Trace = trail(o, visits)
	}
	return v
}

func trail(o storage.ObservedRequest, visits map[string][]storage.ObservedVisit) *Trail {
	t := &Trail{Items: o.Items, CacheHits: o.CacheHits, Joins: o.Joins, Visits: []VisitView{},
		Failure: o.Failure, Part: o.FailedPart}
	if len(o.Queries) > 0 {
		_ = json.Unmarshal(o.Queries, &t.Queries)
	}
	add := func(runs []string, joined bool) {
		for _, run := range runs {
			for _, sv := range visits[run] {
				t.Visits = append(t.Visits, visitView(o.At, sv, joined))
			}
		}
	}
	add(o.Runs, false)
	add(o.JoinedRuns, true)
	for _, vv := range t.Visits {
		if t.QueueWaitMS == nil || vv.QueueWaitMS < *t.QueueWaitMS {
			w := vv.QueueWaitMS
			t.QueueWaitMS = &w
		}
	}
	return t
}

func visitView(at time.Time, v storage.ObservedVisit, joined bool) VisitView {
	steps := map[string]float64{}
	_ = json.Unmarshal(v.Steps, &steps)
	return VisitView{Run: v.Run, Joined: joined, Attempt: v.Attempt, StartedAt: v.StartedAt.UTC().Format(timeLayout),
		QueueWaitMS: millis(max(0, v.StartedAt.Sub(at))), DurationMS: millis(time.Duration(v.DurationUS) * time.Microsecond),
		Steps: steps, ProxyCountry: v.ProxyCountry, Failure: v.Failure, Part: v.FailedPart}
}

// millis is d in milliseconds, to the microsecond.
func millis(d time.Duration) float64 { return math.Round(float64(d.Microseconds())) / 1000 }

// encodeCursor makes the opaque cursor that continues a list after o.
func encodeCursor(o storage.ObservedRequest) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(o.At.UnixMicro(), 10) + "." + o.ID.String()))
}

// decodeCursor reads a cursor made by encodeCursor; errBadCursor otherwise.
func decodeCursor(s string) (time.Time, uuid.UUID, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	micros, id, ok := strings.Cut(string(b), ".")
	us, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || us < 0 {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	uid, err := uuid.Parse(id)
	if err != nil || uid.String() != id {
		return time.Time{}, uuid.Nil, errBadCursor
	}
	return time.UnixMicro(us).UTC(), uid, nil
}
