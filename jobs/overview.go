// Package jobs holds the task types that the API enqueues and the worker
// runs: their type names, payloads, results and constructors. Both sides
// import it; nothing here talks to Redis or a browser by itself.
package jobs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hibiken/asynq"
)

// TypeOverview is the asynq task type of one AI overview visit.
const TypeOverview = "overview:run"

// QueueOverview is the asynq queue that overview tasks go to.
const QueueOverview = "overview"

// OverviewPayload is what the worker needs to visit one results page.
// Key is the normalised cache key; the worker publishes its result under it.
type OverviewPayload struct {
	Key          string `json:"key"`
	Query        string `json:"query"`
	CountryCode  string `json:"countryCode"`
	LanguageCode string `json:"languageCode"`
	Screenshots  bool   `json:"screenshots"`
}

// NewOverviewTask builds the task for p. Its task id is the cache key, so
// identical requests in flight at once share one task. It returns an error
// only when the payload cannot be encoded.
func NewOverviewTask(p OverviewPayload, timeout time.Duration, maxRetry int) (*asynq.Task, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode overview payload: %w", err)
	}
	return asynq.NewTask(TypeOverview, b,
		asynq.TaskID(p.Key),
		asynq.Queue(QueueOverview),
		asynq.Timeout(timeout),
		asynq.MaxRetry(maxRetry),
		asynq.Retention(0),
	), nil
}

// Citation is one inline citation of an overview (spec 2.4).
type Citation struct {
	URL     string `json:"url"`
	Title   string `json:"title"`
	Source  string `json:"source"`
	Favicon string `json:"favicon"`
}

// Source is one website of the overview's side panel (spec 2.4).
type Source struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Source string `json:"source"`
	Icon   string `json:"icon"`
}

// Paragraph is one block of the overview with the citations standing in it.
type Paragraph struct {
	Text      string     `json:"text"`
	Citations []Citation `json:"citations"`
}

// Overview is what extraction reads from a results page: the
// AiOverviewEntity of spec 2.4 without its screenshots.
type Overview struct {
	HasOverview bool        `json:"hasOverview"`
	Text        string      `json:"text"`
	Citations   []Citation  `json:"citations"`
	Paragraphs  []Paragraph `json:"paragraphs"`
	Sources     []Source    `json:"sources"`
}

// Screenshot names, in the order the worker takes them.
const (
	ShotInitial     = "initial"
	ShotAfterLoad   = "afterLoad"
	ShotAfterExpand = "afterExpand"
)

// OverviewResult is what a finished job publishes: the overview and, when
// screenshots were asked for, the object keys of the three PNGs in the
// bucket (keyed by the Shot* names). The API presigns them on every answer,
// so a URL is always valid for its full 24 hours, also from the cache.
type OverviewResult struct {
	Overview    Overview          `json:"overview"`
	Screenshots map[string]string `json:"screenshots,omitempty"`
	TakenAt     time.Time         `json:"takenAt"`
}

// Outcome is the message a worker publishes when a task ends, for the API
// requests waiting on it. Exactly one of Result and Error is set.
type Outcome struct {
	Result *OverviewResult `json:"result,omitempty"`
	// Error is a short, safe description; Code classifies it.
	Error string `json:"error,omitempty"`
	Code  string `json:"code,omitempty"`
}

// Outcome codes for failed jobs.
const (
	CodeBlocked     = "blocked"     // the search engine answered with its CAPTCHA page
	CodeUnavailable = "unavailable" // browser, MinIO or the search engine could not be reached
	CodeInternal    = "internal"    // anything else
)
