package ops

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// NewRegistry returns a process's metric registry with the Go runtime and
// process collectors; each process makes one, in main.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// MetricsHandler serves reg in the Prometheus text format.
func MetricsHandler(reg *prometheus.Registry, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slogPrinter{log}, Registry: reg})
}

// slogPrinter lets promhttp log through slog.
type slogPrinter struct{ log *slog.Logger }

// Println logs v at error level (promhttp.Logger).
func (p slogPrinter) Println(v ...any) { p.log.Error("metrics", "error", v) }

// queueCollector reports a queue's task counts by state, read from asynq
// at scrape time. Only one process kind registers it (the worker), so
// that a sum over processes does not over-count.
type queueCollector struct {
	inspector *asynq.Inspector
	queue     string
	tasks     *prometheus.Desc
	up        *prometheus.Desc
}

// NewQueueCollector returns the collector of queue's sizes,
// kisa_queue_tasks{queue,state}, and kisa_queue_up (0 while Redis does
// not answer).
func NewQueueCollector(inspector *asynq.Inspector, queue string) prometheus.Collector {
	return &queueCollector{inspector: inspector, queue: queue,
		tasks: prometheus.NewDesc("kisa_queue_tasks", "Tasks in the asynq queue by state.", []string{"queue", "state"}, nil),
		up:    prometheus.NewDesc("kisa_queue_up", "1 when the queue sizes could be read from Redis.", []string{"queue"}, nil)}
}

// Describe sends the collector's descriptions (prometheus.Collector).
func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.tasks; ch <- q.up }

// Collect reads the queue's sizes (prometheus.Collector); a queue that
// does not exist yet counts as empty.
func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	info, err := q.inspector.GetQueueInfo(q.queue)
	switch {
	case err == nil:
	case errors.Is(err, asynq.ErrQueueNotFound):
		info = &asynq.QueueInfo{}
	default:
		ch <- prometheus.MustNewConstMetric(q.up, prometheus.GaugeValue, 0, q.queue)
		return
	}
	for state, n := range map[string]int{"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled,
		"retry": info.Retry, "archived": info.Archived, "completed": info.Completed} {
		ch <- prometheus.MustNewConstMetric(q.tasks, prometheus.GaugeValue, float64(n), q.queue, state)
	}
	ch <- prometheus.MustNewConstMetric(q.up, prometheus.GaugeValue, 1, q.queue)
}
