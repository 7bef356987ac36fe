package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
)

// recentOutcome is how long a finished job's outcome stays readable after
// it was published, for a request that joined the task just as it ended.
const recentOutcome = 5 * time.Second

// Results is the Redis side of AI overview results: the result cache, and
// the notification that wakes the API requests waiting on a job.
type Results struct {
	rdb  *redis.Client
	keys redisKeys
	// reads is rdb's deferred auto-pipeliner, for cache reads: the GET and
	// PTTL of a read are queued together, and concurrent reads share one
	// round trip. Closing rdb closes it.
	reads *redis.AutoPipeliner
}

// NewResults returns the store; prefix starts every Redis key and channel
// it uses (KeyPrefix, or a test's own). Its error is a bad auto-pipelining setting in
// rdb's options.
func NewResults(rdb *redis.Client, prefix string) (*Results, error) {
	reads, err := rdb.AsyncAutoPipeline()
	if err != nil {
		return nil, fmt.Errorf("redis auto-pipelining: %w", err)
	}
	return &Results{rdb: rdb, keys: redisKeys(prefix), reads: reads}, nil
}

// wishLife is how long a cache wish of a task run is kept: longer than
// any run of a task may last (its attempts and retries).
const wishLife = 6 * time.Hour

// storeLonger sets KEYS[1] to ARGV[1] for ARGV[2] ms unless it is already
// there for longer.
var storeLonger = redis.NewScript(`
local left = redis.call('PTTL', KEYS[1])
if left < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1`)

// wishMax raises KEYS[1] to ARGV[1] (expiring after ARGV[2] ms).
var wishMax = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1`)

// Cached returns the cached result for key and how long it has left; ok
// is false when there is none. Errors are Redis failures.
func (r *Results) Cached(ctx context.Context, key string) (res kisa.Result, left time.Duration, ok bool, err error) {
	b, left, ok, err := r.CachedBytes(ctx, key)
	if !ok || err != nil {
		return res, 0, false, err
	}
	if err := DecodeResult(b, &res); err != nil {
		return res, 0, false, err
	}
	return res, left, true, nil
}

// CachedBytes is Cached without the decoding: the cached result as stored
// (decode it with DecodeResult), in one round trip. Errors are Redis
// failures.
func (r *Results) CachedBytes(ctx context.Context, key string) (b []byte, left time.Duration, ok bool, err error) {
	get := r.reads.Get(ctx, r.keys.cache(key))
	ttl := r.reads.PTTL(ctx, r.keys.cache(key))
	b, err = get.Bytes()
	if err == nil {
		err = ttl.Err()
	}
	if errors.Is(err, redis.Nil) {
		return nil, 0, false, nil
	} else if err != nil {
		return nil, 0, false, fmt.Errorf("read cache: %w", err)
	}
	if ttl.Val() <= 0 {
		return nil, 0, false, nil
	}
	return b, ttl.Val(), true, nil
}

// DecodeResult decodes a result as CachedBytes returns it.
func DecodeResult(b []byte, res *kisa.Result) error {
	if err := json.Unmarshal(b, res); err != nil {
		return fmt.Errorf("decode cached result: %w", err)
	}
	return nil
}

// Store caches res under key for ttl, unless key is already cached for
// longer: every request that shared a job may store its result, and the
// longest ttl wins.
func (r *Results) Store(ctx context.Context, key string, res kisa.Result, ttl time.Duration) error {
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	if err := storeLonger.Run(ctx, r.rdb, []string{r.keys.cache(key)}, b, ttl.Milliseconds()).Err(); err != nil {
		return fmt.Errorf("write cache: %w", err)
	}
	return nil
}

// Wish records that a request which joined the task run `run` wants its
// result cached for ttl; the worker caches it for the longest wish
// (Wished). Errors are Redis failures.
func (r *Results) Wish(ctx context.Context, run string, ttl time.Duration) error {
	err := wishMax.Run(ctx, r.rdb, []string{r.keys.wish(run)}, int64(ttl/time.Second), wishLife.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("record cache wish: %w", err)
	}
	return nil
}

// Wished returns, and forgets, the longest cache ttl wished for the task
// run `run`; 0 when no request wished one.
func (r *Results) Wished(ctx context.Context, run string) (time.Duration, error) {
	secs, err := r.rdb.GetDel(ctx, r.keys.wish(run)).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read cache wish: %w", err)
	}
	return time.Duration(secs) * time.Second, nil
}

// Publish tells the requests waiting on key how its job ended, and keeps
// the outcome readable for a few seconds (see Recent).
func (r *Results) Publish(ctx context.Context, key string, o jobs.Outcome) error {
	b, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("encode outcome: %w", err)
	}
	pipe := r.rdb.TxPipeline()
	pipe.Set(ctx, r.keys.outcome(key), b, recentOutcome)
	pipe.Publish(ctx, r.keys.done(key), b)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("publish outcome: %w", err)
	}
	return nil
}

// Recent returns the outcome of a job for key that ended in the last few
// seconds; ok is false when there is none.
func (r *Results) Recent(ctx context.Context, key string) (o jobs.Outcome, ok bool, err error) {
	b, err := r.rdb.Get(ctx, r.keys.outcome(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return o, false, nil
	}
	if err != nil {
		return o, false, fmt.Errorf("read outcome: %w", err)
	}
	return o, true, decodeOutcome(b, &o)
}

func decodeOutcome(b []byte, o *jobs.Outcome) error {
	if err := json.Unmarshal(b, o); err != nil {
		return fmt.Errorf("decode outcome: %w", err)
	}
	return nil
}

// Waiter is a subscription to one key's outcome.
type Waiter struct {
	sub *redis.PubSub
	ch  <-chan *redis.Message
}

// Subscribe starts listening for key's outcome. It returns once Redis has
// confirmed the subscription, so an outcome published afterwards is never
// missed. Close the Waiter when done.
func (r *Results) Subscribe(ctx context.Context, key string) (*Waiter, error) {
	sub := r.rdb.Subscribe(ctx, r.keys.done(key))
	if _, err := sub.Receive(ctx); err != nil {
		sub.Close()
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	return &Waiter{sub: sub, ch: sub.Channel()}, nil
}

// Wait blocks until the outcome arrives or ctx is done (ctx.Err()).
func (w *Waiter) Wait(ctx context.Context) (jobs.Outcome, error) {
	var o jobs.Outcome
	select {
	case <-ctx.Done():
		return o, ctx.Err()
	case msg, ok := <-w.ch:
		if !ok {
			return o, errors.New("wait for outcome: subscription closed")
		}
		return o, decodeOutcome([]byte(msg.Payload), &o)
	}
}

// Close ends the subscription.
func (w *Waiter) Close() error { return w.sub.Close() }
