package api

import (
	"io"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
)

// overview answers POST /v1/networks/browser/ai-overview (browse).
func (s *Server) overview(c *gin.Context) { s.browse(c, kisa.SurfaceOverview) }

// aiMode answers POST /v1/networks/browser/ai-mode (browse).
func (s *Server) aiMode(c *gin.Context) { s.browse(c, kisa.SurfaceAIMode) }

// webSearch answers POST /v1/networks/browser/web-search (browse).
func (s *Server) webSearch(c *gin.Context) { s.browse(c, kisa.SurfaceWeb) }

// browse answers a request of surface: it decodes and validates the body,
// runs it through the overview service (which serves every surface) and
// encodes the answer; with "async": true it submits a job instead
// (jobs.go). Failures are told through the table in errors.go.
func (s *Server) browse(c *gin.Context, surface kisa.Surface) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	b, err := parseSurfaceBody(body, surface, s.opts.Countries, s.checkWebhook(c.Request.Context()))
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
	data, err := s.opts.Overviews.Run(c.Request.Context(), req, s.slot(c))
	if err != nil {
		s.writeError(c, err)
		return
	}
	s.metrics.cache.WithLabelValues(string(surface), map[bool]string{true: "hit", false: "miss"}[data.IsCached]).Inc()
	writeAnswer(c, data)
}

// writeAnswer writes an overview answer in the success envelope, like
// writeData, but copies its already encoded results instead of having
// encoding/json validate and compact them again.
func writeAnswer(c *gin.Context, a overview.Answer) {
	b := make([]byte, 0, len(a.Results)+96)
	b = append(b, `{"status":true,"data":{"isCached":`...)
	b = strconv.AppendBool(b, a.IsCached)
	b = append(b, `,"cacheExpiresIn":`...)
	if a.CacheExpiresIn == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*a.CacheExpiresIn), 10)
	}
	b = append(b, `,"results":`...)
	b = append(b, a.Results...)
	writeJSONBytes(c, http.StatusOK, append(b, "}}"...))
}

// countries answers GET /v1/networks/browser/countries, for any key: the
// countries with proxies of their own (KISA_PROXIES), and whether every
// other country is served too (no proxies, or a "*" proxy).
func (s *Server) countries(c *gin.Context) {
	list, all := s.opts.Countries.Countries()
	if list == nil {
		list = []string{}
	}
	writeData(c, gin.H{"countries": list, "all": all})
}
