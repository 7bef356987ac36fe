package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// stack is the whole service running in this test process: the fixture
// search engine, `kisa web` and `kisa worker`, on the real PostgreSQL,
// Redis, MinIO and Chromium.
type stack struct {
	base    string
	worker  string // base URL of the worker's health and metrics listener
	cdn     string
	key     string
	api     *client.Client // with s.key, retries off
	fixture *serpfixture.Server
	queue   *asynq.Inspector
	env     func(string) string
	environ []string // the same settings as NAME=value pairs
}

// stackOptions vary a stack per test.
type stackOptions struct {
	waitTimeout string
	fixture     serpfixture.Options
	noWorker    bool     // the test starts its workers itself
	env         []string // NAME=value settings that override the stack's
}

// startStack runs the fixture, web and worker until the test ends.
func startStack(t *testing.T, o stackOptions) *stack {
	t.Helper()
	db := testenv.Postgres(t)
	rdb := testenv.Redis(t)
	s3 := testenv.S3(t)
	testenv.Chromium(t)
	fx := serpfixture.New(o.fixture)
	fsrv := httptest.NewServer(fx)
	t.Cleanup(fsrv.Close)
	s := &stack{cdn: s3.PublicURL, fixture: fx, queue: asynq.NewInspectorFromRedisClient(rdb)}
	s.environ = []string{
		"PORT=0", "KISA_HOST=127.0.0.1", "DATABASE_URL=" + testenv.DatabaseURL(),
		"REDIS_URL=" + testenv.RedisURLOf(t, rdb),
		"KISA_SECRETS_KEY=" + testenv.SecretsKey(), "KISA_LOG_LEVEL=info",
		"KISA_S3_ENDPOINT=" + s3.Endpoint, "KISA_S3_ACCESS_KEY=" + s3.AccessKey, "KISA_S3_SECRET_KEY=" + s3.SecretKey,
		"KISA_S3_BUCKET=" + s3.Bucket, "KISA_S3_REGION=" + s3.Region, "KISA_CDN_URL=" + s3.PublicURL,
		"KISA_CHROME_PATH=" + testenv.Chromium(t), "KISA_SEARCH_URL=" + fsrv.URL + "/search",
		"KISA_BROWSER_CONCURRENCY=2", "KISA_OVERVIEW_TIMEOUT=" + o.waitTimeout, "KISA_VISIT_TIMEOUT=30s",
		"KISA_WORKER_ADDR=127.0.0.1:0", "KISA_ADMIN_TOKEN=" + e2eAdminToken, "KISA_LIMIT_CONCURRENT=50",
	}
	for _, l := range serpfixture.Env(fsrv.URL) {
		if !strings.HasPrefix(l, "KISA_SEARCH_URL=") {
			s.environ = append(s.environ, l) // the AI assistants' sites of the fixture
		}
	}
	s.environ = append(s.environ, o.env...)
	s.env = testenv.Environ(s.environ...)
	_, webLogs := s.startProcess(t, "web")
	s.base = "http://" + listenAddr(t, webLogs, "web listening")
	if !o.noWorker {
		_, workerLogs := s.startProcess(t, "worker")
		s.worker = "http://" + listenAddr(t, workerLogs, "worker health and metrics listening")
	}
	testenv.Eventually(t, 30*time.Second, "kisa web to be ready at "+s.base, answers200(s.base+"/readyz"))
	s.key = newKey(t, db)
	s.api = client.New(s.base, s.key, client.WithRetries(0, 0))
	return s
}

// listenAddr waits for the log line msg ("web listening", or the
// worker's "worker health and metrics listening") of a process that
// listens on port 0, and returns its address.
func listenAddr(t *testing.T, logs *testenv.Buffer, msg string) string {
	t.Helper()
	var addr string
	testenv.Eventually(t, 30*time.Second, msg, func() bool {
		for _, line := range strings.Split(logs.String(), "\n") {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == msg {
				addr = l.Addr
				return true
			}
		}
		return false
	})
	return addr
}

// startProcess runs `kisa <cmd>` in this process until the test ends, and
// fails the test if it stops with an error before then. It returns the
// function that stops it and its logs.
func (s *stack) startProcess(t *testing.T, cmd string) (context.CancelFunc, *testenv.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	logs := &testenv.Buffer{}
	go func() {
		defer close(done)
		if err := run(ctx, []string{cmd}, s.env, strings.NewReader(""), io.Discard, logs); err != nil && ctx.Err() == nil {
			t.Errorf("kisa %s: %v\n%s", cmd, err, logs.String())
		}
	}()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop, logs
}

// waitIdle waits until no overview task is queued or running, so that the
// next request cannot join the task of the one before.
func (s *stack) waitIdle(t *testing.T) {
	t.Helper()
	s.waitIdleWithin(t, 30*time.Second)
}

