package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kisa-dev/kisa/geo"
)

// monitorsPath is the root of the monitor endpoints.
const monitorsPath = "/v1/monitors"

// MonitorSchedule is when a monitor runs, in UTC: Type hourly (at
// Minute), daily (at Time, "HH:MM"), weekly (on Day at Time) or cron
// (Cron, at most once an hour).
type MonitorSchedule struct {
	Type   string `json:"type"`
	Minute *int   `json:"minute,omitempty"`
	Time   string `json:"time,omitempty"`
	Day    string `json:"day,omitempty"`
	Cron   string `json:"cron,omitempty"`
}

// MonitorTarget is one query a monitor reads; ID is set in answers.
type MonitorTarget struct {
	ID           string `json:"id,omitempty"`
	Surface      string `json:"surface,omitempty"` // ai-overview (the default), ai-mode or web-search
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode,omitempty"`
	LanguageCode string `json:"languageCode,omitempty"`
	// Device is "desktop" (the API's default) or "mobile": the target is
	// read as that device.
	Device string `json:"device,omitempty"`
	// Location narrows where inside the country the target is read: a
	// canonical place name or coordinates; nil is the whole country.
	// Device and Location are part of the target's identity.
	Location *geo.Location `json:"location,omitempty"`
	// Samples is how many readings of the target a run makes (1 to 5;
	// 0 is the API's default, 1).
	Samples int `json:"samples,omitempty"`
}

// Brand is one brand a monitor measures in every answer: its name and
// aliases, its registrable domains, and whether it is the account's own.
type Brand struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	Domains []string `json:"domains,omitempty"`
	Own     bool     `json:"own"`
}

// MonitorDefinition is what creating a monitor sends.
type MonitorDefinition struct {
	Name         string          `json:"name"`
	Schedule     MonitorSchedule `json:"schedule"`
	Targets      []MonitorTarget `json:"targets"`
	WatchDomains []string        `json:"-"`
	WatchBrands  []Brand         `json:"-"`
	WebhookURL   string          `json:"-"`
	Paused       bool            `json:"paused"`
}

