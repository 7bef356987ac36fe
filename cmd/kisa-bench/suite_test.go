package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/testenv"
)

// TestBenchRedisClaims: the suite's Redis database is one claimed the
// way the tests claim theirs, held until the suite releases it.
func TestBenchRedisClaims(t *testing.T) {
	ctx := context.Background()
	raw, release, err := benchRedis(ctx, testenv.Environ("REDIS_URL="+testenv.RedisURL()))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	opt, err := redis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	zero := *opt
	zero.DB = 0
	claims := redis.NewClient(&zero)
	defer claims.Close()
	key := fmt.Sprintf("kisa-test:redis-db:%d", opt.DB)
	if n := claims.Exists(ctx, key).Val(); opt.DB < 1 || n != 1 {
		t.Fatalf("bench database %d, claim %s exists: %d; want a claimed database from 1 to 15", opt.DB, key, n)
	}
	token := claims.Get(ctx, key).Val()
	release()
	if v, err := claims.Get(ctx, key).Result(); err != redis.Nil && v == token { // another test may claim it at once
		t.Errorf("claim %s still held after release", key)
	}
}
