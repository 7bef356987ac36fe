package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
)

// Paths of the async overview resources.
const (
	jobsPath    = overviewPath + "/jobs"
	batchPath   = overviewPath + "/batch"
	batchesPath = overviewPath + "/batches"
)

// Job list limits (GET .../jobs?limit=).
const (
	defaultJobLimit = 20
	maxJobLimit     = 100
)

// checkWebhook vets a webhook URL with the server's guard.
func (s *Server) checkWebhook(ctx context.Context) func(string) error {
	return func(u string) error { return s.opts.Webhooks.CheckURL(ctx, u) }
}

// jobs returns the async use case, or answers 503 when there is none.
func (s *Server) jobs(c *gin.Context) (*overview.Jobs, bool) {
	if s.opts.Jobs == nil {
		s.writeError(c, kisa.Fail(kisa.Unavailable, kisa.PartService, nil))
		return nil, false
	}
	return s.opts.Jobs, true
}

// submitJob answers an overview body with "async": true: 202, Location
// and the job.
func (s *Server) submitJob(c *gin.Context, b overviewBody) {
	js, ok := s.jobs(c)
	if !ok {
		return
	}
	job, err := js.Submit(c.Request.Context(), mustPrincipal(c).AccountID,
		overview.Submission{Request: b.Request, WebhookURL: b.Webhook})
	if err != nil {
		s.writeError(c, err)
		return
	}
	c.Header("Location", jobsPath+"/"+job.ID)
	writeJSON(c, http.StatusAccepted, dataBody{Status: true, Data: job})
}

// getJob answers GET .../jobs/{id}. Another account's job, an unknown
// and a malformed id get the same 404.
func (s *Server) getJob(c *gin.Context) {
	js, ok := s.jobs(c)
	if !ok {
		return
	}
	id, ok := s.pathID(c, kisa.PartJob)
	if !ok {
		return
	}
	job, err := js.Get(c.Request.Context(), mustPrincipal(c).AccountID, id)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, job)
}

// listJobs answers GET .../jobs?status=&limit=&cursor=: the account's
// jobs, newest first.
func (s *Server) listJobs(c *gin.Context) {
	js, ok := s.jobs(c)
	if !ok {
		return
	}
	q, err := parseListQuery(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	page, err := js.List(c.Request.Context(), mustPrincipal(c).AccountID, q)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, page)
}

// parseListQuery reads status, limit and cursor; problems are one 422.
func parseListQuery(c *gin.Context) (overview.ListQuery, error) {
	v := validation{}
	q := overview.ListQuery{Limit: defaultJobLimit, Status: c.Query("status"), Cursor: c.Query("cursor")}
	switch q.Status {
	case "", storage.JobQueued, storage.JobRunning, storage.JobDone, storage.JobFailed:
	default:
		v.add("status", "must be one of queued, running, done, failed")
	}
	if l, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxJobLimit {
			v.add("limit", "must be a whole number from 1 to %d", maxJobLimit)
		}
		q.Limit = n
	}
	if len(v) > 0 {
		return q, v.err()
	}
	return q, nil
}

// submitBatch answers POST .../batch: 202, Location and the batch. It
// spends one AI request per item; nothing is stored when the budget is
// short.
func (s *Server) submitBatch(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	b, err := parseBatchBody(body, s.opts.Countries, s.checkWebhook(c.Request.Context()))
	if err != nil {
		s.writeError(c, err)
		return
	}
	if limit := s.aiLimit(c); limit > 0 && len(b.Requests) > limit {
		s.writeError(c, kisa.InvalidFields(map[string]string{
			"requests": fmt.Sprintf("must hold at most %d requests: a batch spends one AI request per item, and this API key may make %d a minute", limit, limit)}))
		return
	}
	js, ok := s.jobs(c)
	if !ok || !s.spendAI(c, len(b.Requests)-1) {
		return
	}
	subs := make([]overview.Submission, len(b.Requests))
	for i, r := range b.Requests {
		subs[i] = overview.Submission{Request: r}
	}
	batch, err := js.SubmitBatch(c.Request.Context(), mustPrincipal(c).AccountID, subs, b.Webhook)
	if err != nil {
		s.writeError(c, err)
		return
	}
	c.Header("Location", batchesPath+"/"+batch.ID)
	writeJSON(c, http.StatusAccepted, dataBody{Status: true, Data: batch})
}

// getBatch answers GET .../batches/{id}, with the same 404 for another
// account's batch, an unknown and a malformed id.
func (s *Server) getBatch(c *gin.Context) {
	js, ok := s.jobs(c)
	if !ok {
		return
	}
	id, ok := s.pathID(c, kisa.PartBatch)
	if !ok {
		return
	}
	b, err := js.GetBatch(c.Request.Context(), mustPrincipal(c).AccountID, id)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, b)
}