// MarshalJSON writes the definition as the API takes it.
func (d MonitorDefinition) MarshalJSON() ([]byte, error) {
	type plain MonitorDefinition
	type watch struct {
		Domains []string `json:"domains"`
		Brands  []Brand  `json:"brands,omitempty"`
	}
	return json.Marshal(struct {
		plain
		Watch   watch        `json:"watch"`
		Webhook *webhookSpec `json:"webhook,omitempty"`
	}{plain(d), watch{nonNil(d.WatchDomains), d.WatchBrands}, hook(d.WebhookURL)})
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Monitor is a monitor as the API shows it.
type Monitor struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Schedule    MonitorSchedule `json:"schedule"`
	TargetCount int             `json:"targetCount"`
	Targets     []MonitorTarget `json:"targets"`
	Watch       struct {
		Domains []string `json:"domains"`
		Brands  []Brand  `json:"brands"`
	} `json:"watch"`
	Webhook *struct {
		URL string `json:"url"`
	} `json:"webhook"`
	Paused    bool      `json:"paused"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// MonitorRun is one run with its readings' counts.
type MonitorRun struct {
	ID         string    `json:"id"`
	MonitorID  string    `json:"monitorId"`
	Trigger    string    `json:"trigger"`
	Slot       time.Time `json:"slot"`
	Status     string    `json:"status"` // running, done, skipped
	SkipReason *string   `json:"skipReason"`
	Counts     struct {
		Targets, Readings, Read, Failed, Changed, Pending int
	} `json:"counts"`
	StartedAt  time.Time  `json:"startedAt"`
	FinishedAt *time.Time `json:"finishedAt"`
}

// MonitorChange is one change event.
type MonitorChange struct {
	ID     string `json:"id"`
	RunID  string `json:"runId"`
	Target struct {
		ID, Surface, Query, CountryCode, LanguageCode, Device string
		Location                                              *geo.Location
	} `json:"target"`
	Time       time.Time `json:"time"`
	Kind       string    `json:"kind"`
	URL        string    `json:"url,omitempty"`
	Domain     string    `json:"domain,omitempty"`
	From       int       `json:"from,omitempty"`
	To         int       `json:"to,omitempty"`
	Position   int       `json:"position,omitempty"`
	Similarity *float64  `json:"similarity,omitempty"`
	// Brand names the brand of a brand.* event; Rate and
	// PreviousInterval are set for a target read in samples.
	Brand            string    `json:"brand,omitempty"`
	Rate             *float64  `json:"rate,omitempty"`
	PreviousInterval *Interval `json:"previousInterval,omitempty"`
}

// Interval is a rate's 95% Wilson interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Page is one page of a list; NextCursor is empty on the last page.
type Page[T any] struct {
	Items      []T    `json:"items"`
	NextCursor string `json:"nextCursor"`
}

// CreateMonitor creates a monitor (201) and returns it with its targets.
func (c *Client) CreateMonitor(ctx context.Context, d MonitorDefinition) (Monitor, error) {
	var out Monitor
	_, err := c.Do(ctx, http.MethodPost, monitorsPath, d, &out)
	return out, err
}

// ListMonitors returns one page of the account's monitors, newest first.
func (c *Client) ListMonitors(ctx context.Context, limit int, cursor string) (Page[Monitor], error) {
	var out Page[Monitor]
	_, err := c.Do(ctx, http.MethodGet, monitorsPath+pageQuery(limit, cursor, nil), nil, &out)
	return out, err
}

// GetMonitor returns one monitor with its targets.
func (c *Client) GetMonitor(ctx context.Context, id string) (Monitor, error) {
	var out Monitor
	_, err := c.Do(ctx, http.MethodGet, monitorsPath+"/"+escape(id), nil, &out)
	return out, err
}

// UpdateMonitor sends a PATCH: the fields of patch (a JSON object, e.g.
// {"paused": true}) replace the monitor's.
func (c *Client) UpdateMonitor(ctx context.Context, id string, patch json.RawMessage) (Monitor, error) {
	var out Monitor
	_, err := c.Do(ctx, http.MethodPatch, monitorsPath+"/"+escape(id), patch, &out)
	return out, err
}

// DeleteMonitor deletes a monitor and its history (204).
func (c *Client) DeleteMonitor(ctx context.Context, id string) error {
	res, err := c.send(ctx, http.MethodDelete, monitorsPath+"/"+escape(id), nil, "application/json")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNoContent {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	r := &Response{StatusCode: res.StatusCode, Header: res.Header, Body: b}
	if err := decodeAnswer(r, nil); err != nil {
		return err
	}
	return fmt.Errorf("kisa: DELETE monitor: status %d", res.StatusCode)
}

// RunMonitor starts a run now (202) and returns it.
func (c *Client) RunMonitor(ctx context.Context, id string) (MonitorRun, error) {
	var out MonitorRun
	_, err := c.Do(ctx, http.MethodPost, monitorsPath+"/"+escape(id)+"/run", nil, &out)
	return out, err
}

// MonitorRuns returns one page of a monitor's runs, newest first.
func (c *Client) MonitorRuns(ctx context.Context, id string, limit int, cursor string) (Page[MonitorRun], error) {
	var out Page[MonitorRun]
	_, err := c.Do(ctx, http.MethodGet, monitorsPath+"/"+escape(id)+"/runs"+pageQuery(limit, cursor, nil), nil, &out)
	return out, err
}

// MonitorChanges returns one page of a monitor's change events at or
// after since (zero: the API's whole history), oldest first.
func (c *Client) MonitorChanges(ctx context.Context, id string, since time.Time, limit int, cursor string) (Page[MonitorChange], error) {
	v := url.Values{}
	if !since.IsZero() {
		v.Set("since", since.UTC().Format(time.RFC3339Nano))
	}
	var out Page[MonitorChange]
	_, err := c.Do(ctx, http.MethodGet, monitorsPath+"/"+escape(id)+"/changes"+pageQuery(limit, cursor, v), nil, &out)
	return out, err
}

// TargetHistory returns a target's readings in [from, to) (zero times:
// the API's defaults) as the API's JSON data, or as CSV with csv true.
func (c *Client) TargetHistory(ctx context.Context, id, target string, from, to time.Time, csv bool) ([]byte, error) {
	v := spanQuery(from, to)
	return c.export(ctx, monitorsPath+"/"+escape(id)+"/targets/"+escape(target)+"/history", v, csv)
}

// export GETs path with the query v as the API's JSON data, or as CSV
// (format=csv) with csv true.
func (c *Client) export(ctx context.Context, path string, v url.Values, csv bool) ([]byte, error) {
	accept := "application/json"
	if csv {
		v.Set("format", "csv")
		accept = "text/csv"
	}
	path += "?" + v.Encode()
	if !csv {
		var out json.RawMessage
		_, err := c.Do(ctx, http.MethodGet, path, nil, &out)
		return out, err
	}
	res, err := c.send(ctx, http.MethodGet, path, nil, accept)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("kisa: read %s: %w", path, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, decodeAnswer(&Response{StatusCode: res.StatusCode, Header: res.Header, Body: b}, nil)
	}
	return b, nil
}

// MonitorBrands returns the brand report in [from, to) (zero times: the
// API's defaults) grouped by any of surface, country, device, language
// and day, as the API's JSON data, or as CSV with csv true.
func (c *Client) MonitorBrands(ctx context.Context, id string, from, to time.Time, groupBy []string, csv bool) ([]byte, error) {
	v := spanQuery(from, to)
	if len(groupBy) > 0 {
		v.Set("groupBy", strings.Join(groupBy, ","))
	}
	return c.export(ctx, monitorsPath+"/"+escape(id)+"/brands", v, csv)
}

// MonitorSources returns the domains the answers cite most in [from, to)
// (limit 0: the API's default), as the API's JSON data, or as CSV with
// csv true.
func (c *Client) MonitorSources(ctx context.Context, id string, from, to time.Time, limit int, csv bool) ([]byte, error) {
	v := spanQuery(from, to)
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	return c.export(ctx, monitorsPath+"/"+escape(id)+"/sources", v, csv)
}

// MonitorVisibility returns the visibility report (JSON data) grouped by
// "day" or "country".
func (c *Client) MonitorVisibility(ctx context.Context, id string, from, to time.Time, groupBy string) (json.RawMessage, error) {
	v := spanQuery(from, to)
	if groupBy != "" {
		v.Set("groupBy", groupBy)
	}
	var out json.RawMessage
	_, err := c.Do(ctx, http.MethodGet, monitorsPath+"/"+escape(id)+"/visibility?"+v.Encode(), nil, &out)
	return out, err
}

func spanQuery(from, to time.Time) url.Values {
	v := url.Values{}
	if !from.IsZero() {
		v.Set("from", from.UTC().Format(time.RFC3339Nano))
	}
	if !to.IsZero() {
		v.Set("to", to.UTC().Format(time.RFC3339Nano))
	}
	return v
}

// pageQuery is "?limit=&cursor=" with v's other parameters ("" when none).
func pageQuery(limit int, cursor string, v url.Values) string {
	if v == nil {
		v = url.Values{}
	}
	if limit > 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}
