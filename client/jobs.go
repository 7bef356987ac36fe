package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Job statuses; done and failed are final.
const (
	JobQueued  = "queued"
	JobRunning = "running"
	JobDone    = "done"
	JobFailed  = "failed"
)

// Job is an async overview job (GET .../ai-overview/jobs/{id}), as a
// webhook also carries it.
type Job struct {
	ID         string          `json:"id"`
	Status     string          `json:"status"`
	BatchID    string          `json:"batchId,omitempty"`
	Request    json.RawMessage `json:"request"` // the request as the API understood it, defaults filled in
	CreatedAt  time.Time       `json:"createdAt"`
	StartedAt  *time.Time      `json:"startedAt"`
	FinishedAt *time.Time      `json:"finishedAt"`
	// Result is what the synchronous call answers, once done, for an
	// overview; AIModeResult and WebSearchResult decode the others'.
	Result             *OverviewResponse `json:"result,omitempty"`
	ScreenshotsExpired bool              `json:"screenshotsExpired,omitempty"`
	// Error says why it failed; Retryable whether submitting again may help.
	Error     string           `json:"error,omitempty"`
	Retryable *bool            `json:"retryable,omitempty"`
	Webhook   *WebhookDelivery `json:"webhook,omitempty"`

	rawResult json.RawMessage // the result as it came (surfaces.go)
}

// UnmarshalJSON decodes a job and keeps its result as it came.
func (j *Job) UnmarshalJSON(b []byte) error {
	type plain Job
	var raw struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, (*plain)(j)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	j.rawResult = raw.Result
	return nil
}

// Final reports whether the job has ended (done or failed).
func (j Job) Final() bool { return j.Status == JobDone || j.Status == JobFailed }

// WebhookDelivery is the delivery state of a job's or batch's webhook.
type WebhookDelivery struct {
	URL         string     `json:"url"`
	Attempts    int        `json:"attempts"`
	LastStatus  *int       `json:"lastStatus"`
	DeliveredAt *time.Time `json:"deliveredAt"`
}

// JobPage is one page of the account's jobs, newest first; NextCursor
// is empty on the last page.
type JobPage struct {
	Jobs       []Job  `json:"jobs"`
	NextCursor string `json:"nextCursor"`
}

// JobQuery filters ListJobs: a status, a page size (API default 20, at
// most 100) and the cursor of the page to continue from.
type JobQuery struct {
	Status string
	Limit  int
	Cursor string
}

// Batch is a batch of async jobs (GET .../ai-overview/batches/{id}).
type Batch struct {
	ID         string           `json:"id"`
	Status     string           `json:"status"` // running, then done once every job has ended
	CreatedAt  time.Time        `json:"createdAt"`
	FinishedAt *time.Time       `json:"finishedAt"`
	Counts     map[string]int   `json:"counts"`
	Jobs       []BatchJob       `json:"jobs"`
	Webhook    *WebhookDelivery `json:"webhook,omitempty"`
}

// BatchJob is one job of a batch; Surface is "ai-mode" or "web-search",
// empty for an overview.
type BatchJob struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Query   string `json:"query"`
	Surface string `json:"surface,omitempty"`
}

const overviewPath = "/v1/networks/browser/ai-overview"

// asyncOverview is an OverviewRequest submitted as a job.
type asyncOverview struct {
	OverviewRequest
	Async   bool         `json:"async"`
	Webhook *webhookSpec `json:"webhook,omitempty"`
}

// webhookSpec is the webhook of a submission: {"url": "..."}.
type webhookSpec struct {
	URL string `json:"url"`
}

func hook(url string) *webhookSpec {
	if url == "" {
		return nil
	}
	return &webhookSpec{URL: url}
}

// SubmitOverview submits req as an async job (202) and returns it at
// once, queued; webhookURL (may be empty) is called, signed, when it ends.
func (c *Client) SubmitOverview(ctx context.Context, req OverviewRequest, webhookURL string) (Job, error) {
	var out Job
	_, err := c.Do(ctx, http.MethodPost, overviewPath, asyncOverview{req, true, hook(webhookURL)}, &out)
	return out, err
}

// GetJob returns one of the account's jobs; an unknown id is a 404 *Error.
func (c *Client) GetJob(ctx context.Context, id string) (Job, error) {
	var out Job
	_, err := c.Do(ctx, http.MethodGet, overviewPath+"/jobs/"+escape(id), nil, &out)
	return out, err
}

// ListJobs returns one page of the account's jobs, newest first.
func (c *Client) ListJobs(ctx context.Context, q JobQuery) (JobPage, error) {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.Cursor != "" {
		v.Set("cursor", q.Cursor)
	}
	path := overviewPath + "/jobs"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	var out JobPage
	_, err := c.Do(ctx, http.MethodGet, path, nil, &out)
	return out, err
}

// WaitJob polls a job every interval (at least 100 ms) until it has
// ended or ctx is done, and returns it as last seen. A failed job is
// returned without an error: read its Error and Retryable.
func (c *Client) WaitJob(ctx context.Context, id string, interval time.Duration) (Job, error) {
	interval = max(interval, 100*time.Millisecond)
	for {
		job, err := c.GetJob(ctx, id)
		if err != nil || job.Final() {
			return job, err
		}
		if err := sleep(ctx, interval); err != nil {
			return job, fmt.Errorf("kisa: wait for job %s: %w", id, err)
		}
	}
}

// SubmitBatch submits requests as one batch of async jobs (202);
// webhookURL (may be empty) is called once every job has ended.
func (c *Client) SubmitBatch(ctx context.Context, reqs []OverviewRequest, webhookURL string) (Batch, error) {
	body := struct {
		Requests []OverviewRequest `json:"requests"`
		Webhook  *webhookSpec      `json:"webhook,omitempty"`
	}{reqs, hook(webhookURL)}
	var out Batch
	_, err := c.Do(ctx, http.MethodPost, overviewPath+"/batch", body, &out)
	return out, err
}

// GetBatch returns one of the account's batches; an unknown id is a 404 *Error.
func (c *Client) GetBatch(ctx context.Context, id string) (Batch, error) {
	var out Batch
	_, err := c.Do(ctx, http.MethodGet, overviewPath+"/batches/"+escape(id), nil, &out)
	return out, err
}
