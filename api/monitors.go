package api

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/monitor"
)

// monitorsPath is the root of the monitor resources (issue 24).
const monitorsPath = "/v1/monitors"

// Monitor list limits (GET /v1/monitors, runs, changes ?limit=).
const (
	defaultMonitorLimit = 20
	maxMonitorLimit     = 100
)

// monitorRoutes mounts the monitor endpoints on v1, behind their scope.
func (s *Server) monitorRoutes(v1 *gin.RouterGroup) {
	g := v1.Group(strings.TrimPrefix(monitorsPath, "/v1"), s.require(apikey.ScopeMonitors))
	g.POST("", s.createMonitor)
	g.GET("", s.listMonitors)
	g.GET("/:id", s.getMonitor)
	g.PATCH("/:id", s.updateMonitor)
	g.DELETE("/:id", s.deleteMonitor)
	g.POST("/:id/run", s.runMonitor)
	g.GET("/:id/runs", s.listRuns)
	g.GET("/:id/changes", s.listChanges)
	g.GET("/:id/visibility", s.visibility)
	g.GET("/:id/brands", s.brands)
	g.GET("/:id/sources", s.sources)
	g.GET("/:id/targets/:target/history", s.history)
}

// monitors returns the use case, or answers 503 when there is none.
func (s *Server) monitors(c *gin.Context) (*monitor.Service, bool) {
	if s.opts.Monitors == nil {
		s.writeError(c, kisa.Fail(kisa.Unavailable, kisa.PartService, nil))
		return nil, false
	}
	return s.opts.Monitors, true
}

// monitorError maps the use case's errors: kisa.Invalid for an invalid
// request, the kisa.NotFound failure of what for a missing (or another
// account's) monitor, target or run.
func monitorError(err error, what kisa.Part) error {
	var inv *monitor.InvalidError
	if errors.As(err, &inv) {
		return kisa.InvalidFields(inv.Fields)
	}
	if errors.Is(err, kisa.NotFound) {
		return kisa.Fail(kisa.NotFound, what, nil)
	}
	return err
}

// vetting is what this deployment allows of a monitor's definition.
func (s *Server) vetting(c *gin.Context) monitor.Vetting {
	v := monitor.Vetting{WebhookURL: s.checkWebhook(c.Request.Context())}
	if !s.opts.Countries.Empty() {
		v.Country = s.opts.Countries.Serves
	}
	return v
}

// createMonitor answers POST /v1/monitors: 201, Location and the monitor.
func (s *Server) createMonitor(c *gin.Context) {
	ms, ok := s.monitors(c)
	if !ok {
		return
	}
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	d, err := monitor.Decode(body)
	if err == nil {
		var v monitor.View
		v, err = ms.Create(c.Request.Context(), mustPrincipal(c).AccountID, d, s.vetting(c))
		if err == nil {
			c.Header("Location", monitorsPath+"/"+v.ID)
			writeJSON(c, http.StatusCreated, dataBody{Status: true, Data: v})
			return
		}
	}
	s.writeError(c, monitorError(err, kisa.PartMonitor))
}

// listMonitors answers GET /v1/monitors?limit=&cursor=, newest first.
func (s *Server) listMonitors(c *gin.Context) {
	ms, ok := s.monitors(c)
	if !ok {
		return
	}
	limit, err := pageLimit(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	page, err := ms.List(c.Request.Context(), mustPrincipal(c).AccountID, c.Query("cursor"), limit)
	s.answer(c, page, monitorError(err, kisa.PartMonitor))
}

// answer writes data, or err when there is one.
func (s *Server) answer(c *gin.Context, data any, err error) {
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, data)
}

// monitorID reads the path's monitor id; a malformed one is a 404.
func (s *Server) monitorID(c *gin.Context) (*monitor.Service, uuid.UUID, bool) {
	ms, ok := s.monitors(c)
	if !ok {
		return nil, uuid.Nil, false
	}
	id, ok := s.pathID(c, kisa.PartMonitor)
	return ms, id, ok
}

// getMonitor answers GET /v1/monitors/{id} with its targets.
func (s *Server) getMonitor(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	v, err := ms.Get(c.Request.Context(), mustPrincipal(c).AccountID, id)
	s.answer(c, v, monitorError(err, kisa.PartMonitor))
}

