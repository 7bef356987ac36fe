package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// pickExit chooses, atomically for every worker, the least recently used
// exit of a pool that is not cooling down, and marks it used now. KEYS[1]
// is the pool's sorted set (member: exit index, score: when it was last
// used, or until when it cools down, in Redis-clock milliseconds); ARGV are
// the indexes of the exits configured. Exits not in the set yet count as
// never used. It returns the index, or false when every exit cools down.
var pickExit = redis.NewScript(`
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

// coolExit makes an exit cool down for ARGV[2] milliseconds from now.
var coolExit = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
`)

// ExitRotation shares the choice of proxy exits between all workers: per
// pool, a sorted set in Redis of when each exit was last used or until
// when it cools down. Its methods are safe for concurrent use.
type ExitRotation struct {
	rdb      *redis.Client
	prefix   string
	cooldown time.Duration
}

// NewExitRotation returns the rotation; prefix starts its Redis keys, and
// a blocked exit is left alone for cooldown.
func NewExitRotation(rdb *redis.Client, prefix string, cooldown time.Duration) *ExitRotation {
	return &ExitRotation{rdb: rdb, prefix: prefix, cooldown: cooldown}
}

func (r *ExitRotation) key(pool string) string { return r.prefix + "exits:" + pool }

// Pick returns the index (0..n-1) of the least recently used exit of the
// pool of n exits that is not cooling down, and marks it used; ok is false
// when every exit cools down. Errors are Redis failures.
func (r *ExitRotation) Pick(ctx context.Context, pool string, n int) (index int, ok bool, err error) {
	args := make([]any, n)
	for i := range n {
		args[i] = strconv.Itoa(i)
	}
	v, err := pickExit.Run(ctx, r.rdb, []string{r.key(pool)}, args...).Text()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("pick an exit: %w", err)
	}
	index, err = strconv.Atoi(v)
	if err != nil {
		return 0, false, fmt.Errorf("pick an exit: bad member %q", v)
	}
	return index, true, nil
}

// Cool makes exit index of the pool cool down for the rotation's cooldown.
// Errors are Redis failures.
func (r *ExitRotation) Cool(ctx context.Context, pool string, index int) error {
	err := coolExit.Run(ctx, r.rdb, []string{r.key(pool)}, strconv.Itoa(index), r.cooldown.Milliseconds()).Err()
	if err != nil {
		return fmt.Errorf("cool an exit down: %w", err)
	}
	return nil
}
