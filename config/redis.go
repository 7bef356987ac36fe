package config

import (
	"crypto/tls"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// sentinelScheme starts a REDIS_URL that names a Redis Sentinel set.
const sentinelScheme = "redis-sentinel://"

// RedisClient builds the Redis client of REDIS_URL: a plain client for
// redis:// and rediss:// (KISA_REDIS_TLS_INSECURE skips the certificate
// check), a Sentinel failover client for redis-sentinel://. asynq and
// the result cache share it. It returns an error naming REDIS_URL.
func (c Config) RedisClient() (*redis.Client, error) {
	return c.RedisClientPool(0)
}

// RedisClientPool is RedisClient with at most size connections (0:
// go-redis's default): a client of its own of the same kind, for a
// scheduler that closes it when it stops.
func (c Config) RedisClientPool(size int) (*redis.Client, error) {
	if strings.HasPrefix(c.RedisURL, sentinelScheme) {
		opt, err := ParseSentinelURL(c.RedisURL)
		if err != nil {
			return nil, err
		}
		opt.PoolSize = size
		return redis.NewFailoverClient(opt), nil
	}
	opt, err := redis.ParseURL(c.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	if opt.TLSConfig != nil && c.RedisTLSInsecure {
		opt.TLSConfig = &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12} // #nosec G402: explicit opt-in
	}
	if size > 0 {
		opt.PoolSize = size
	}
	return redis.NewClient(opt), nil
}

// ParseSentinelURL reads redis-sentinel://[[user]:password@]host:port[,host:port...]/master[/db]:
// the sentinels' addresses, the master's name and the database number.
// The password is the Redis servers' (the sentinels are asked without).
func ParseSentinelURL(s string) (*redis.FailoverOptions, error) {
	rest, ok := strings.CutPrefix(s, sentinelScheme)
	if !ok {
		return nil, fmt.Errorf("REDIS_URL: %q does not start with %s", s, sentinelScheme)
	}
	opt := &redis.FailoverOptions{}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		user, pass, _ := strings.Cut(rest[:at], ":")
		opt.Username, opt.Password, rest = user, pass, rest[at+1:]
	}
	hosts, path, _ := strings.Cut(rest, "/")
	for _, h := range strings.Split(hosts, ",") {
		if _, port, ok := strings.Cut(h, ":"); !ok || port == "" {
			return nil, fmt.Errorf("REDIS_URL: sentinel address %q is not host:port", h)
		}
		opt.SentinelAddrs = append(opt.SentinelAddrs, h)
	}
	master, db, _ := strings.Cut(path, "/")
	if master == "" {
		return nil, fmt.Errorf("REDIS_URL: no master name after the sentinel addresses (…/mymaster)")
	}
	opt.MasterName = master
	if db != "" {
		n, err := strconv.Atoi(db)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("REDIS_URL: database %q is not a number", db)
		}
		opt.DB = n
	}
	return opt, nil
}

// validRedisURL accepts what RedisClient can build a client from.
func validRedisURL(s string) bool {
	if strings.HasPrefix(s, sentinelScheme) {
		_, err := ParseSentinelURL(s)
		return err == nil
	}
	return validURL(s, "redis", "rediss")
}
