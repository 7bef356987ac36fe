package api

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// metrics counts what operators watch, served at /metrics in the
// Prometheus text format. Queue sizes come from asynq at scrape time.
type metrics struct {
	mu       sync.Mutex
	counters map[string]float64 // full series name with labels → value
}

func newMetrics() *metrics { return &metrics{counters: map[string]float64{}} }

// add increases the series name{labels} by v; labels alternate key, value.
func (m *metrics) add(name string, v float64, labels ...string) {
	var b strings.Builder
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%s=%q", labels[i], labels[i+1])
		}
		b.WriteByte('}')
	}
	m.mu.Lock()
	m.counters[b.String()] += v
	m.mu.Unlock()
}

// write prints every series, sorted, with one TYPE line per metric name.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	snapshot := maps.Clone(m.counters)
	m.mu.Unlock()
	typed := map[string]bool{}
	for _, series := range slices.Sorted(maps.Keys(snapshot)) {
		name, _, _ := strings.Cut(series, "{")
		if !typed[name] {
			kind := "counter"
			if strings.HasSuffix(name, "_tasks") {
				kind = "gauge"
			}
			fmt.Fprintf(w, "# TYPE %s %s\n", name, kind)
			typed[name] = true
		}
		fmt.Fprintf(w, "%s %g\n", series, snapshot[series])
	}
}

// serveMetrics answers /metrics: the counters, and the overview queue's
// task counts by state when the overview runner is configured.
func (s *Server) serveMetrics(c *gin.Context) {
	m := newMetrics()
	s.metrics.mu.Lock()
	maps.Copy(m.counters, s.metrics.counters)
	s.metrics.mu.Unlock()
	if s.opts.Overviews != nil {
		if q, err := s.opts.Overviews.QueueSizes(); err == nil {
			for state, n := range q {
				m.add("kisa_overview_queue_tasks", float64(n), "state", state)
			}
		}
	}
	c.Header("Content-Type", "text/plain; version=0.0.4")
	c.Status(200)
	m.write(c.Writer)
}
