package observe

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Writer defaults.
const (
	// DefaultBuffer is how many records wait for their write at most;
	// more are dropped (and counted), never waited for.
	DefaultBuffer = 20000
	// DefaultBatch is the most records one write takes.
	DefaultBatch = 2000
	// FlushEvery is how often what is buffered is written: a process that
	// dies loses at most the records of the last FlushEvery, and those of
	// a write under way.
	FlushEvery = time.Second
	// WriteTimeout bounds one write.
	WriteTimeout = 10 * time.Second
)

// Metrics count what the writers of a process wrote and dropped.
type Metrics struct {
	written *prometheus.CounterVec
	dropped *prometheus.CounterVec
}

// NewMetrics registers the writers' metrics on reg:
// kisa_observations_written_total{table} and
// kisa_observations_dropped_total{table,reason}, reason "overflow" (the
// buffer was full) or "error" (the write failed).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		written: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_observations_written_total",
			Help: "Observation records written, by table."}, []string{"table"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kisa_observations_dropped_total",
			Help: "Observation records dropped, by table and reason (overflow: the buffer was full; error: the write failed)."},
			[]string{"table", "reason"}),
	}
	reg.MustRegister(m.written, m.dropped)
	return m
}

// WriterOptions configure a Writer of records of type T.
type WriterOptions[T any] struct {
	// Table names the records in metrics and logs.
	Table string
	// Write stores a batch of records (a COPY); an error drops the batch.
	Write func(context.Context, []T) error
	// Buffer (DefaultBuffer), Batch (DefaultBatch) and Every (FlushEvery)
	// when zero.
	Buffer, Batch int
	Every         time.Duration
	Metrics       *Metrics // required
	Logger        *slog.Logger
}

// Writer buffers records and writes them in batches from a goroutine of
// its own: when Batch are waiting, and at least every Every. Add never
// blocks. Close writes what is left.
type Writer[T any] struct {
	o        WriterOptions[T]
	in       chan T
	stop     chan struct{}
	done     chan struct{}
	written  prometheus.Counter
	overflow prometheus.Counter
	failed   prometheus.Counter
}

// NewWriter starts a writer; Close stops it.
func NewWriter[T any](o WriterOptions[T]) *Writer[T] {
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	if o.Every <= 0 {
		o.Every = FlushEvery
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	w := &Writer[T]{o: o, in: make(chan T, o.Buffer), stop: make(chan struct{}), done: make(chan struct{}),
		written:  o.Metrics.written.WithLabelValues(o.Table),
		overflow: o.Metrics.dropped.WithLabelValues(o.Table, "overflow"),
		failed:   o.Metrics.dropped.WithLabelValues(o.Table, "error")}
	go w.run()
	return w
}

// Add buffers r for the next write. When the buffer is full, r is
// dropped and counted (reason "overflow"), and Add returns false; it
// never waits. It must not be called after Close.
func (w *Writer[T]) Add(r T) bool {
	select {
	case w.in <- r:
		return true
	default:
		w.overflow.Inc()
		return false
	}
}

// Close stops the writer after writing what is buffered; it returns
// ctx's error if ctx ends first (the rest is then lost).
func (w *Writer[T]) Close(ctx context.Context) error {
	close(w.stop)
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (w *Writer[T]) run() {
	defer close(w.done)
	tick := time.NewTicker(w.o.Every)
	defer tick.Stop()
	batch := make([]T, 0, w.o.Batch)
	for {
		select {
		case r := <-w.in:
			batch = w.add(batch, r)
		case <-tick.C:
			batch = w.flush(batch)
		case <-w.stop:
			w.drain(batch)
			return
		}
	}
}

// add appends r, writing the batch once it is full.
func (w *Writer[T]) add(batch []T, r T) []T {
	batch = append(batch, r)
	if len(batch) >= w.o.Batch {
		return w.flush(batch)
	}
	return batch
}

// drain writes what is in the batch and the buffer.
func (w *Writer[T]) drain(batch []T) {
	for {
		select {
		case r := <-w.in:
			batch = w.add(batch, r)
		default:
			w.flush(batch)
			return
		}
	}
}

// flush writes batch and returns it emptied.
func (w *Writer[T]) flush(batch []T) []T {
	if len(batch) == 0 {
		return batch
	}
	ctx, cancel := context.WithTimeout(context.Background(), WriteTimeout)
	defer cancel()
	if err := w.o.Write(ctx, batch); err != nil {
		w.failed.Add(float64(len(batch)))
		w.o.Logger.Warn("observations not written", "table", w.o.Table, "records", len(batch), "error", err)
	} else {
		w.written.Add(float64(len(batch)))
	}
	clear(batch)
	return batch[:0]
}
