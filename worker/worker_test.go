package worker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/proxies"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/worker/browser"
)

// handlerEnv is a Handler on the real Redis, MinIO and Chromium, visiting
// the fixture search engine.
type handlerEnv struct {
	h       *Handler
	results *storage.Results
	pool    *browser.Pool
	reg     *prometheus.Registry // the handler's and pool's metrics
	shots   *storage.Artifacts
}

// testArtifacts is a bucket of the test's own, created.
func testArtifacts(t *testing.T) *storage.Artifacts {
	t.Helper()
	shots, err := storage.NewArtifacts(testenv.S3(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := shots.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	return shots
}

// testFinisher ends visits on the test's Redis and the test database
// (where no job waits on the test's keys).
func testFinisher(t *testing.T, rdb *redis.Client, results *storage.Results) *overview.Finisher {
	t.Helper()
	return overview.NewFinisher(overview.FinisherOptions{Results: results, DB: testenv.Postgres(t),
		Client: asynq.NewClientFromRedisClient(rdb)})
}

func newHandlerEnv(t *testing.T, s3 storage.S3Config) handlerEnv {
	t.Helper()
	rdb := testenv.Redis(t)
	shots, err := storage.NewArtifacts(s3)
	if err != nil {
		t.Fatal(err)
	}
	fx := httptest.NewServer(serpfixture.New(serpfixture.Options{OverviewDelay: -1}))
	t.Cleanup(fx.Close)
	pool, err := browser.NewPool(browser.Config{ExecPath: testenv.Chromium(t), Tabs: 1, VisitTimeout: 30 * time.Second,
		SettleQuiet: 300 * time.Millisecond, OverviewWait: 5 * time.Second, OverviewAppear: time.Second,
		SearchURL: fx.URL + "/search"})
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	results := testenv.Results(t, rdb, "test:")
	reg := prometheus.NewRegistry()
	h, err := NewHandler(HandlerOptions{Pool: pool, Artifacts: shots, Finisher: testFinisher(t, rdb, results),
		SearchURL: fx.URL + "/search", Logger: slog.New(slog.DiscardHandler), Observer: NewMetrics(reg, pool),
		Sites: map[kisa.Surface]Site{kisa.SurfaceChatGPT: {URL: fx.URL + serpfixture.EnginePath("chatgpt")},
			kisa.SurfaceGemini: {URL: fx.URL + serpfixture.EnginePath("gemini")}}})
	if err != nil {
		t.Fatal(err)
	}
	return handlerEnv{h: h, results: results, pool: pool, reg: reg, shots: shots}
}

// process runs one task for query and returns the handler's error and the
// outcome it published.
func (e handlerEnv) process(t *testing.T, query string, screenshots bool) (jobs.Outcome, error) {
	t.Helper()
	return e.processPayload(t, jobs.OverviewPayload{Key: "k-" + testenv.RandomHex(4), Query: query,
		CountryCode: "us", LanguageCode: "en", Screenshots: screenshots})
}

// processPayload runs one task of payload p and returns the handler's
// error and the outcome it published.
func (e handlerEnv) processPayload(t *testing.T, p jobs.OverviewPayload) (jobs.Outcome, error) {
	t.Helper()
	key := p.Key
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w, err := e.results.Subscribe(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	task, err := jobs.NewOverviewTask(p, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	perr := e.h.ProcessTask(ctx, task)
	out, err := w.Wait(ctx)
	if err != nil {
		t.Fatalf("no outcome published: %v (handler error %v)", err, perr)
	}
	return out, perr
}

// download returns the object key through its presigned URL, unpacked
// (the transport undoes Content-Encoding: gzip).
func (e handlerEnv) download(t *testing.T, key string) string {
	t.Helper()
	u, err := e.shots.URL(context.Background(), key, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d, %v", key, resp.StatusCode, err)
	}
	return string(b)
}

func TestProcessTask(t *testing.T) {
	s3 := testenv.S3(t)
	e := newHandlerEnv(t, s3)
	shots, _ := storage.NewArtifacts(s3)
	if err := shots.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}

	t.Run("overview with screenshots", func(t *testing.T) {
		out, err := e.process(t, "why is the sky blue", true)
		if err != nil || out.Result == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		if !out.Result.Overview.HasOverview || !out.Result.Overview.Complete || len(out.Result.Screenshots) != 3 {
			t.Errorf("result = %+v, want a complete overview and 3 screenshots", out.Result)
		}
		if got := e.download(t, out.Result.RawHTML); !strings.Contains(got, `data-loaded="1"`) {
			t.Errorf("raw HTML %.80q is not the page after expansion", got)
		}
	})
	t.Run("stalled stream is what is there, not complete", func(t *testing.T) {
		out, err := e.process(t, serpfixture.StalledQuery, false)
		if err != nil || out.Result == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		if ov := out.Result.Overview; !ov.HasOverview || ov.Complete || ov.Text == "" {
			t.Errorf("overview = %+v, want part of one, not complete", ov)
		}
	})
	for _, q := range []string{serpfixture.SearchingQuery, serpfixture.GenerateQuery} {
		t.Run(q+" is no overview", func(t *testing.T) {
			out, err := e.process(t, q, false)
			if err != nil || out.Result == nil {
				t.Fatalf("err %v, outcome %+v", err, out)
			}
			if ov := out.Result.Overview; ov.HasOverview || ov.Text != "" || len(ov.Sources) != 0 {
				t.Errorf("overview = %+v, want none", ov)
			}
		})
	}
	t.Run("page not recognised is final, told, counted and kept as evidence", func(t *testing.T) {
		out, err := e.process(t, serpfixture.UnknownQuery, false)
		if !errors.Is(err, asynq.SkipRetry) || out.Failure != kisa.Unrecognised || !strings.HasPrefix(out.Evidence, storage.EvidencePrefix) {
			t.Fatalf("err %v, outcome %+v; want SkipRetry, unrecognised and evidence", err, out)
		}
		if got := series(t, e.reg)["kisa_worker_tasks_total{outcome=unrecognised}{surface=ai-overview}"]; got != 1 {
			t.Errorf("unrecognised jobs = %v, want 1", got)
		}
		if page := e.download(t, out.Evidence+"page.html.gz"); !strings.Contains(page, "Nx7Q2") {
			t.Errorf("evidence HTML %.80q is not the page", page)
		}
		if png := e.download(t, out.Evidence+"fullpage.png"); !strings.HasPrefix(png, "\x89PNG") {
			t.Error("evidence has no full-page PNG")
		}
		if err := out.Err(); !strings.Contains(err.Error(), out.Evidence) {
			t.Errorf("outcome error %q does not name the evidence", err)
		}
	})
	t.Run("CAPTCHA is final and told as blocked", func(t *testing.T) {
		out, err := e.process(t, "captcha now", false)
		want := jobs.Outcome{Failure: kisa.Blocked, Part: kisa.PartBrowser}
		if !errors.Is(err, asynq.SkipRetry) || out != want {
			t.Errorf("err %v, outcome %+v; want SkipRetry and %+v", err, out, want)
		}
	})
}

// TestProcessAssistantTask checks an assistant's task on the fixture's
// sites: the answer, finished (positions, cited, Markdown); the pages
// that refuse the visit and the unknown layout told as their failures
// with the page kept as evidence.
func TestProcessAssistantTask(t *testing.T) {
	s3 := testenv.S3(t)
	e := newHandlerEnv(t, s3)
	if err := e.shots.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	ask := func(surface kisa.Surface, prompt string) (jobs.Outcome, error) {
		return e.processPayload(t, jobs.OverviewPayload{Key: "k-" + testenv.RandomHex(4), Query: prompt, Surface: surface,
			CountryCode: "us", LanguageCode: "en", Screenshots: true, WebSearch: true})
	}
	t.Run("answer", func(t *testing.T) {
		out, err := ask(kisa.SurfaceGemini, "best air purifier")
		if err != nil || out.Result == nil || out.Result.Answer == nil {
			t.Fatalf("err %v, outcome %+v", err, out)
		}
		a := out.Result.Answer
		if !a.HasAnswer || !a.Complete || a.Markdown == "" || len(a.Sources) == 0 || a.Sources[0].Position != 1 ||
			a.Sources[0].Cited == nil || len(out.Result.Screenshots) != 3 {
			t.Errorf("result = %+v", out.Result)
		}
	})
	for _, tt := range []struct {
		prompt string
		want   kisa.Failure
	}{
		{"a human check", kisa.Blocked},
		{"a sign-in wall", kisa.Blocked},
		{"a usage limit", kisa.Blocked},
		{"an engine error", kisa.Unavailable},
		{"an unknown layout", kisa.Unrecognised},
	} {
		t.Run(tt.prompt, func(t *testing.T) {
			out, _ := ask(kisa.SurfaceChatGPT, tt.prompt)
			if out.Failure != tt.want || !strings.HasPrefix(out.Evidence, storage.EvidencePrefix) {
				t.Fatalf("outcome %+v; want %s with evidence", out, tt.want)
			}
			if page := e.download(t, out.Evidence+"page.html.gz"); !strings.Contains(page, "<html") {
				t.Errorf("evidence HTML %.80q is not the page", page)
			}
		})
	}
}

// TestProcessTaskCaches checks that the worker caches a result for the
// longest ttl of the requests that shared its task, and not at all when
// none of them wanted caching.
func TestProcessTaskCaches(t *testing.T) {
	s3 := testenv.S3(t)
	e := newHandlerEnv(t, s3)
	shots, _ := storage.NewArtifacts(s3)
	if err := shots.EnsureBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		cacheTTL int           // the enqueuing request's
		wish     time.Duration // a request that joined
		want     time.Duration // 0: not cached
	}{
		{"enqueuer's ttl", 60, 0, 60 * time.Second},
		{"a joiner's longer wish", 60, 300 * time.Second, 300 * time.Second},
		{"cache-off enqueuer, cache-on joiner", 0, 90 * time.Second, 90 * time.Second},
		{"nobody wanted it cached", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := jobs.OverviewPayload{Key: "k-" + testenv.RandomHex(4), Query: "no overview here",
				LanguageCode: "en", CacheTTL: tt.cacheTTL, Run: testenv.RandomHex(8)}
			if tt.wish > 0 {
				if err := e.results.Wish(context.Background(), p.Run, tt.wish); err != nil {
					t.Fatal(err)
				}
			}
			if out, err := e.processPayload(t, p); err != nil || out.Result == nil {
				t.Fatalf("err %v, outcome %+v", err, out)
			}
			_, left, ok, err := e.results.Cached(context.Background(), p.Key)
			if err != nil {
				t.Fatal(err)
			}
			if got := left.Round(time.Minute / 2); ok != (tt.want > 0) || got != tt.want {
				t.Errorf("cached %v for %v, want %v", ok, got, tt.want)
			}
		})
	}
}

// TestProcessTaskStorageDown checks that screenshots that cannot be stored
// give a retryable error, told as unavailable on the last try.
func TestProcessTaskStorageDown(t *testing.T) {
	s3 := testenv.S3(t)
	s3.Endpoint = "127.0.0.1:1" // nothing listens there
	e := newHandlerEnv(t, s3)
	out, err := e.process(t, "why is the sky blue", true)
	want := jobs.Outcome{Failure: kisa.Unavailable, Part: kisa.PartStorage}
	if err == nil || errors.Is(err, asynq.SkipRetry) || out != want {
		t.Errorf("err %v, outcome %+v; want a retryable error and %+v", err, out, want)
	}
}

// TestPageURL checks that the query reaches the search engine only as
// the escaped q parameter: whatever it holds, the host, the path and the
// other parameters of the search URL stay as they are.
func TestPageURL(t *testing.T) {
	u, err := url.Parse("https://www.google.com/search?udm=50")
	if err != nil {
		t.Fatal(err)
	}
	h := &Handler{searchURL: u}
	tests := []struct {
		name, query, want string
	}{
		{"plain", "why are frogs green?", "https://www.google.com/search?gl=at&hl=de&q=why+are+frogs+green%3F&udm=50"},
		{"ampersand", "a&udm=1&gl=us", "https://www.google.com/search?gl=at&hl=de&q=a%26udm%3D1%26gl%3Dus&udm=50"},
		{"fragment", "a#b", "https://www.google.com/search?gl=at&hl=de&q=a%23b&udm=50"},
		{"question mark", "?q=b", "https://www.google.com/search?gl=at&hl=de&q=%3Fq%3Db&udm=50"},
		{"slashes", "//evil.example/x", "https://www.google.com/search?gl=at&hl=de&q=%2F%2Fevil.example%2Fx&udm=50"},
		{"percent", "100%25 %2F", "https://www.google.com/search?gl=at&hl=de&q=100%2525+%252F&udm=50"},
		{"newline", "a\r\nHost: evil", "https://www.google.com/search?gl=at&hl=de&q=a%0D%0AHost%3A+evil&udm=50"},
		{"at sign", "user@evil.example", "https://www.google.com/search?gl=at&hl=de&q=user%40evil.example&udm=50"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := resultsURL(h.searchURL, jobs.OverviewPayload{Query: tt.query, CountryCode: "at", LanguageCode: "de"})
			if got != tt.want {
				t.Errorf("resultsURL = %q, want %q", got, tt.want)
			}
			u, err := url.Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			rest := map[string]string{"host": u.Host, "path": u.Path, "fragment": u.Fragment, "q": q.Get("q"),
				"udm": q.Get("udm"), "gl": q.Get("gl"), "hl": q.Get("hl"), "params": fmt.Sprint(len(q))}
			want := map[string]string{"host": "www.google.com", "path": "/search", "fragment": "", "q": tt.query,
				"udm": "50", "gl": "at", "hl": "de", "params": "4"}
			if diff := cmp.Diff(want, rest); diff != "" {
				t.Errorf("parsed back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewHandlerRefuses: a handler is not made without what every visit
// needs.
func TestNewHandlerRefuses(t *testing.T) {
	shots, err := storage.NewArtifacts(storage.S3Config{Endpoint: "127.0.0.1:1", AccessKey: "k", SecretKey: "secret-key", Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	set, err := proxies.Parse("de=http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	ok := HandlerOptions{SearchURL: "http://127.0.0.1:1/search", Artifacts: shots, Observer: &Metrics{},
		Finisher: overview.NewFinisher(overview.FinisherOptions{})}
	tests := []struct {
		name   string
		change func(*HandlerOptions)
	}{
		{name: "no search URL", change: func(o *HandlerOptions) { o.SearchURL = "" }},
		{name: "no artifacts", change: func(o *HandlerOptions) { o.Artifacts = nil }},
		{name: "no observer", change: func(o *HandlerOptions) { o.Observer = nil }},
		{name: "no finisher", change: func(o *HandlerOptions) { o.Finisher = nil }},
		{name: "proxies without a rotation", change: func(o *HandlerOptions) { o.Proxies = set }},
	}
	if _, err := NewHandler(ok); err != nil {
		t.Fatalf("NewHandler(valid options): %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := ok
			tt.change(&o)
			if _, err := NewHandler(o); err == nil {
				t.Error("NewHandler: got nil error")
			}
		})
	}
}
