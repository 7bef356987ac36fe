package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// limitedServer is a test server whose limits live in rdb.
func limitedServer(tb testing.TB, rdb redis.UniversalClient, l Limits) *testServer {
	tb.Helper()
	l.Redis = rdb
	if l.Hold == 0 {
		l.Hold = time.Minute
	}
	return newTestServer(tb, time.Minute, func(o *Options) { o.Limits = l })
}

// rateHeaders are the RateLimit-* headers of a response.
func rateHeaders(res response) [3]string {
	return [3]string{res.Header.Get("RateLimit-Limit"), res.Header.Get("RateLimit-Remaining"), res.Header.Get("RateLimit-Reset")}
}

var retryIn = regexp.MustCompile(`; retry in ([0-9]+) seconds?"\}$`)

// checkLimited fails unless res is a 429 whose error starts with prefix and
// says to retry in as many seconds as its Retry-After header.
func checkLimited(tb testing.TB, res response, prefix string) {
	tb.Helper()
	checkJSONHeaders(tb, res)
	m := retryIn.FindStringSubmatch(res.Body)
	if res.Status != http.StatusTooManyRequests || !strings.HasPrefix(res.Body, `{"status":false,"error":"`+prefix) || m == nil {
		tb.Fatalf("got %d %s, want 429 with an error starting %q and saying when to retry", res.Status, res.Body, prefix)
	}
	if n, _ := strconv.Atoi(m[1]); res.Header.Get("Retry-After") != m[1] || n < 1 {
		tb.Errorf("Retry-After = %q, body says %s seconds", res.Header.Get("Retry-After"), m[1])
	}
}

// TestLimitSharedAcrossServers: two web processes on one Redis give a key
// one budget, not one each; every authenticated answer carries its
// RateLimit headers; AI requests spend a budget of their own.
func TestLimitSharedAcrossServers(t *testing.T) {
	rdb := testenv.Redis(t)
	limits := Limits{AI: 2, Other: 3}
	servers := []*testServer{limitedServer(t, rdb, limits), limitedServer(t, rdb, limits)}
	_, key := newCaller(t, servers[0].db)
	for i, wantRemaining := range []string{"2", "1", "0"} {
		res := get(t, servers[i%2], "/v1/knowledgebase", key)
		if res.Status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, res.Status, res.Body)
		}
		if got := rateHeaders(res); got[0] != "3" || got[1] != wantRemaining || got[2] == "" {
			t.Errorf("request %d: RateLimit-Limit, -Remaining, -Reset = %q, want 3, %s and a reset", i+1, got, wantRemaining)
		}
	}
	for _, srv := range servers {
		res := get(t, srv, "/v1/integrations", key)
		checkLimited(t, res, "rate limit exceeded: this API key may make 3 requests of this kind a minute")
		if got := rateHeaders(res); got[0] != "3" || got[1] != "0" {
			t.Errorf("429: RateLimit headers %q", got)
		}
	}
	overview := func(srv *testServer) response {
		return do(t, srv, request(http.MethodPost, overviewPath, key, `{"query":"coffee"}`))
	}
	for i, srv := range servers {
		res := overview(srv)
		if got := rateHeaders(res); res.Status != http.StatusServiceUnavailable || got[0] != "2" || got[1] != strconv.Itoa(1-i) {
			t.Errorf("AI request %d: %d with RateLimit headers %q; want 503 (no runner) with 2, %d", i+1, res.Status, got, 1-i)
		}
	}
	checkLimited(t, overview(servers[0]), "rate limit exceeded: this API key may make 2 AI requests a minute")
}

