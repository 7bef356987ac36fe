package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Observation is one request of the account (GET /v1/observations).
type Observation struct {
	ID         string    `json:"id"`
	Time       time.Time `json:"time"`
	KeyID      string    `json:"keyId"`
	ClientIP   string    `json:"clientIp"`
	UserAgent  string    `json:"userAgent"`
	Method     string    `json:"method"`
	Route      string    `json:"route"` // the route template, e.g. /v1/integrations/:id
	Path       string    `json:"path"`
	Status     int       `json:"status"`
	DurationMS float64   `json:"durationMs"`
	RequestID  string    `json:"requestId"`
	Surface    string    `json:"surface"` // overview, overview_async, batch, completions, read
	Trace      *Trace    `json:"trace"`   // browser requests only
}

// Trace is what happened inside a browser request.
type Trace struct {
	Items       int          `json:"items"`
	CacheHits   int          `json:"cacheHits"`
	Joins       int          `json:"joins"`
	QueueWaitMS *float64     `json:"queueWaitMs"`
	Visits      []TraceVisit `json:"visits"`
	Failure     *string      `json:"failure"`
	Part        *string      `json:"part"`
	Queries     []struct {
		Query    string `json:"query"`
		Country  string `json:"country"`
		Language string `json:"language"`
	} `json:"queries,omitempty"`
}

// TraceVisit is one attempt of a visit a request waited on.
type TraceVisit struct {
	Run          string             `json:"run"`
	Joined       bool               `json:"joined"`
	Attempt      int                `json:"attempt"`
	StartedAt    time.Time          `json:"startedAt"`
	QueueWaitMS  float64            `json:"queueWaitMs"`
	DurationMS   float64            `json:"durationMs"`
	Steps        map[string]float64 `json:"steps"` // milliseconds by step
	ProxyCountry *string            `json:"proxyCountry"`
	Failure      *string            `json:"failure"`
	Part         *string            `json:"part"`
}

// ObservationPage is one page of observations, newest first; NextCursor
// is empty on the last page.
type ObservationPage struct {
	Observations []Observation `json:"observations"`
	NextCursor   string        `json:"nextCursor"`
}

// ObservationQuery filters ListObservations; zero fields do not filter.
// Status is a code ("404") or a class ("5xx"); Path a route template.
type ObservationQuery struct {
	KeyID    string
	Status   string
	Path     string
	From, To time.Time
	Limit    int
	Cursor   string
}

// ListObservations returns one page of the account's requests.
func (c *Client) ListObservations(ctx context.Context, q ObservationQuery) (ObservationPage, error) {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("keyId", q.KeyID)
	set("status", q.Status)
	set("path", q.Path)
	set("cursor", q.Cursor)
	if !q.From.IsZero() {
		v.Set("from", q.From.UTC().Format(time.RFC3339Nano))
	}
	if !q.To.IsZero() {
		v.Set("to", q.To.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	var out ObservationPage
	_, err := c.Do(ctx, http.MethodGet, withQuery("/v1/observations", v), nil, &out)
	return out, err
}

// Usage is the account's use per day and key (GET /v1/usage). Billable
// names the counts that are billed.
type Usage struct {
	From     string     `json:"from"`
	To       string     `json:"to"`
	Billable []string   `json:"billable"`
	Days     []UsageDay `json:"days"`
}

// UsageDay is one key's use on one UTC day.
type UsageDay struct {
	Date     string `json:"date"`
	KeyID    string `json:"keyId"`
	Requests []struct {
		Surface string `json:"surface"`
		Outcome string `json:"outcome"`
		Count   int    `json:"count"`
	} `json:"requests"`
	Visits          int `json:"visits"`
	CacheHits       int `json:"cacheHits"`
	Joins           int `json:"joins"`
	AISpent         int `json:"aiSpent"`
	BillableResults int `json:"billableResults"`
}

// UsageQuery selects the days (YYYY-MM-DD, UTC; empty: the API's
// default, the last 30 days) and optionally one key.
type UsageQuery struct {
	From, To string
	KeyID    string
}

// Usage returns the account's use.
func (c *Client) Usage(ctx context.Context, q UsageQuery) (Usage, error) {
	v := url.Values{}
	for k, val := range map[string]string{"from": q.From, "to": q.To, "keyId": q.KeyID} {
		if val != "" {
			v.Set(k, val)
		}
	}
	var out Usage
	_, err := c.Do(ctx, http.MethodGet, withQuery("/v1/usage", v), nil, &out)
	return out, err
}

func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}
