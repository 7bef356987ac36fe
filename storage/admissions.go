package storage

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

//go:embed admit.lua
var admitLua string

// admitVisit is admit.lua.
var admitVisit = redis.NewScript(admitLua)

// Admit admits one new visit of the asynq queue `queue` when fewer than
// bound visits are pending there: its tasks waiting for a worker, and the
// visits that any web process admitted but has not enqueued yet. The
// check and the admission are one step in Redis, so a burst of requests
// across any number of web processes admits at most bound. The
// admission, named id, counts until Enqueued is called or hold passes (a
// process that died). ok is false when the bound is reached; pending is
// what was counted. Errors are Redis failures.
func (r *Results) Admit(ctx context.Context, queue, id string, bound int, hold time.Duration) (ok bool, pending int, err error) {
	v, err := admitVisit.Run(ctx, r.rdb, []string{r.keys.asynqPending(queue), r.keys.admitted(queue)},
		bound, id, hold.Milliseconds()).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("admit a visit: %w", err)
	}
	if len(v) != 2 {
		return false, 0, fmt.Errorf("admit a visit: unexpected answer %v", v)
	}
	return v[0] == 1, int(v[1]), nil
}

// Enqueued ends the admission id once its task is in the queue (or was
// not enqueued after all). Errors are Redis failures; the admission then
// lapses after its hold.
func (r *Results) Enqueued(ctx context.Context, queue, id string) error {
	if err := r.rdb.ZRem(ctx, r.keys.admitted(queue), id).Err(); err != nil {
		return fmt.Errorf("end a visit's admission: %w", err)
	}
	return nil
}
