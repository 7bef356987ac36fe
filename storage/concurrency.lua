-- Takes one of a key's concurrency slots. KEYS[1] is the key's sorted set
-- of slots scored by their expiry (milliseconds, Redis's clock); ARGV[1]
-- the new slot's id, ARGV[2] the limit, ARGV[3] how long a slot lives.
-- Returns 1 when the slot was taken, 0 when the limit is reached.
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + hold, ARGV[1])
redis.call('PEXPIRE', KEYS[1], hold)
return 1