// updateMonitor answers PATCH /v1/monitors/{id}: the fields given
// replace the monitor's.
func (s *Server) updateMonitor(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	body, err := io.ReadAll(c.Request.Body)
	if err != nil {
		s.writeError(c, readError(err))
		return
	}
	v, err := ms.Update(c.Request.Context(), mustPrincipal(c).AccountID, id, body, s.vetting(c))
	s.answer(c, v, monitorError(err, kisa.PartMonitor))
}

// deleteMonitor answers DELETE /v1/monitors/{id}: 204.
func (s *Server) deleteMonitor(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	if err := ms.Delete(c.Request.Context(), mustPrincipal(c).AccountID, id); err != nil {
		s.writeError(c, monitorError(err, kisa.PartMonitor))
		return
	}
	c.Status(http.StatusNoContent)
}

// runMonitor answers POST /v1/monitors/{id}/run: 202 and the run.
func (s *Server) runMonitor(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	r, err := ms.RunNow(c.Request.Context(), mustPrincipal(c).AccountID, id)
	if err != nil {
		s.writeError(c, monitorError(err, kisa.PartMonitor))
		return
	}
	writeJSON(c, http.StatusAccepted, dataBody{Status: true, Data: r})
}

// listRuns answers GET /v1/monitors/{id}/runs?limit=&cursor=, newest first.
func (s *Server) listRuns(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	limit, err := pageLimit(c)
	if err != nil {
		s.writeError(c, err)
		return
	}
	page, err := ms.Runs(c.Request.Context(), mustPrincipal(c).AccountID, id, c.Query("cursor"), limit)
	s.answer(c, page, monitorError(err, kisa.PartMonitor))
}

// listChanges answers GET /v1/monitors/{id}/changes?since=&limit=&cursor=,
// oldest first.
func (s *Server) listChanges(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	v := validation{}
	since := queryTime(c, v, "since")
	limit, lerr := pageLimit(c)
	if len(v) > 0 || lerr != nil {
		s.writeError(c, errors.Join(v.errOrNil(), lerr))
		return
	}
	page, err := ms.Changes(c.Request.Context(), mustPrincipal(c).AccountID, id, since, c.Query("cursor"), limit)
	s.answer(c, page, monitorError(err, kisa.PartMonitor))
}

// visibility answers GET /v1/monitors/{id}/visibility?from=&to=&groupBy=.
func (s *Server) visibility(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	v := validation{}
	sp := querySpan(c, v)
	group := c.DefaultQuery("groupBy", monitor.ByDay)
	if group != monitor.ByDay && group != monitor.ByCountry {
		v.add("groupBy", "must be day or country")
	}
	if len(v) > 0 {
		s.writeError(c, v.err())
		return
	}
	rep, err := ms.Visibility(c.Request.Context(), mustPrincipal(c).AccountID, id, sp, group)
	s.answer(c, rep, monitorError(err, kisa.PartMonitor))
}

// brands answers GET /v1/monitors/{id}/brands?from=&to=&groupBy=&format=:
// each brand's figures per group, as JSON or CSV.
func (s *Server) brands(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	v := validation{}
	sp := querySpan(c, v)
	var groupBy []string
	for _, g := range c.QueryArray("groupBy") {
		for _, d := range strings.Split(g, ",") {
			d = strings.TrimSpace(d)
			switch {
			case !slices.Contains(monitor.BrandGroupings, d):
				v.add("groupBy", "must be one or more of: %s", strings.Join(monitor.BrandGroupings, ", "))
			case !slices.Contains(groupBy, d):
				groupBy = append(groupBy, d)
			}
		}
	}
	format := queryFormat(c, v)
	if len(v) > 0 {
		s.writeError(c, v.err())
		return
	}
	rep, err := ms.Brands(c.Request.Context(), mustPrincipal(c).AccountID, id, sp, groupBy)
	if err != nil || format == "json" {
		s.answer(c, rep, monitorError(err, kisa.PartMonitor))
		return
	}
	writeBrandsCSV(c, id.String(), rep)
}

// queryFormat reads ?format= (json, the default, or csv).
func queryFormat(c *gin.Context, v validation) string {
	format := c.DefaultQuery("format", "json")
	if format != "json" && format != "csv" {
		v.add("format", "must be json or csv")
	}
	return format
}

// brandColumnsCSV are the columns of the brands CSV after the groupings'.
var brandColumnsCSV = []string{"brand", "own", "readings", "answers", "mentions", "mentionRate", "mentionRateLow", "mentionRateHigh",
	"citationRate", "citationRateLow", "citationRateHigh", "shareOfVoice", "shareOfVoiceLow", "shareOfVoiceHigh",
	"averageFirstMentionRank", "averageCitationPosition"}

