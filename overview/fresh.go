package overview

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
)

// ErrNoRoom is Fresh's answer when interactive visits wait for every
// browser slot: a background reading yields to them and tries later.
var ErrNoRoom = errors.New("overview: no spare browser room for a background reading")

// Fresh reads the page of req anew for a background reader (a monitor's
// target): never from the cache, and never an outcome made before
// notBefore. It shares the visit with identical requests in flight (the
// task id is the cache key), like Run. It returns ErrNoRoom, without
// enqueueing, when as many overview tasks are pending as the live
// workers have slots; other errors carry a kisa.Failure as Run's do.
func (s *Visits) Fresh(ctx context.Context, req Request, notBefore time.Time) (kisa.Result, error) {
	if l, err := s.gateOf(jobs.QueueOf(req.Surface)).load(); err == nil && l.slots > 0 && l.pending >= l.slots {
		return kisa.Result{}, ErrNoRoom
	}
	req.CacheOn = false
	key := req.Key()
	ctx, cancel := context.WithTimeout(ctx, s.timing.Of(req.Surface).Wait)
	defer cancel()
	w, err := s.results.Subscribe(ctx, key)
	if err != nil {
		return kisa.Result{}, kisa.Fail(kisa.Unavailable, kisa.PartQueue, err)
	}
	defer w.Close()
	res, err := s.await(ctx, w, key, req)
	if err == nil && res.TakenAt.Before(notBefore) {
		return kisa.Result{}, kisa.Fail(kisa.Unavailable, kisa.PartQueue,
			fmt.Errorf("an outcome taken at %s, before %s", res.TakenAt.Format(time.RFC3339Nano), notBefore.Format(time.RFC3339Nano)))
	}
	return res, err
}
