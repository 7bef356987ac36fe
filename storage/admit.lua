-- Admits one new visit of a queue under its bound, atomically for every
-- web process. KEYS[1] is asynq's list of the queue's pending tasks,
-- KEYS[2] the sorted set of visits admitted but not enqueued yet, scored
-- by when their admission lapses (milliseconds, Redis's clock), each by
-- the id its task will have. ARGV[1] is the bound, ARGV[2] the
-- admission's id, ARGV[3] how long it holds.
-- Returns {1, n} when admitted, {0, n} when n visits (tasks pending and
-- admissions) already reach the bound.
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
-- An admission whose task is already pending (enqueued, its admission
-- not ended yet) counts once, as the task.
local n = redis.call('LLEN', KEYS[1])
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if not redis.call('LPOS', KEYS[1], id) then
    n = n + 1
  end
end
if n >= tonumber(ARGV[1]) then
  return {0, n}
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
return {1, n}
