package observe

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// sink records what a writer wrote; while blocked is open, each write
// waits for it to close, after telling entered.
type sink struct {
	mu      sync.Mutex
	batches [][]int
	entered chan struct{}
	blocked chan struct{}
	err     error
}

func (s *sink) write(_ context.Context, batch []int) error {
	if s.entered != nil {
		s.entered <- struct{}{}
	}
	if s.blocked != nil {
		<-s.blocked
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, slices.Clone(batch))
	return s.err
}

func (s *sink) all() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, b := range s.batches {
		out = append(out, b...)
	}
	return out
}

func newTestWriter(s *sink, buffer, batch int) (*Writer[int], *Metrics) {
	m := NewMetrics(prometheus.NewRegistry())
	// An hour between timed flushes: the tests see only full batches and
	// Close's, never the ticker's.
	return NewWriter(WriterOptions[int]{Table: "t", Write: s.write, Buffer: buffer, Batch: batch, Every: time.Hour, Metrics: m}), m
}

// TestWriterOverflowNeverBlocks: with the write stuck and the buffer
// full, Add returns at once, drops the record and counts it; Close then
// writes everything that was accepted.
func TestWriterOverflowNeverBlocks(t *testing.T) {
	s := &sink{entered: make(chan struct{}, 10), blocked: make(chan struct{})}
	w, m := newTestWriter(s, 3, 2)
	w.Add(1)
	w.Add(2) // a full batch: the write starts and blocks
	<-s.entered
	for i := 3; i <= 5; i++ {
		if !w.Add(i) {
			t.Fatalf("Add(%d) with room in the buffer dropped it", i)
		}
	}
	for i := 6; i <= 9; i++ {
		if w.Add(i) {
			t.Fatalf("Add(%d) into a full buffer accepted it", i)
		}
	}
	if got := testutil.ToFloat64(m.dropped.WithLabelValues("t", "overflow")); got != 4 {
		t.Errorf("overflow counted %v, want 4", got)
	}
	close(s.blocked)
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5}, s.all()); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if got := testutil.ToFloat64(m.written.WithLabelValues("t")); got != 5 {
		t.Errorf("written counted %v, want 5", got)
	}
}

// TestWriterBatches: records go in batches of at most Batch; Close writes
// the rest.
func TestWriterBatches(t *testing.T) {
	s := &sink{}
	w, _ := newTestWriter(s, 100, 4)
	for i := range 10 {
		w.Add(i)
	}
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for _, b := range s.batches {
		sizes = append(sizes, len(b))
	}
	if diff := cmp.Diff([]int{4, 4, 2}, sizes); diff != "" {
		t.Errorf("batch sizes (-want +got):\n%s", diff)
	}
}

// TestWriterFlushesOnTime: a record that fills no batch is written by the
// ticker, without Close.
func TestWriterFlushesOnTime(t *testing.T) {
	s := &sink{entered: make(chan struct{}, 1)}
	m := NewMetrics(prometheus.NewRegistry())
	w := NewWriter(WriterOptions[int]{Table: "t", Write: s.write, Batch: 100, Every: time.Millisecond, Metrics: m})
	defer w.Close(context.Background())
	w.Add(7)
	<-s.entered
}

// TestWriterFailedWriteCounted: a batch whose write fails is dropped and
// counted (reason error); Add is not affected.
func TestWriterFailedWriteCounted(t *testing.T) {
	s := &sink{err: errors.New("database down")}
	w, m := newTestWriter(s, 10, 2)
	for i := range 3 {
		if !w.Add(i) {
			t.Fatalf("Add(%d) dropped", i)
		}
	}
	if err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(m.dropped.WithLabelValues("t", "error")); got != 3 {
		t.Errorf("failed writes counted %v records, want 3", got)
	}
}
