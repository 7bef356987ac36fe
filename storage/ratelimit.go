package storage

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// LimitStore is the part of a Redis client the Limiter uses: scripts, and
// deleting and removing entries. A *redis.Client is one; so is its
// AutoPipeliner, which shares round trips among concurrent requests.
type LimitStore interface {
	redis.Scripter
	Del(ctx context.Context, keys ...string) *redis.IntCmd
	ZRem(ctx context.Context, key string, members ...any) *redis.IntCmd
}

// LimitKeys are the Redis keys of one API key's budgets, named once when
// the key is loaded rather than on every request.
type LimitKeys struct {
	AI, Other  string // the per-minute budgets (GCRA)
	Concurrent string // the sorted set of its concurrency slots
}

// LimitKeysOf names the budgets of apiKey.
func LimitKeysOf(apiKey uuid.UUID) LimitKeys {
	k := redisKeys(KeyPrefix)
	return LimitKeys{AI: k.budget("ai", apiKey), Other: k.budget("other", apiKey), Concurrent: k.budget("concurrent", apiKey)}
}

// Limiter is the Redis side of the per-key request limits, shared by
// every web process: budgets per minute (GCRA, go-redis/redis_rate) and
// concurrency slots. Its methods make one round trip each and return
// Redis failures as errors; what to do then is the caller's policy.
type Limiter struct {
	rdb  LimitStore
	gcra *redis_rate.Limiter
}

// NewLimiter returns the limiter on rdb.
func NewLimiter(rdb LimitStore) *Limiter {
	return &Limiter{rdb: rdb, gcra: redis_rate.NewLimiter(rdb)}
}

// Rate is what spending a per-minute budget found.
type Rate struct {
	Allowed    int           // how many of the requests were allowed (0 or all of them)
	Remaining  int           // what is left of the budget
	RetryAfter time.Duration // when refused, how long until they would be allowed
	ResetAfter time.Duration // how long until the budget is whole again
}

// Spend spends n requests of the budget under key, which allows
// perMinute requests a minute. Errors are Redis failures.
func (l *Limiter) Spend(ctx context.Context, key string, perMinute, n int) (Rate, error) {
	res, err := l.gcra.AllowN(ctx, key, redis_rate.PerMinute(perMinute), n)
	if err != nil {
		return Rate{}, fmt.Errorf("spend budget: %w", err)
	}
	return Rate{Allowed: res.Allowed, Remaining: res.Remaining, RetryAfter: res.RetryAfter, ResetAfter: res.ResetAfter}, nil
}

//go:embed concurrency.lua
var concurrencyLua string

// takeSlot is concurrency.lua.
var takeSlot = redis.NewScript(concurrencyLua)

// TakeSlot takes one of the at most limit slots of the sorted set key,
// named slot; a slot not released frees itself after hold (the request's
// process died). ok is false when every slot is taken. Errors are Redis
// failures.
func (l *Limiter) TakeSlot(ctx context.Context, key, slot string, limit int, hold time.Duration) (ok bool, err error) {
	got, err := takeSlot.Run(ctx, l.rdb, []string{key}, slot, limit, hold.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("take concurrency slot: %w", err)
	}
	return got == 1, nil
}

// ReleaseSlot frees slot of key. Errors are Redis failures (the slot then
// frees itself after its hold).
func (l *Limiter) ReleaseSlot(ctx context.Context, key, slot string) error {
	if err := l.rdb.ZRem(ctx, key, slot).Err(); err != nil {
		return fmt.Errorf("release concurrency slot: %w", err)
	}
	return nil
}
