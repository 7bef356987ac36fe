package api

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
)

// Limits are the per-key request limits (spec sections 7 and 8). They are
// kept in Redis (storage.Limiter), so that they hold across any number of
// web processes.
type Limits struct {
	Redis      storage.LimitStore // nil: no limits
	AI         int                // AI requests (overviews, completions) per minute and key; 0: no limit
	Other      int                // every other request per minute and key; 0: no limit
	Concurrent int                // overview requests of one key waiting at once; 0: no limit
	// Hold is the longest a request keeps its concurrency slot: the slot
	// of a process that died frees itself after it.
	Hold time.Duration
}

// Budgets, as named in the metrics and Redis keys.
const (
	budgetAI         = "ai"
	budgetOther      = "other"
	budgetConcurrent = "concurrent"
)

// limiterRetry is how long the limiter lets requests through without
// asking Redis after Redis failed, so that reads stay fast while it is down.
const limiterRetry = 5 * time.Second

// limiter applies Limits; it fails open: when Redis does not answer,
// requests pass, and the failure is logged at most once a minute.
type limiter struct {
	cfg     Limits
	store   *storage.Limiter
	log     *slog.Logger
	metrics *metrics
	now     func() time.Time

	skipUntil atomic.Int64 // unix nanoseconds: until then Redis is not asked
	loggedAt  atomic.Int64 // unix nanoseconds of the last "limiter down" log
	shared    atomic.Pointer[sharedDeadline]
}

// limiterWait bounds one call of the limiter to Redis.
const limiterWait = time.Second

// sharedDeadline is a context that ends at limiterWait + limiterWait/10
// after it was made, handed out until renew.
type sharedDeadline struct {
	ctx    context.Context
	cancel context.CancelFunc // not called: the context ends at its deadline
	renew  time.Time
}

// deadline returns a context that ends between limiterWait and 1.1 x
// limiterWait from now. It is shared by the limiter calls of a tenth of
// limiterWait, so that the call every request makes is bounded without a
// timer of its own (one per request was 3% of a read's CPU in web). It
// is not the request's context: a call is not cut short when the client
// leaves, which it does not need to be.
func (l *limiter) deadline() context.Context {
	now := time.Now()
	if d := l.shared.Load(); d != nil && now.Before(d.renew) {
		return d.ctx
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(limiterWait+limiterWait/10))
	// Callers that renew at once each store theirs; the ones overwritten
	// end at their deadline like the rest.
	l.shared.Store(&sharedDeadline{ctx: ctx, cancel: cancel, renew: now.Add(limiterWait / 10)})
	return ctx
}

func newLimiter(cfg Limits, log *slog.Logger, m *metrics, now func() time.Time) *limiter {
	if cfg.Redis == nil {
		return nil
	}
	return &limiter{cfg: cfg, store: storage.NewLimiter(cfg.Redis), log: log, metrics: m, now: now}
}

// budget returns the per-minute budget that applies to a request of p:
// its name, its Redis key and the account's override, else the
// configured default.
func (l *limiter) budget(p *Principal, ai bool) (name, key string, perMinute int) {
	if ai {
		return budgetAI, p.limitKeys.AI, valueOr(p.LimitAI, l.cfg.AI)
	}
	return budgetOther, p.limitKeys.Other, valueOr(p.LimitOther, l.cfg.Other)
}

func valueOr(p *int, def int) int {
	if p != nil {
		return *p
	}
	return def
}

// down reports whether Redis failed moments ago.
func (l *limiter) down() bool { return l.now().UnixNano() < l.skipUntil.Load() }

// failed records that Redis did not answer: the request passes, the
// metric counts it, and one line a minute is logged.
func (l *limiter) failed(ctx context.Context, budget string, err error) {
	l.metrics.limiter.WithLabelValues(budget, "error").Inc()
	now := l.now().UnixNano()
	l.skipUntil.Store(now + int64(limiterRetry))
	last := l.loggedAt.Load()
	if now-last >= int64(time.Minute) && l.loggedAt.CompareAndSwap(last, now) {
		l.log.WarnContext(ctx, "rate limiter cannot reach Redis; requests pass unlimited", "error", err)
	}
}

// limitRate spends one request of the caller's budget: the AI budget on
// the overview and batch routes (a batch spends the rest in spendAI),
// the other one elsewhere. It sets the RateLimit-*
// headers, and answers 429 with Retry-After when the budget is spent. It
// runs after authenticate, so refused credentials spend nothing.
func (s *Server) limitRate(c *gin.Context) {
	l := s.limiter
	if l == nil {
		c.Next()
		return
	}
	budget, key, limit := l.budget(mustPrincipal(c), aiRoutes[c.FullPath()])
	if limit <= 0 {
		c.Next()
		return
	}
	if l.down() {
		l.metrics.limiter.WithLabelValues(budget, "error").Inc()
		c.Next()
		return
	}
	res, err := l.store.Spend(l.deadline(), key, limit, 1)
	if err != nil {
		l.failed(c.Request.Context(), budget, err)
		c.Next()
		return
	}
	setRateHeaders(c, limit, res)
	if res.Allowed == 0 {
		l.metrics.limiter.WithLabelValues(budget, "limited").Inc()
		wait := ceilSeconds(res.RetryAfter)
		s.writeError(c, &kisa.Error{Failure: kisa.Limited, RetryAfter: time.Duration(wait) * time.Second, Message: fmt.Sprintf(
			"rate limit exceeded: this API key may make %d %s a minute; retry in %d %s",
			limit, map[string]string{budgetAI: "AI requests", budgetOther: "requests of this kind"}[budget],
			wait, plural(wait, "second", "seconds"))})
		return
	}
	l.metrics.limiter.WithLabelValues(budget, "allowed").Inc()
	c.Next()
}

