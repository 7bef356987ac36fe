package api

import (
	"math"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"golang.org/x/time/rate"
)

// rateLimiter gives each API key a token bucket in this process: rps
// requests a second on average, burst at once. Buckets idle for a while
// are dropped.
type rateLimiter struct {
	rps   rate.Limit
	burst int
	now   func() time.Time

	mu      sync.Mutex
	buckets map[uuid.UUID]*bucket
	swept   time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

const bucketIdle = 10 * time.Minute

func newRateLimiter(rps float64, burst int, now func() time.Time) *rateLimiter {
	return &rateLimiter{rps: rate.Limit(rps), burst: burst, now: now, buckets: map[uuid.UUID]*bucket{}}
}

// allow takes a token from key's bucket; when there is none it returns
// false and how long until the next one.
func (r *rateLimiter) allow(key uuid.UUID) (bool, time.Duration) {
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.swept) > bucketIdle {
		for k, b := range r.buckets {
			if now.Sub(b.seen) > bucketIdle {
				delete(r.buckets, k)
			}
		}
		r.swept = now
	}
	b, ok := r.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(r.rps, r.burst)}
		r.buckets[key] = b
	}
	b.seen = now
	res := b.lim.ReserveN(now, 1)
	if delay := res.DelayFrom(now); delay > 0 {
		res.CancelAt(now)
		return false, delay
	}
	return true, 0
}

// limitRate answers 429 with Retry-After when the caller's key has spent
// its requests; it runs after authenticate.
func (s *Server) limitRate(c *gin.Context) {
	if s.limiter == nil {
		c.Next()
		return
	}
	ok, wait := s.limiter.allow(mustPrincipal(c).KeyID)
	if !ok {
		s.writeError(c, &Error{Code: CodeRateLimited, Message: "rate limit exceeded; slow down and retry",
			RetryAfter: max(1, int(math.Ceil(wait.Seconds())))})
		return
	}
	c.Next()
}
