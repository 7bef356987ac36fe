package ops

import (
	"log/slog"
	"net/http"
	"slices"

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

// queueCollector reports the task counts of queues by state, read from
// asynq at scrape time. Only one process kind registers it (the worker),
// so that a sum over processes does not over-count.
type queueCollector struct {
	inspector *asynq.Inspector
	queues    []string
	tasks     *prometheus.Desc
	up        *prometheus.Desc
}

// NewQueueCollector returns the collector of the queues' sizes,
// kisa_queue_tasks{queue,state}, and kisa_queue_up{queue} (0 while Redis
// does not answer).
func NewQueueCollector(inspector *asynq.Inspector, queues ...string) prometheus.Collector {
	return &queueCollector{inspector: inspector, queues: queues,
		tasks: prometheus.NewDesc("kisa_queue_tasks", "Tasks in the asynq queue by state.", []string{"queue", "state"}, nil),
		up:    prometheus.NewDesc("kisa_queue_up", "1 when the queue sizes could be read from Redis.", []string{"queue"}, nil)}
}

// Describe sends the collector's descriptions (prometheus.Collector).
func (q *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.tasks; ch <- q.up }

// Collect reads each queue's sizes (prometheus.Collector); a queue that
// does not exist yet (no task ever sent to it) counts as empty.
func (q *queueCollector) Collect(ch chan<- prometheus.Metric) {
	names, listErr := q.inspector.Queues()
	for _, queue := range q.queues {
		info, err := &asynq.QueueInfo{}, listErr
		if err == nil && slices.Contains(names, queue) {
			info, err = q.inspector.GetQueueInfo(queue)
		}
		if err != nil {
			ch <- prometheus.MustNewConstMetric(q.up, prometheus.GaugeValue, 0, queue)
			continue
		}
		for state, n := range map[string]int{"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled,
			"retry": info.Retry, "archived": info.Archived, "completed": info.Completed} {
			ch <- prometheus.MustNewConstMetric(q.tasks, prometheus.GaugeValue, float64(n), queue, state)
		}
		ch <- prometheus.MustNewConstMetric(q.up, prometheus.GaugeValue, 1, queue)
	}
}
