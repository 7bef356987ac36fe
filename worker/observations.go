package worker

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/storage"
)

// recordVisit hands the visit of one attempt at task p to the visits
// writer, if any: the steps, the proxy's country (never its address or
// credentials) and the failure. The observations of the requests that
// waited on p.Run show it as their trace.
func (h *Handler) recordVisit(ctx context.Context, p jobs.OverviewPayload, start time.Time, err error, steps map[string]time.Duration) {
	if h.visits == nil || p.Run == "" {
		return
	}
	ms := make(map[string]float64, len(steps))
	for step, took := range steps {
		ms[step] = float64(took.Microseconds()) / 1000
	}
	b, _ := json.Marshal(ms)
	attempt, _ := asynq.GetRetryCount(ctx)
	v := storage.ObservedVisit{Run: p.Run, TaskKey: p.Key, Attempt: attempt, StartedAt: start.UTC().Truncate(time.Microsecond),
		DurationUS: h.now().Sub(start).Microseconds(), Steps: b, ProxyCountry: h.proxyCountry(p.CountryCode)}
	if err != nil {
		f, part := kisa.FailureOf(err)
		fs, ps := string(f), string(part)
		v.Failure = &fs
		if ps != "" {
			v.FailedPart = &ps
		}
	}
	h.visits.Add(v)
}

// proxyCountry is the country of the proxies a visit for country goes
// through ("*" for the catch-all); nil when visits connect directly.
func (h *Handler) proxyCountry(country string) *string {
	if h.proxies.Empty() {
		return nil
	}
	pool := h.proxies.Pool(country)
	if len(pool) == 0 {
		return nil
	}
	c := pool[0].Country
	return &c
}
