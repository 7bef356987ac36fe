// Package redisdb hands out the databases 1 to 15 of a Redis server to
// the processes that share it for tests and benchmarks (the tests of
// every package, run at once in several processes, and `make bench`), so
// that no two of them use, or flush, the same database at once. Claims
// are keys in database 0, which no holder uses; a claim is renewed while
// it is held and expires by itself within a minute when its process dies.
package redisdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	first, last = 1, 15
	claimTTL    = time.Minute
	renewEvery  = claimTTL / 4
	retryPause  = 200 * time.Millisecond
)

// keyOf names the claim of database n.
func keyOf(n int) string { return fmt.Sprintf("kisa-test:redis-db:%d", n) }

// renew extends the claim KEYS[1] to ARGV[2] ms if it still holds the
// token ARGV[1]; release deletes it on the same condition.
var (
	renew = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
	release = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
)

// Lease is a claimed database, held until Release.
type Lease struct {
	// DB is the number of the database claimed.
	DB int

	claims *redis.Client // database 0
	key    string
	token  string
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// Claim takes a free database of the server opt names (its DB is
// ignored), waiting up to wait for one to be released. Errors are Redis
// failures, and no database freed within wait.
func Claim(ctx context.Context, opt redis.Options, wait time.Duration) (*Lease, error) {
	opt.DB = 0
	claims := redis.NewClient(&opt)
	b := make([]byte, 8)
	rand.Read(b)
	l := &Lease{claims: claims, token: hex.EncodeToString(b), stop: make(chan struct{}), done: make(chan struct{})}
	deadline := time.Now().Add(wait)
	for {
		n, err := l.tryClaim(ctx)
		if err != nil {
			claims.Close()
			return nil, fmt.Errorf("claim a Redis database on %s: %w", opt.Addr, err)
		}
		if n != 0 {
			l.DB, l.key = n, keyOf(n)
			go l.renew()
			return l, nil
		}
		if time.Now().After(deadline) {
			claims.Close()
			return nil, fmt.Errorf("no free Redis database on %s in %s (%d to %d are handed out)", opt.Addr, wait, first, last)
		}
		select {
		case <-ctx.Done():
			claims.Close()
			return nil, ctx.Err()
		case <-time.After(retryPause):
		}
	}
}

// tryClaim claims the first free database, or returns 0 when none is.
func (l *Lease) tryClaim(ctx context.Context) (int, error) {
	for n := first; n <= last; n++ {
		ok, err := l.claims.SetNX(ctx, keyOf(n), l.token, claimTTL).Result()
		if err != nil {
			return 0, err
		}
		if ok {
			return n, nil
		}
	}
	return 0, nil
}

// renew keeps the claim alive until Release.
func (l *Lease) renew() {
	defer close(l.done)
	tick := time.NewTicker(renewEvery)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), renewEvery)
			renew.Run(ctx, l.claims, []string{l.key}, l.token, claimTTL.Milliseconds())
			cancel()
		}
	}
}

// Release gives the database back (if the claim is still this lease's);
// calling it again does nothing.
func (l *Lease) Release() {
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		release.Run(ctx, l.claims, []string{l.key}, l.token)
		l.claims.Close()
	})
}