// writeBrandsCSV answers the brand report as CSV: one row per group per
// brand, the groupings' values first.
func writeBrandsCSV(c *gin.Context, id string, rep monitor.BrandReport) {
	csvHeaders(c, "brands-"+id+".csv")
	w := newSafeCSV(c.Writer)
	w.Write(slices.Concat(rep.GroupBy, brandColumnsCSV))
	for _, g := range rep.Groups {
		key := make([]string, len(rep.GroupBy))
		for i, d := range rep.GroupBy {
			key[i] = g.Key[d]
		}
		for _, b := range g.Brands {
			row := []string{b.Name, strconv.FormatBool(b.Own), strconv.Itoa(b.Readings), strconv.Itoa(b.Answers), strconv.Itoa(b.Mentions)}
			for _, r := range []struct {
				rate *float64
				iv   *monitor.Interval
			}{{b.MentionRate, b.MentionRateInterval}, {b.CitationRate, b.CitationRateInterval}, {b.ShareOfVoice, b.ShareOfVoiceInterval}} {
				row = append(row, numCell(r.rate))
				if r.iv == nil {
					row = append(row, "", "")
				} else {
					row = append(row, numCell(&r.iv.Low), numCell(&r.iv.High))
				}
			}
			w.Write(slices.Concat(key, row, []string{numCell(b.AverageFirstMentionRank), numCell(b.AverageCitationPosition)}))
		}
	}
	w.Flush()
}

// csvHeaders starts a CSV answer saved as name.
func csvHeaders(c *gin.Context, name string) {
	c.Header("Content-Type", "text/csv; charset=utf-8")
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	c.Status(http.StatusOK)
}

