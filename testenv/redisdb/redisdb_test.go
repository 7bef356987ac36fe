package redisdb_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/testenv/redisdb"
)

// TestClaim: two leases get two databases, each claim expires by itself
// within a minute unless renewed, and Release gives the database back
// (twice is harmless).
func TestClaim(t *testing.T) {
	opt, err := redis.ParseURL(testenv.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := redisdb.Claim(ctx, *opt, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Release)
	b, err := redisdb.Claim(ctx, *opt, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if a.DB == b.DB || a.DB < 1 || a.DB > 15 || b.DB < 1 || b.DB > 15 {
		t.Fatalf("leases of databases %d and %d, want two different ones from 1 to 15", a.DB, b.DB)
	}
	zero := *opt
	zero.DB = 0
	claims := redis.NewClient(&zero)
	t.Cleanup(func() { claims.Close() })
	key := fmt.Sprintf("kisa-test:redis-db:%d", b.DB)
	if ttl := claims.PTTL(ctx, key).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("claim %s expires in %v, want within a minute", key, ttl)
	}
	token := claims.Get(ctx, key).Val()
	b.Release()
	b.Release()
	if v, err := claims.Get(ctx, key).Result(); err != redis.Nil && v == token {
		t.Errorf("claim %s still held after Release", key)
	}
}
