package overview

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/storage"
)

// timeLayout is the API's timestamp format: ISO 8601 UTC with milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time) string { return t.UTC().Format(timeLayout) }

func stampPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := stamp(*t)
	return &s
}

// RequestView is a request as understood, as a job shows it and stores it.
type RequestView struct {
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode"`
	LanguageCode string `json:"languageCode"`
	Device       string `json:"device"`
	// Location is absent for the whole country.
	Location    *geo.Location `json:"location,omitempty"`
	Screenshots bool          `json:"screenshots"`
	RawHTML     bool          `json:"rawHtml"`
	Fields      FieldsView    `json:"fields"`
	Cache       CacheView     `json:"cache"`
	// Surface, FollowUps and MaxResults are those of AI Mode and web
	// search requests; absent for the overview.
	Surface    kisa.Surface `json:"surface,omitempty"`
	FollowUps  []string     `json:"followUps,omitempty"`
	MaxResults int          `json:"maxResults,omitempty"`
	// WebSearch is a ChatGPT request's webSearch; absent for the others.
	WebSearch *bool `json:"webSearch,omitempty"`
}

// FieldsView is the `fields` selection; an absent list keeps every field.
type FieldsView struct {
	Sources    []string       `json:"sources,omitempty"`
	Citations  []string       `json:"citations,omitempty"`
	Paragraphs ParagraphsView `json:"paragraphs"`
	RawHTML    bool           `json:"rawHtml"`
	// Organic are a web search's fields of its organic results.
	Organic []string `json:"organic,omitempty"`
}

// ParagraphsView is the paragraph part of FieldsView.
type ParagraphsView struct {
	Text      bool     `json:"text"`
	Citations []string `json:"citations,omitempty"`
}

// CacheView is the request's cache setting.
type CacheView struct {
	Enabled bool `json:"enabled"`
	TTL     int  `json:"ttl"`
}

// View returns r as a job shows it.
func (r Request) View() RequestView {
	v := RequestView{Query: r.Query, CountryCode: r.Country, LanguageCode: r.Language, Device: r.Device, Screenshots: r.Screenshots,
		RawHTML: r.RawHTML,
		Fields: FieldsView{Sources: r.Fields.Sources, Citations: r.Fields.Citations, RawHTML: r.Fields.RawHTML,
			Paragraphs: ParagraphsView{Text: r.Fields.ParagraphText, Citations: r.Fields.ParagraphCitation}},
		Cache: CacheView{Enabled: r.CacheOn, TTL: r.CacheTTL}}
	if v.Device == "" {
		v.Device = kisa.DeviceDesktop
	}
	if !r.Location.IsZero() {
		loc := r.Location
		v.Location = &loc
	}
	if r.Surface.OrOverview() != kisa.SurfaceOverview {
		v.Surface, v.FollowUps, v.MaxResults, v.Fields.Organic = r.Surface, r.FollowUps, r.MaxResults, r.Fields.Organic
	}
	if r.Surface == kisa.SurfaceChatGPT {
		w := r.WebSearch
		v.WebSearch = &w
	}
	return v
}

// Request returns the request v shows.
func (v RequestView) Request() Request {
	r := Request{Query: v.Query, Country: v.CountryCode, Language: v.LanguageCode, Device: v.Device, Screenshots: v.Screenshots,
		RawHTML: v.RawHTML, CacheOn: v.Cache.Enabled, CacheTTL: v.Cache.TTL,
		Fields: Fields{Sources: v.Fields.Sources, Citations: v.Fields.Citations, RawHTML: v.Fields.RawHTML,
			ParagraphText: v.Fields.Paragraphs.Text, ParagraphCitation: v.Fields.Paragraphs.Citations}}
	if v.Location != nil {
		r.Location = *v.Location
	}
	r.Surface, r.FollowUps, r.MaxResults, r.Fields.Organic = v.Surface, v.FollowUps, v.MaxResults, v.Fields.Organic
	r.WebSearch = v.WebSearch != nil && *v.WebSearch
	return r
}

