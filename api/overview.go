package api

import (
	"io"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
)

// overview answers POST /v1/networks/browser/ai-overview: it decodes and
// validates the body, runs it through the overview service and encodes
// the answer; with "async": true it submits a job instead (jobs.go). Failures are told through the table in errors.go.
func (s *Server) overview(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	b, err := parseOverviewBody(body, s.checkWebhook(c.Request.Context()))
	if err != nil {
		s.writeError(c, err)
		return
	}
	if b.Async {
		s.submitJob(c, b)
		return
	}
	req := b.Request
	if s.opts.Overviews == nil {
		s.writeError(c, kisa.Fail(kisa.Unavailable, kisa.PartService, nil))
		return
	}
	data, err := s.opts.Overviews.Run(c.Request.Context(), req)
	if err != nil {
		s.writeError(c, err)
		return
	}
	s.metrics.cache.WithLabelValues(map[bool]string{true: "hit", false: "miss"}[data.IsCached]).Inc()
	writeData(c, data)
}
