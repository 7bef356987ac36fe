package storage

import "github.com/google/uuid"

// KeyPrefix starts every Redis key and channel of the service's own
// (asynq keeps its "asynq:" keys). The stores take it as an argument, so
// that a test can give them a prefix of its own; the limiter's keys
// always use it.
const KeyPrefix = "kisa:"

// redisKeys names every Redis key and channel of the service under its
// prefix: this file is the one place that spells them.
type redisKeys string

// cache is the key of a cached result (Results).
func (k redisKeys) cache(key string) string { return string(k) + "cache:" + key }

// CachedResultsPattern matches the keys of every cached result under
// prefix (a KEYS or SCAN pattern, for tools such as kisa-bench).
func CachedResultsPattern(prefix string) string { return redisKeys(prefix).cache("*") }

// outcome is the key that keeps a finished visit's outcome readable for
// a few seconds (Results.Recent).
func (k redisKeys) outcome(key string) string { return string(k) + "outcome:" + key }

// done is the channel a finished visit's outcome is published on.
func (k redisKeys) done(key string) string { return string(k) + "done:" + key }

// wish is the key of the longest cache ttl wished for a task run.
func (k redisKeys) wish(run string) string { return string(k) + "wish:" + run }

// proxies is the sorted set of a proxy pool's use (ProxyRotation).
func (k redisKeys) proxies(pool string) string { return string(k) + "proxies:" + pool }

// budget is the key of one API key's budget (Limiter): "ai" and "other"
// for the per-minute budgets, "concurrent" for the concurrency slots.
func (k redisKeys) budget(budget string, apiKey uuid.UUID) string {
	return string(k) + budget + ":" + apiKey.String()
}

// admitted is the sorted set of the visits of an asynq queue that a web
// process admitted but has not enqueued yet (Results.Admit).
func (k redisKeys) admitted(queue string) string { return string(k) + "admitted:" + queue }

// asynqPending is asynq's own list of a queue's pending tasks (asynq
// v0.26's base.PendingKey, outside the service's prefix), which Admit
// counts in the same step as it admits.
func (redisKeys) asynqPending(queue string) string { return "asynq:{" + queue + "}:pending" }