// TestLimitPerAccount: set-limits overrides the defaults for every key of
// the account, 0 lifts the limit, and keys of other accounts keep theirs.
func TestLimitPerAccount(t *testing.T) {
	rdb := testenv.Redis(t)
	srv := limitedServer(t, rdb, Limits{AI: 5, Other: 5})
	ctx := context.Background()
	one, zero := 1, 0
	tests := []struct {
		name     string
		other    *int
		requests int
		want     []int    // statuses, in order
		header   []string // RateLimit-Limit of each
	}{
		{name: "override 1", other: &one, requests: 2, want: []int{200, 429}, header: []string{"1", "1"}},
		{name: "override 0: no limit, no headers", other: &zero, requests: 7,
			want: []int{200, 200, 200, 200, 200, 200, 200}, header: []string{"", "", "", "", "", "", ""}},
		{name: "no override: the default", requests: 6, want: []int{200, 200, 200, 200, 200, 429},
			header: []string{"5", "5", "5", "5", "5", "5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			acc := newAccount(t, srv.db, true)
			if _, err := srv.db.SetAccountLimits(ctx, acc, storage.LimitChange{}, storage.LimitChange{Set: tt.other != nil, Value: tt.other}); err != nil {
				t.Fatal(err)
			}
			keyA, _ := newKey(t, srv.db, acc, apikey.AllScopes()...)
			var got []int
			var headers []string
			for range tt.requests {
				res := get(t, srv, "/v1/knowledgebase", keyA)
				got, headers = append(got, res.Status), append(headers, res.Header.Get("RateLimit-Limit"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.header, headers); diff != "" {
				t.Errorf("RateLimit-Limit (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLimitRefusedCredentialsSpendNothing: requests refused by
// authentication carry no RateLimit headers and leave the budget whole.
func TestLimitRefusedCredentialsSpendNothing(t *testing.T) {
	rdb := testenv.Redis(t)
	srv := limitedServer(t, rdb, Limits{AI: 1, Other: 1})
	_, key := newCaller(t, srv.db)
	wrong := key[:len(key)-4] + "AAAA"
	if wrong == key {
		wrong = key[:len(key)-4] + "BBBB"
	}
	for _, k := range []string{wrong, wrong, "", wrong} {
		res := get(t, srv, "/v1/knowledgebase", k)
		if res.Status != http.StatusUnauthorized || rateHeaders(res) != [3]string{} {
			t.Fatalf("refused key: %d with RateLimit headers %q, want 401 without", res.Status, rateHeaders(res))
		}
	}
	res := get(t, srv, "/v1/knowledgebase", key)
	if got := rateHeaders(res); res.Status != http.StatusOK || got[0] != "1" || got[1] != "0" {
		t.Errorf("first valid request: %d with %q, want 200 with 1, 0", res.Status, got)
	}
}

// TestLimitRedisDown: with Redis unreachable the limiter lets requests
// through, counts it and logs it once.
func TestLimitRedisDown(t *testing.T) {
	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	t.Cleanup(func() { down.Close() })
	srv := limitedServer(t, down, Limits{AI: 1, Other: 1, Concurrent: 1})
	_, key := newCaller(t, srv.db)
	for i := range 4 {
		if res := get(t, srv, "/v1/knowledgebase", key); res.Status != http.StatusOK {
			t.Fatalf("request %d with Redis down: %d %s", i+1, res.Status, res.Body)
		}
	}
	if got := counterValue(t, srv.opts.Registry, "kisa_ratelimit_decisions_total", map[string]string{"budget": "other", "decision": "error"}); got != 4 {
		t.Errorf("limiter errors counted = %v, want 4", got)
	}
	n := 0
	for _, l := range srv.logs.logLines(t) {
		if l["msg"] == "rate limiter cannot reach Redis; requests pass unlimited" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d log lines about the limiter, want 1:\n%s", n, srv.logs)
	}
}

// TestLimiterDeadline: the limiter's calls share a context that ends
// between limiterWait and 1.1 x limiterWait after it is handed out, and
// a new one is made once a tenth of limiterWait has passed. The contexts
// end on the real clock, so the test runs in a bubble whose clock moves
// only when it sleeps.
func TestLimiterDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &limiter{}
		first := l.deadline()
		dl, ok := first.Deadline()
		if left := time.Until(dl); !ok || left <= limiterWait-limiterWait/10 || left > limiterWait+limiterWait/10 {
			t.Fatalf("deadline %v from now (set %v), want between %v and %v", left, ok, limiterWait, limiterWait+limiterWait/10)
		}
		time.Sleep(limiterWait/10 - time.Nanosecond)
		if l.deadline() != first {
			t.Errorf("a call just before a tenth of %v had passed got a context of its own, want the shared one", limiterWait)
		}
		time.Sleep(time.Nanosecond)
		next := l.deadline()
		if next == first {
			t.Fatalf("the shared context was still handed out after %v", limiterWait/10)
		}
		if dl2, _ := next.Deadline(); !dl2.After(dl) {
			t.Errorf("renewed deadline %v, want after %v", dl2, dl)
		}
	})
}

// TestLimitConcurrent: a key may have Concurrent overview requests
// waiting at once, across web processes; one more is answered 429 unless
// the cache answers it, and the slots are freed when the requests end.
func TestLimitConcurrent(t *testing.T) {
	rdb := testenv.Redis(t)
	s3 := testenv.S3(t)
	shots, err := storage.NewArtifacts(s3)
	if err != nil {
		t.Fatal(err)
	}
	newServer := func() *testServer {
		return newTestServer(t, time.Minute, func(o *Options) {
			o.Limits = Limits{Redis: rdb, Concurrent: 2, Hold: time.Minute}
			o.Overviews = overview.New(overview.Options{
				Results: testenv.Results(t, rdb, testResultsPrefix), Client: asynq.NewClientFromRedisClient(rdb),
				Inspector: asynq.NewInspectorFromRedisClient(rdb), Artifacts: shots,
				Timing: overview.Timing{Wait: time.Minute, Visit: time.Minute, MaxRetry: 1}, Logger: o.Logger,
			})
		})
	}
	servers := []*testServer{newServer(), newServer()}
	acc := newAccount(t, servers[0].db, true)
	key, keyID := newKey(t, servers[0].db, acc, apikey.ScopeOverviewRun)
	slots := func() int64 { return rdb.ZCard(context.Background(), storage.LimitKeysOf(keyID).Concurrent).Val() }

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, srv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := request(http.MethodPost, overviewPath, key, `{"query":"waiting `+strconv.Itoa(i)+`"}`).WithContext(ctx)
			srv.ServeHTTP(httptest.NewRecorder(), req) // no worker: it waits until cancelled
		}()
	}
	testenv.Eventually(t, 10*time.Second, "two requests holding slots", func() bool { return slots() == 2 })
	res := do(t, servers[0], request(http.MethodPost, overviewPath, key, `{"query":"one too many"}`))
	checkLimited(t, res, "too many AI overview requests of this API key are waiting at once (at most 2)")
	// A cache hit waits for nothing: it is answered while every slot is
	// taken, and takes none.
	storeCachedOverview(t, rdb)
	res = do(t, servers[1], request(http.MethodPost, overviewPath, key, `{"query":"cached frogs","countryCode":"us","languageCode":"en"}`))
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `"isCached":true`) {
		t.Errorf("cache hit with every slot taken: %d %s, want 200 and isCached true", res.Status, res.Body)
	}
	if n := slots(); n != 2 {
		t.Errorf("%d slots held after the cache hit, want 2", n)
	}
	cancel()
	wg.Wait()
	if n := slots(); n != 0 {
		t.Errorf("%d slots held after the requests ended, want 0", n)
	}
}