// Job is an async job as the API shows it (GET .../jobs/{id}) and as its
// webhook carries it.
type Job struct {
	ID         string      `json:"id"`
	Status     string      `json:"status"`
	BatchID    *string     `json:"batchId,omitempty"`
	Request    RequestView `json:"request"`
	CreatedAt  string      `json:"createdAt"`
	StartedAt  *string     `json:"startedAt"`
	FinishedAt *string     `json:"finishedAt"`
	// Result is exactly the `data` of the synchronous call, when done.
	Result *Answer `json:"result,omitempty"`
	// ScreenshotsExpired is true once the result's objects are past
	// ScreenshotLife: Result then has no `screenshots` and no `rawHtml`.
	ScreenshotsExpired bool `json:"screenshotsExpired,omitempty"`
	// Error is the synchronous call's message, when failed; Retryable
	// says whether submitting again may succeed.
	Error     string       `json:"error,omitempty"`
	Retryable *bool        `json:"retryable,omitempty"`
	Webhook   *WebhookView `json:"webhook,omitempty"`
}

// WebhookView is the delivery state of a job's or a batch's webhook.
type WebhookView struct {
	URL         string  `json:"url"`
	Attempts    int     `json:"attempts"`
	LastStatus  *int    `json:"lastStatus"`
	DeliveredAt *string `json:"deliveredAt"`
}

func webhookView(d storage.Delivery) *WebhookView {
	if d.URL == nil {
		return nil
	}
	return &WebhookView{URL: *d.URL, Attempts: d.Attempts, LastStatus: d.LastStatus, DeliveredAt: stampPtr(d.DeliveredAt)}
}

// JobPage is one page of an account's jobs, newest first. NextCursor
// continues the list; it is null on the last page.
type JobPage struct {
	Jobs       []Job   `json:"jobs"`
	NextCursor *string `json:"nextCursor"`
}

// Batch is a batch as the API shows it.
type Batch struct {
	ID         string         `json:"id"`
	Status     string         `json:"status"` // running until every job has ended, then done
	CreatedAt  string         `json:"createdAt"`
	FinishedAt *string        `json:"finishedAt"`
	Counts     map[string]int `json:"counts"`
	Jobs       []BatchItem    `json:"jobs"`
	Webhook    *WebhookView   `json:"webhook,omitempty"`
}

// BatchItem is one job of a batch; Surface is absent for an overview.
type BatchItem struct {
	ID      string       `json:"id"`
	Status  string       `json:"status"`
	Query   string       `json:"query"`
	Surface kisa.Surface `json:"surface,omitempty"`
}

// Batch statuses.
const (
	BatchRunning = "running"
	BatchDone    = "done"
)

func batchView(b storage.Batch, rows []storage.Job) (Batch, error) {
	out := Batch{ID: b.ID.String(), Status: BatchDone, CreatedAt: stamp(b.CreatedAt), FinishedAt: stampPtr(b.DoneAt),
		Counts: map[string]int{storage.JobQueued: 0, storage.JobRunning: 0, storage.JobDone: 0, storage.JobFailed: 0},
		Jobs:   make([]BatchItem, 0, len(rows)), Webhook: webhookView(b.Delivery)}
	for _, r := range rows {
		var req RequestView
		if err := json.Unmarshal(r.Request, &req); err != nil {
			return Batch{}, err
		}
		out.Counts[r.Status]++
		if r.Status == storage.JobQueued || r.Status == storage.JobRunning {
			out.Status = BatchRunning
		}
		out.Jobs = append(out.Jobs, BatchItem{ID: r.ID.String(), Status: r.Status, Query: req.Query, Surface: req.Surface})
	}
	if out.Status == BatchRunning {
		out.FinishedAt = nil
	}
	return out, nil
}

// errBadCursor is the failure of a list cursor this service did not make.
var errBadCursor = kisa.InvalidFields(map[string]string{"cursor": "is not a cursor of this list; use nextCursor as given"})

// encodeCursor makes the opaque cursor that continues a list after j.
func encodeCursor(j storage.Job) string {
	return base64.RawURLEncoding.EncodeToString(
		[]byte(strconv.FormatInt(j.CreatedAt.UnixMicro(), 10) + "." + j.ID.String()))
}

// decodeCursor reads a cursor made by encodeCursor; errBadCursor otherwise.
func decodeCursor(s string) (storage.JobCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return storage.JobCursor{}, errBadCursor
	}
	micros, id, ok := strings.Cut(string(b), ".")
	us, err := strconv.ParseInt(micros, 10, 64)
	if !ok || err != nil || us < 0 {
		return storage.JobCursor{}, errBadCursor
	}
	uid, err := uuid.Parse(id)
	if err != nil || uid.String() != id {
		return storage.JobCursor{}, errBadCursor
	}
	return storage.JobCursor{CreatedAt: time.UnixMicro(us).UTC(), ID: uid}, nil
}