// setRateHeaders tells the client its budget: the limit per minute, what
// is left of it, and in how many seconds it is whole again. The names are
// written as net/http spells them on the wire (RateLimit-Limit becomes
// Ratelimit-Limit either way), so that they are not re-cased on every
// request, and the three values share one backing array.
func setRateHeaders(c *gin.Context, limit int, res storage.Rate) {
	v := []string{strconv.Itoa(limit), strconv.Itoa(max(0, res.Remaining)),
		strconv.Itoa(max(0, int(math.Ceil(res.ResetAfter.Seconds()))))}
	h := c.Writer.Header()
	h["Ratelimit-Limit"], h["Ratelimit-Remaining"], h["Ratelimit-Reset"] = v[0:1:1], v[1:2:2], v[2:3:3]
}

func ceilSeconds(d time.Duration) int { return max(1, int(math.Ceil(d.Seconds()))) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// concurrentRetry is the Retry-After of a request refused for having too
// many overview requests of its key waiting.
const concurrentRetry = 5

// slot is the caller's concurrency limit for the overview use case, which
// takes one of the key's Concurrent slots only when the request is about
// to wait for a browser visit (a cache hit waits for nothing and takes
// none). The slots are a Redis sorted set of request ids scored by their
// expiry times. Over the limit, taking one fails with kisa.Limited (429
// with Retry-After); when Redis does not answer the request passes. nil
// when there is no limit.
func (s *Server) slot(c *gin.Context) overview.Slot {
	l := s.limiter
	if l == nil || l.cfg.Concurrent <= 0 {
		return nil
	}
	set := mustPrincipal(c).limitKeys.Concurrent
	return func(ctx context.Context) (release func(), err error) {
		if l.down() {
			return func() {}, nil
		}
		slot := uuid.NewString()
		ok, err := l.store.TakeSlot(l.deadline(), set, slot, l.cfg.Concurrent, l.cfg.Hold)
		switch {
		case err != nil:
			l.failed(ctx, budgetConcurrent, err)
			return func() {}, nil
		case !ok:
			l.metrics.limiter.WithLabelValues(budgetConcurrent, "limited").Inc()
			return nil, &kisa.Error{Failure: kisa.Limited, RetryAfter: concurrentRetry * time.Second, Message: fmt.Sprintf(
				"too many AI overview requests of this API key are waiting at once (at most %d); retry in %d seconds",
				l.cfg.Concurrent, concurrentRetry)}
		}
		l.metrics.limiter.WithLabelValues(budgetConcurrent, "allowed").Inc()
		return func() { l.release(ctx, set, slot) }, nil
	}
}

// release frees a concurrency slot, even when the request was cancelled.
func (l *limiter) release(ctx context.Context, set, slot string) {
	if err := l.store.ReleaseSlot(l.deadline(), set, slot); err != nil {
		l.log.WarnContext(ctx, "free concurrency slot (it expires by itself)", "error", err)
	}
}

// aiLimit is the caller's AI budget per minute; 0 when unlimited.
func (s *Server) aiLimit(c *gin.Context) int {
	if s.limiter == nil {
		return 0
	}
	_, _, limit := s.limiter.budget(mustPrincipal(c), true)
	return max(0, limit)
}

// spendAI spends n more of the caller's AI budget, beyond the one its
// request spent in limitRate (a batch of n+1 jobs spends n+1 in all). It
// answers 429 with Retry-After and returns false when the budget cannot
// cover them now; like limitRate it lets the request pass when Redis
// does not answer.
func (s *Server) spendAI(c *gin.Context, n int) bool {
	l := s.limiter
	limit := s.aiLimit(c)
	if l == nil || n <= 0 || limit <= 0 || l.down() {
		return true
	}
	res, err := l.store.Spend(l.deadline(), mustPrincipal(c).limitKeys.AI, limit, n)
	if err != nil {
		l.failed(c.Request.Context(), budgetAI, err)
		return true
	}
	setRateHeaders(c, limit, res)
	if res.Allowed >= n {
		l.metrics.limiter.WithLabelValues(budgetAI, "allowed").Inc()
		return true
	}
	l.metrics.limiter.WithLabelValues(budgetAI, "limited").Inc()
	wait := ceilSeconds(res.RetryAfter)
	s.writeError(c, &kisa.Error{Failure: kisa.Limited, RetryAfter: time.Duration(wait) * time.Second, Message: fmt.Sprintf(
		"rate limit exceeded: this API key may make %d AI requests a minute and this batch needs %d; retry in %d %s",
		limit, n+1, wait, plural(wait, "second", "seconds"))})
	return false
}