// numCell is a number's cell, empty for nil.
func numCell(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

// sources answers GET /v1/monitors/{id}/sources?from=&to=&limit=&format=:
// the domains the answers cite most, as JSON or CSV.
func (s *Server) sources(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	v := validation{}
	sp := querySpan(c, v)
	limit := monitor.DefaultSources
	if l, ok := c.GetQuery("limit"); ok {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > monitor.MaxSources {
			v.add("limit", "must be a whole number from 1 to %d", monitor.MaxSources)
		}
		limit = n
	}
	format := queryFormat(c, v)
	if len(v) > 0 {
		s.writeError(c, v.err())
		return
	}
	rep, err := ms.Sources(c.Request.Context(), mustPrincipal(c).AccountID, id, sp, limit)
	if err != nil || format == "json" {
		s.answer(c, rep, monitorError(err, kisa.PartMonitor))
		return
	}
	csvHeaders(c, "sources-"+id.String()+".csv")
	w := newSafeCSV(c.Writer)
	w.Write([]string{"domain", "kind", "brand", "surface", "answers", "share"})
	for _, d := range rep.Domains {
		brand := ""
		if d.Brand != nil {
			brand = *d.Brand
		}
		w.Write([]string{d.Domain, d.Kind, brand, "", strconv.Itoa(d.Answers), numCell(&d.Share)})
		for _, sf := range slices.Sorted(maps.Keys(d.BySurface)) {
			x := d.BySurface[sf]
			w.Write([]string{d.Domain, d.Kind, brand, sf, strconv.Itoa(x.Answers), numCell(&x.Share)})
		}
	}
	w.Flush()
}

// history answers GET /v1/monitors/{id}/targets/{target}/history?from=&to=
// as JSON, or with format=csv one row per reading per source.
func (s *Server) history(c *gin.Context) {
	ms, id, ok := s.monitorID(c)
	if !ok {
		return
	}
	target, err := uuid.Parse(c.Param("target"))
	if err != nil {
		s.writeError(c, kisa.Fail(kisa.NotFound, kisa.PartTarget, nil))
		return
	}
	v := validation{}
	sp := querySpan(c, v)
	format := c.DefaultQuery("format", "json")
	if format != "json" && format != "csv" {
		v.add("format", "must be json or csv")
	}
	if len(v) > 0 {
		s.writeError(c, v.err())
		return
	}
	h, err := ms.History(c.Request.Context(), mustPrincipal(c).AccountID, id, target, sp)
	if err != nil {
		s.writeError(c, monitorError(err, kisa.PartTarget))
		return
	}
	if format == "csv" {
		writeHistoryCSV(c, h)
		return
	}
	writeData(c, h)
}

// historyColumns are the CSV's columns before the brands'.
var historyColumns = []string{"time", "status", "failure", "query", "countryCode", "languageCode", "device", "location", "sample", "hasOverview",
	"sourcePosition", "sourceUrl", "sourceTitle", "sourceName", "text"}

// brandColumns are the CSV's columns of each brand, after historyColumns:
// "<brand> mentions" and so on.
var brandColumns = []string{"mentions", "firstMentionRank", "citationPositions", "passage"}

// writeHistoryCSV answers the history as CSV: one row per reading per
// source, one row for a reading without sources; then for each brand any
// reading measured (in order of first appearance) its figures in that
// reading.
func writeHistoryCSV(c *gin.Context, h monitor.History) {
	csvHeaders(c, "history-"+h.Target.ID+".csv")
	w := newSafeCSV(c.Writer)
	var brands []string
	seen := map[string]bool{}
	for _, r := range h.Readings {
		for _, b := range r.Brands {
			if !seen[b.Name] {
				seen[b.Name] = true
				brands = append(brands, b.Name)
			}
		}
	}
	header := slices.Clone(historyColumns)
	for _, b := range brands {
		for _, col := range brandColumns {
			header = append(header, b+" "+col)
		}
	}
	w.Write(header)
	for _, r := range h.Readings {
		base := []string{r.Time.Format(time.RFC3339), r.Status, deref(r.Failure), h.Target.Query,
			h.Target.CountryCode, h.Target.LanguageCode, h.Target.Device, h.Target.Location.String(), strconv.Itoa(r.Sample), boolCell(r.HasOverview)}
		tail := append([]string{deref(r.Text)}, brandCells(r, brands)...)
		if len(r.Sources) == 0 {
			w.Write(slices.Concat(base, []string{"", "", "", ""}, tail))
			continue
		}
		for _, src := range r.Sources {
			w.Write(slices.Concat(base, []string{strconv.Itoa(src.Position), src.URL, src.Title, src.Source.Source}, tail))
		}
	}
	w.Flush()
}

// brandCells are the brand columns of one reading: empty for a brand it
// was not measured against.
func brandCells(r monitor.ReadingView, brands []string) []string {
	out := make([]string, 0, len(brands)*len(brandColumns))
	for _, name := range brands {
		i := slices.IndexFunc(r.Brands, func(f monitor.BrandFigures) bool { return f.Name == name })
		if i < 0 {
			out = append(out, "", "", "", "")
			continue
		}
		f := r.Brands[i]
		rank, positions := "", make([]string, len(f.CitationPositions))
		if f.FirstMentionRank != nil {
			rank = strconv.Itoa(*f.FirstMentionRank)
		}
		for j, p := range f.CitationPositions {
			positions[j] = strconv.Itoa(p)
		}
		out = append(out, strconv.Itoa(f.Mentions), rank, strings.Join(positions, " "), deref(f.Passage))
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func boolCell(b *bool) string {
	if b == nil {
		return ""
	}
	return strconv.FormatBool(*b)
}

// pageLimit reads ?limit= (1 to maxMonitorLimit, default
// defaultMonitorLimit); a bad one is a 422.
func pageLimit(c *gin.Context) (int, error) {
	l, ok := c.GetQuery("limit")
	if !ok {
		return defaultMonitorLimit, nil
	}
	n, err := strconv.Atoi(l)
	if err != nil || n < 1 || n > maxMonitorLimit {
		v := validation{}
		v.add("limit", "must be a whole number from 1 to %d", maxMonitorLimit)
		return 0, v.err()
	}
	return n, nil
}

// queryTime reads an RFC 3339 time or a date (YYYY-MM-DD, UTC) from the
// query parameter name; absent is the zero time.
func queryTime(c *gin.Context, v validation, name string) time.Time {
	s, ok := c.GetQuery(name)
	if !ok || s == "" {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t
	}
	v.add(name, "must be a time (RFC 3339, e.g. 2026-11-26T06:00:00Z) or a date (2026-11-26)")
	return time.Time{}
}

// querySpan reads from and to; from must come before to.
func querySpan(c *gin.Context, v validation) monitor.Span {
	sp := monitor.Span{From: queryTime(c, v, "from"), To: queryTime(c, v, "to")}
	if !sp.From.IsZero() && !sp.To.IsZero() && !sp.From.Before(sp.To) {
		v.add("to", "must be after from")
	}
	return sp
}

// errOrNil is v's error, nil when it holds no problem.
func (v validation) errOrNil() error {
	if len(v) == 0 {
		return nil
	}
	return v.err()
}
