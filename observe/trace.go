// Package observe records what happens to each request of an account
// (issue 26): a Trace that the request's layers fill in as it goes (cache
// hit, visit started or joined, failure), and a Writer that buffers the
// finished records of a process and writes them in batches, so that
// recording never slows or fails a request.
package observe

import (
	"context"
	"sync"

	"github.com/kisa-dev/kisa"
)

// Query is what a browser request asked for: kept only for accounts that
// store their queries.
type Query struct {
	Query    string `json:"query"`
	Country  string `json:"country,omitempty"`
	Language string `json:"language,omitempty"`
}

// Trace is what one request's layers tell about it. Its methods may be
// called on a nil *Trace (a call outside a recorded request, such as the
// maintenance task's), and from several goroutines.
type Trace struct {
	mu         sync.Mutex
	items      int
	cacheHits  int
	joins      int
	runs       []string
	joinedRuns []string
	queries    []Query
	runOf      map[string]string // task key: the run noted for it
	failure    kisa.Failure
	part       kisa.Part
}

type traceKey struct{}

// NewContext returns ctx carrying t.
func NewContext(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// FromContext returns the trace of ctx's request; nil when there is none.
func FromContext(ctx context.Context) *Trace {
	t, _ := ctx.Value(traceKey{}).(*Trace)
	return t
}

// CacheHit notes a browser result answered from the cache.
func (t *Trace) CacheHit(q Query) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.items++
	t.cacheHits++
	t.queries = append(t.queries, q)
}

// Visit notes a browser result waiting on the visit of run for the task
// key: one it started, or one in flight it joined. A run of "" is the
// one noted before for key (a batch holding the same request twice), if
// any.
func (t *Trace) Visit(key, run string, joined bool, q Query) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if run == "" {
		run = t.runOf[key]
	} else {
		if t.runOf == nil {
			t.runOf = map[string]string{}
		}
		t.runOf[key] = run
	}
	t.items++
	t.queries = append(t.queries, q)
	if joined {
		t.joins++
		if run != "" {
			t.joinedRuns = append(t.joinedRuns, run)
		}
		return
	}
	t.runs = append(t.runs, run)
}

// Failed notes the failure an error answer told (kisa.FailureOf).
func (t *Trace) Failed(err error) {
	if t == nil || err == nil {
		return
	}
	f, part := kisa.FailureOf(err)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.failure, t.part = f, part
}

// Summary is a trace's content at the end of its request.
type Summary struct {
	Items, CacheHits, Joins int
	Runs, JoinedRuns        []string
	Queries                 []Query
	Failure                 kisa.Failure
	Part                    kisa.Part
}

// Summary returns what was noted.
func (t *Trace) Summary() Summary {
	if t == nil {
		return Summary{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return Summary{Items: t.items, CacheHits: t.cacheHits, Joins: t.joins, Runs: t.runs, JoinedRuns: t.joinedRuns,
		Queries: t.queries, Failure: t.failure, Part: t.part}
}
