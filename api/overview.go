package api

import (
	"io"

	"github.com/gin-gonic/gin"

	"github.com/kisa-dev/kisa"
)

// overview answers POST /v1/networks/browser/ai-overview: it decodes and
// validates the body, runs it through the overview service and encodes
// the answer. Failures are told through the table in errors.go.
func (s *Server) overview(c *gin.Context) {
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	req, err := parseOverviewRequest(body, s.opts.Countries)
	if err != nil {
		s.writeError(c, err)
		return
	}
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

// countries answers GET /v1/networks/browser/countries, for any key: the
// countries with exits of their own (KISA_PROXIES), and whether every
// other country is served too (no proxies, or a "*" exit).
func (s *Server) countries(c *gin.Context) {
	list, all := s.opts.Countries.Countries()
	if list == nil {
		list = []string{}
	}
	writeData(c, gin.H{"countries": list, "all": all})
}