// waitIdleWithin is waitIdle with a bound of its own, for tests whose
// last tasks wait for asynq to recover them from a lost worker or master.
func (s *stack) waitIdleWithin(t *testing.T, d time.Duration) {
	t.Helper()
	testenv.Eventually(t, d, "the overview queue to empty", func() bool {
		q, err := s.queue.GetQueueInfo(jobs.QueueOverview)
		if err != nil && !errors.Is(err, asynq.ErrQueueNotFound) {
			t.Fatalf("asynq inspector: %v", err)
		}
		return err != nil || q.Pending+q.Active+q.Scheduled+q.Retry == 0
	})
}

// newKey makes an account with 2FA and a key with every scope.
func newKey(tb testing.TB, db *storage.DB) string {
	tb.Helper()
	_, key := newAccountKey(tb, db)
	return key
}

// newAccountKey is newKey with the account's id.
func newAccountKey(tb testing.TB, db *storage.DB) (uuid.UUID, string) {
	tb.Helper()
	ctx := context.Background()
	acc, err := db.CreateAccount(ctx, "e2e-"+testenv.RandomHex(4), true)
	if err != nil {
		tb.Fatal(err)
	}
	k, err := apikey.New("kisa")
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := db.CreateAPIKey(ctx, acc.ID, k.Lookup, k.Hash, apikey.AllScopes()); err != nil {
		tb.Fatal(err)
	}
	return acc.ID, k.Plain
}

// distinctColours counts the colours of img, up to 1000.
func distinctColours(img image.Image) int {
	seen := map[color.Color]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			seen[img.At(x, y)] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// overviewReply is the response of the overview endpoint.
type overviewReply struct {
	Status bool   `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		IsCached       bool `json:"isCached"`
		CacheExpiresIn *int `json:"cacheExpiresIn"`
		Results        struct {
			HasOverview bool                `json:"hasOverview"`
			Complete    bool                `json:"complete"`
			RawHTML     string              `json:"rawHtml"`
			Text        string              `json:"text"`
			Citations   []map[string]string `json:"citations"`
			Paragraphs  []struct {
				Text      *string             `json:"text"`
				Citations []map[string]string `json:"citations"`
			} `json:"paragraphs"`
			Sources     []map[string]string `json:"sources"`
			Screenshots map[string]string   `json:"screenshots"`
		} `json:"results"`
	} `json:"data"`
}

// post sends an overview request through the Go client, with its
// retries off (each call is one request, as the tests count visits), and
// decodes the reply as it came.
func (s *stack) post(tb testing.TB, body string) (*client.Response, overviewReply, []byte) {
	tb.Helper()
	res, out, raw, err := s.postErr(body)
	if err != nil {
		tb.Fatal(err)
	}
	return res, out, raw
}

// postErr is post for goroutines other than the test's own: it returns
// what went wrong instead of ending the test.
func (s *stack) postErr(body string) (*client.Response, overviewReply, []byte, error) {
	res, err := s.api.Do(context.Background(), http.MethodPost, "/v1/networks/browser/ai-overview", json.RawMessage(body), nil)
	if res == nil {
		return nil, overviewReply{}, nil, fmt.Errorf("POST ai-overview: %v", err)
	}
	var out overviewReply
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return res, out, res.Body, fmt.Errorf("reply is not JSON: %v\n%s", err, res.Body)
	}
	return res, out, res.Body, nil
}

// mustOK posts body and fails unless the answer is 200.
func (s *stack) mustOK(tb testing.TB, body string) overviewReply {
	tb.Helper()
	res, out, raw := s.post(tb, body)
	if res.StatusCode != http.StatusOK || !out.Status {
		tb.Fatalf("POST %s: status %d, body %s", body, res.StatusCode, raw)
	}
	return out
}

// checkScreenshots fetches the three URLs and checks they are PNG images
// of a page (not blank).
func (s *stack) checkScreenshots(tb testing.TB, shots map[string]string) {
	tb.Helper()
	if len(shots) != 3 {
		tb.Fatalf("screenshots = %v, want initial, afterLoad, afterExpand", shots)
	}
	for _, name := range []string{"initial", "afterLoad", "afterExpand"} {
		u := shots[name]
		if !strings.HasPrefix(u, s.cdn+"/") {
			tb.Errorf("screenshot %s URL %q is not on the CDN URL %s", name, u, s.cdn)
		}
		if !testenv.ValidForADay(u) {
			tb.Errorf("screenshot %s URL %q is not valid for 24 hours", name, u)
		}
		res, err := http.Get(u)
		if err != nil {
			tb.Fatalf("GET %s: %v", name, err)
		}
		img, err := png.Decode(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || err != nil {
			tb.Fatalf("GET %s screenshot: status %d, png: %v", name, res.StatusCode, err)
		}
		if colours := distinctColours(img); colours < 8 {
			tb.Errorf("screenshot %s has %d colours: a blank page?", name, colours)
		}
	}
}

// download returns the body at u (a presigned URL), unpacked when it is
// gzip-encoded, failing the test unless it is a 200.
func download(tb testing.TB, u string) string {
	tb.Helper()
	res, err := http.Get(u)
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: status %d, %v", u, res.StatusCode, err)
	}
	return string(b)
}
