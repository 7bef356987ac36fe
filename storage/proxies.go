package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// pickProxy chooses, atomically for every worker, the least recently used
// proxy of a pool that is not cooling down, and marks it used now. KEYS[1]
// is the pool's sorted set (member: proxy index, score: when it was last
// used, or until when it cools down, in Redis-clock milliseconds); ARGV are
// the indexes of the proxies configured. Proxies not in the set yet count as
// never used. It returns the index, or false when every proxy cools down.
var pickProxy = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local best, bestScore
for i = 1, #ARGV do
  redis.call('ZADD', KEYS[1], 'NX', 0, ARGV[i])
  local s = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[i]))
  if s <= now and (best == nil or s < bestScore) then
    best, bestScore = ARGV[i], s
  end
end
if best == nil then return false end
redis.call('ZADD', KEYS[1], now, best)
return best
`)

// coolProxy makes a proxy cool down for ARGV[2] milliseconds from now.
var coolProxy = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
`)

// ProxyRotation shares the choice of proxies between all workers: per
// pool, a sorted set in Redis of when each proxy was last used or until
// when it cools down. Its methods are safe for concurrent use.
type ProxyRotation struct {
	rdb      *redis.Client
	keys     redisKeys
	cooldown time.Duration
}

// NewProxyRotation returns the rotation; prefix starts its Redis keys, and
// a blocked proxy is left alone for cooldown.
func NewProxyRotation(rdb *redis.Client, prefix string, cooldown time.Duration) *ProxyRotation {
	return &ProxyRotation{rdb: rdb, keys: redisKeys(prefix), cooldown: cooldown}
}

// Pick returns the index (0..n-1) of the least recently used proxy of the
// pool of n proxies that is not cooling down, and marks it used; ok is false
// when every proxy cools down. Errors are Redis failures.
func (r *ProxyRotation) Pick(ctx context.Context, pool string, n int) (index int, ok bool, err error) {
	args := make([]any, n)
	for i := range n {
		args[i] = strconv.Itoa(i)
	}
	v, err := pickProxy.Run(ctx, r.rdb, []string{r.keys.proxies(pool)}, args...).Text()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("pick a proxy: %w", err)
	}
	index, err = strconv.Atoi(v)
	if err != nil {
		return 0, false, fmt.Errorf("pick a proxy: bad member %q", v)
	}
	return index, true, nil
}

// Cool makes proxy index of the pool cool down for the rotation's cooldown.
// Errors are Redis failures.
func (r *ProxyRotation) Cool(ctx context.Context, pool string, index int) error {
	err := coolProxy.Run(ctx, r.rdb, []string{r.keys.proxies(pool)}, strconv.Itoa(index), r.cooldown.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("cool a proxy down: %w", err)
	}
	return nil
}
