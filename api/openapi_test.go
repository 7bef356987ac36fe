package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/hibiken/asynqmon"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/webhook"
)

// openapiHost is the host the test's requests are addressed to; the
// document's servers are replaced by it.
const openapiHost = "http://kisa.test"

// loadOpenAPI parses the served document and checks that it is a valid
// OpenAPI 3.1 document.
func loadOpenAPI(tb testing.TB) (*openapi3.T, routers.Router) {
	tb.Helper()
	b, err := OpenAPI()
	if err != nil {
		tb.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(b)
	if err != nil {
		tb.Fatalf("load the document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		tb.Fatalf("the document is not valid OpenAPI: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		tb.Fatalf("openapi = %s, want 3.1", doc.OpenAPI)
	}
	doc.Servers = openapi3.Servers{{URL: openapiHost}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		tb.Fatal(err)
	}
	return doc, router
}

// TestOpenAPIRoutes checks that every route gin serves is in the
// document, and every operation of the document is served.
func TestOpenAPIRoutes(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	srv := newTestServer(t, 0, withDashboard(t, testenv.Redis(t)))
	byPath := map[string][]string{}
	for _, r := range srv.router.Routes() {
		p := ginPathToOpenAPI(r.Path)
		byPath[p] = append(byPath[p], r.Method)
	}
	var served []string
	for p, methods := range byPath {
		if len(methods) == len(anyMethods) {
			methods = []string{"ANY"} // r.Any: compared by its path alone
		}
		for _, m := range methods {
			served = append(served, m+" "+p)
		}
	}
	var documented []string
	for path, item := range doc.Paths.Map() {
		if slices.Equal(byPath[path], anyMethods) {
			documented = append(documented, "ANY "+path)
			continue
		}
		for method := range item.Operations() {
			documented = append(documented, method+" "+path)
		}
	}
	slices.Sort(served)
	slices.Sort(documented)
	if diff := cmp.Diff(documented, served); diff != "" {
		t.Errorf("routes (-documented +served):\n%s", diff)
	}
}

// anyMethods are the methods gin's r.Any registers, in its order.
var anyMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodHead,
	http.MethodOptions, http.MethodDelete, http.MethodConnect, http.MethodTrace}

// withDashboard turns on the admin routes: /metrics and asynqmon on rdb
// at /admin/queues, behind testAdminToken.
func withDashboard(tb testing.TB, rdb *redis.Client) func(*Options) {
	opt := rdb.Options()
	mon := asynqmon.New(asynqmon.Options{RootPath: DashboardPath,
		RedisConnOpt: asynq.RedisClientOpt{Addr: opt.Addr, DB: opt.DB, Password: opt.Password}})
	tb.Cleanup(func() { mon.Close() })
	return func(o *Options) { o.AdminToken, o.Dashboard = testAdminToken, mon }
}

// ginPathToOpenAPI writes gin's /a/:id as /a/{id}.
func ginPathToOpenAPI(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			parts[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}

// exchange is one request of TestOpenAPIResponses and the status it must
// get; the answer is then checked against the document.
type exchange struct {
	name string
	h    http.Handler
	req  *http.Request
	want int
	// before runs just before the request (e.g. to spend a rate limit).
	before func(tb testing.TB)
	// contains, when set, must be in the answer's body: the case really
	// produced the field it is there for.
	contains string
}

// openapiFixture is the servers and keys TestOpenAPIResponses drives.
type openapiFixture struct {
	main, limited, broken, down, unhealthy *testServer
	key, noScope, no2FA, limitedKey        string
	integration, secret                    string
	brokenKey                              string
	account                                uuid.UUID
	hook                                   *webhookReceiver
	job, batch                             string // ids of an async job and a batch of the main server
}

// TestOpenAPIResponses drives every endpoint through the real router on
// the real PostgreSQL, Redis and MinIO, to its success and to each
// failure the document names, and validates every answer with
// openapi3filter: an undocumented status, header or field fails.
func TestOpenAPIResponses(t *testing.T) {
	doc, router := loadOpenAPI(t)
	registerTextDecoders()
	f := newOpenAPIFixture(t)
	covered := map[string]bool{}
	listeners := map[http.Handler]*httptest.Server{}
	parent := t
	for _, ex := range f.exchanges(t) {
		t.Run(ex.name, func(t *testing.T) {
			if ex.before != nil {
				ex.before(t)
			}
			if listeners[ex.h] == nil {
				listeners[ex.h] = httptest.NewServer(ex.h)
				parent.Cleanup(listeners[ex.h].Close)
			}
			res, body := send(t, listeners[ex.h].URL, ex.req)
			if res.StatusCode != ex.want {
				t.Fatalf("status %d, want %d; body %s", res.StatusCode, ex.want, body)
			}
			if !strings.Contains(string(body), ex.contains) {
				t.Errorf("body lacks %s: %.1500s", ex.contains, body)
			}
			route := checkAgainstDocument(t, router, ex.req, res, body)
			covered[route.Method+" "+route.Path+" "+fmt.Sprint(res.StatusCode)] = true
		})
	}
	t.Run("webhooks", func(t *testing.T) { checkWebhooks(t, doc, f) })
	for _, missing := range uncovered(doc, covered) {
		t.Errorf("documented but never answered by the test: %s", missing)
	}
}

// send sends a copy of r (addressed to openapiHost) to the server at
// base, over HTTP, and returns the answer with its whole body.
func send(tb testing.TB, base string, r *http.Request) (*http.Response, []byte) {
	tb.Helper()
	out := r.Clone(context.Background())
	out.URL, _ = url.Parse(base + r.URL.RequestURI())
	out.Host, out.RequestURI = "", ""
	if r.GetBody != nil {
		out.Body, _ = r.GetBody()
	}
	res, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		tb.Fatalf("%s %s: %v", r.Method, r.URL.Path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return res, body
}

// checkWebhooks delivers the webhooks of the fixture's job and batch as
// the worker does (Jobs.Deliver), and checks each delivery against the
// document's webhooks and its Kisa-Signature with the Go client's
// verifier, under the account's secret.
func checkWebhooks(t *testing.T, doc *openapi3.T, f *openapiFixture) {
	ctx := context.Background()
	for _, p := range []jobs.WebhookPayload{{Event: jobs.EventDone, JobID: uuid.MustParse(f.job)},
		{Event: jobs.EventBatchDone, BatchID: uuid.MustParse(f.batch)}} {
		if err := f.main.opts.Jobs.Deliver(ctx, p); err != nil {
			t.Fatalf("deliver %s: %v", p.Event, err)
		}
	}
	secret, err := f.main.secrets.WebhookSecret(ctx, f.account, false)
	if err != nil {
		t.Fatal(err)
	}
	got := f.hook.deliveries()
	if len(got) != 2 {
		t.Fatalf("%d deliveries, want 2", len(got))
	}
	for i, name := range []string{"overview.done", "overview.batch.done"} {
		d := got[i]
		sig := d.Header.Get(client.SignatureHeader)
		if err := client.VerifySignature(secret, sig, d.Body, f.main.clock.Now(), client.DefaultTolerance); err != nil {
			t.Errorf("%s: signature %q: %v", name, sig, err)
		}
		op := doc.Webhooks[name].Post
		if err := op.Parameters.GetByInAndName("header", client.SignatureHeader).Schema.Value.VisitJSON(sig,
			openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s: header does not match the document: %v", name, err)
		}
		var body any
		if err := json.Unmarshal(d.Body, &body); err != nil {
			t.Fatalf("%s: body is not JSON: %v", name, err)
		}
		schema := op.RequestBody.Value.Content.Get("application/json").Schema.Value
		if err := schema.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("%s: body does not match the document: %v\n%s", name, err, d.Body)
		}
	}
}

// notDriven are documented answers the test cannot bring about without a
// bug: a 500 where every failure of a backing service is told as a 503.
var notDriven = []string{
	"POST /v1/networks/browser/ai-overview 500", "POST /v1/networks/browser/ai-mode 500",
	"POST /v1/networks/browser/web-search 500", "POST /v1/completions 500",
	"POST /v1/networks/browser/chatgpt 500", "POST /v1/networks/browser/perplexity 500",
	"POST /v1/networks/browser/gemini 500", "POST /v1/networks/browser/copilot 500", "GET /v1/networks/browser/countries 500",
	"GET /v1/networks/browser/ai-overview/jobs 500", "GET /v1/networks/browser/ai-overview/jobs/{id} 500",
	"POST /v1/networks/browser/ai-overview/batch 500", "GET /v1/networks/browser/ai-overview/batches/{id} 500",
	"POST /v1/monitors 500", "GET /v1/monitors 500", "GET /v1/monitors/{id} 500", "PATCH /v1/monitors/{id} 500",
	"DELETE /v1/monitors/{id} 500", "POST /v1/monitors/{id}/run 500", "GET /v1/monitors/{id}/runs 500",
	"GET /v1/monitors/{id}/changes 500", "GET /v1/monitors/{id}/visibility 500",
	"GET /v1/monitors/{id}/brands 500", "GET /v1/monitors/{id}/sources 500",
	"GET /v1/monitors/{id}/targets/{target}/history 500",
	"GET /v1/observations 500", "GET /v1/usage 500",
}

// uncovered lists the documented operation-status pairs not in covered.
func uncovered(doc *openapi3.T, covered map[string]bool) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status := range op.Responses.Map() {
				k := method + " " + path + " " + status
				if !covered[k] && !slices.Contains(notDriven, k) {
					out = append(out, k)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// checkAgainstDocument validates one answer (and, for a success, its
// request) against the document, and fails on a header the document does
// not name for that answer.
func checkAgainstDocument(tb testing.TB, router routers.Router, req *http.Request, res *http.Response, body []byte) *routers.Route {
	tb.Helper()
	route, params, err := router.FindRoute(req)
	if err != nil {
		tb.Fatalf("%s %s is not in the document: %v", req.Method, req.URL.Path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		tb.Errorf("answer does not match the document: %v\nbody: %.2000s", err, body)
	}
	if res.StatusCode < 300 && req.GetBody != nil {
		if err := validateRequest(req, in); err != nil {
			tb.Errorf("request does not match the document: %v", err)
		}
	}
	documented := []string{"Content-Type", "Content-Length", "Date", "Connection"}
	if r := route.Operation.Responses.Status(res.StatusCode); r != nil {
		for name := range r.Value.Headers {
			documented = append(documented, http.CanonicalHeaderKey(name))
		}
	}
	for name := range res.Header {
		if !slices.Contains(documented, name) {
			tb.Errorf("header %s is not documented for %d", name, res.StatusCode)
		}
	}
	return route
}

// validateRequest checks a request that succeeded against the document
// (with a fresh copy of its body).
func validateRequest(req *http.Request, in *openapi3filter.RequestValidationInput) error {
	r := req.Clone(context.Background())
	body, err := req.GetBody()
	if err != nil {
		return err
	}
	r.Body = body
	in.Request = r
	return openapi3filter.ValidateRequest(context.Background(), in)
}

// registerTextDecoders lets openapi3filter read the non-JSON answers
// (the reference page, its script, the event stream) as strings.
func registerTextDecoders() {
	for _, ct := range []string{"text/html", "text/javascript", "text/event-stream"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
	}
}

// req builds a request addressed to openapiHost.
func req(method, path, key, body string) *http.Request {
	r := request(method, openapiHost+path, key, body)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	return r
}

// newOpenAPIFixture makes the servers: main (everything works), limited
// (one request per key), broken (its database closed after the key was
// cached), down (Redis unreachable) and unhealthy (a failing check).
func newOpenAPIFixture(tb testing.TB) *openapiFixture {
	tb.Helper()
	rdb := testenv.Redis(tb)
	up := newFakeUpstream(tb, modelReplies)
	f := &openapiFixture{}
	f.main = newTestServer(tb, 0, withOverviews(tb, rdb, time.Second), withDashboard(tb, rdb), func(o *Options) {
		o.Completions = Completions{URL: up.URL, Timeout: 10 * time.Second}
		o.Limits = Limits{Redis: rdb, AI: 1000, Other: 1000, Concurrent: 10, Hold: time.Minute}
		o.HealthChecks = map[string]func(context.Context) error{
			"redis": func(ctx context.Context) error { return rdb.Ping(ctx).Err() },
		}
	})
	acc := newAccount(tb, f.main.db, true)
	var keyID uuid.UUID
	f.key, keyID = newKey(tb, f.main.db, acc, apikey.AllScopes()...)
	seedObservation(tb, f.main.db, acc, keyID, f.main.clock.Now())
	f.noScope, _ = newKey(tb, f.main.db, acc)
	f.no2FA, _ = newKey(tb, f.main.db, newAccount(tb, f.main.db, false), apikey.AllScopes()...)
	f.integration, f.secret = seedResources(tb, f.main, acc)
	storeCachedOverview(tb, rdb)
	f.account, f.hook = acc, newWebhookReceiver(tb)
	f.job = submitted(tb, f.main, overviewPath, f.key, `{"query":"cached frogs","countryCode":"us","languageCode":"en","async":true,"webhook":{"url":"`+f.hook.URL+`"}}`)
	f.batch = submitted(tb, f.main, batchPath, f.key, `{"requests":[{"query":"cached frogs","countryCode":"us","languageCode":"en"}],"webhook":{"url":"`+f.hook.URL+`"}}`)

	f.limited = newTestServer(tb, 0, withOverviews(tb, rdb, time.Second), func(o *Options) { o.Limits = Limits{Redis: rdb, AI: 1, Other: 1} })
	f.limitedKey, _ = newKey(tb, f.limited.db, newAccount(tb, f.limited.db, true), apikey.AllScopes()...)
	f.broken = newTestServer(tb, time.Hour, withOverviews(tb, rdb, time.Second))
	f.brokenKey, _ = newKey(tb, f.broken.db, newAccount(tb, f.broken.db, true), apikey.AllScopes()...)
	do(tb, f.broken, request(http.MethodGet, "/v1/knowledgebase", f.brokenKey, ""))
	f.broken.db.Close()

	down := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: time.Second})
	tb.Cleanup(func() { down.Close() })
	f.down = newTestServer(tb, 0, withOverviews(tb, down, time.Second))
	f.unhealthy = newTestServer(tb, 0, func(o *Options) {
		o.HealthChecks = map[string]func(context.Context) error{
			"redis": func(ctx context.Context) error { return down.Ping(ctx).Err() },
		}
	})
	return f
}

// withOverviews gives a server the overview use case on rdb, waiting at
// most wait for a job, and its async jobs (webhooks to loopback allowed:
// the test's receiver is there); no worker runs.
func withOverviews(tb testing.TB, rdb *redis.Client, wait time.Duration) func(*Options) {
	shots, err := storage.NewArtifacts(testenv.S3(tb))
	if err != nil {
		tb.Fatal(err)
	}
	return func(o *Options) {
		visits := overview.NewVisits(overview.VisitsOptions{
			Results: testenv.Results(tb, rdb, testResultsPrefix), Client: asynq.NewClientFromRedisClient(rdb),
			Inspector: asynq.NewInspectorFromRedisClient(rdb),
			Timing:    overview.Timing{Wait: wait, Visit: time.Minute, MaxRetry: 1}, Logger: o.Logger, Now: o.Now,
		})
		o.Webhooks = webhook.Guard{AllowPrivate: true}
		o.Overviews = overview.New(overview.Options{Visits: visits, Artifacts: shots, Logger: o.Logger, Now: o.Now})
		o.Jobs = overview.NewJobs(overview.JobsOptions{Visits: visits, Artifacts: shots, DB: o.DB, Secrets: o.Secrets,
			HTTP: o.Webhooks.Client(), Retention: time.Hour, Now: o.Now, Logger: o.Logger})
		o.Monitors = newMonitorService(o, rdb, shots)
	}
}

// submitted submits an async job or batch with key and returns its id.
func submitted(tb testing.TB, srv *testServer, path, key, body string) string {
	tb.Helper()
	res := do(tb, srv, request(http.MethodPost, path, key, body))
	var out struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(res.Body), &out); res.Status != http.StatusAccepted || err != nil || out.Data.ID == "" {
		tb.Fatalf("POST %s: %d %s", path, res.Status, res.Body)
	}
	return out.Data.ID
}

// webhookReceiver records the deliveries it receives, answering 200.
type webhookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []delivery
}

// delivery is one webhook request as received.
type delivery struct {
	Header http.Header
	Body   []byte
}

func newWebhookReceiver(tb testing.TB) *webhookReceiver {
	w := &webhookReceiver{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		w.got = append(w.got, delivery{r.Header.Clone(), b})
		w.mu.Unlock()
	}))
	tb.Cleanup(w.Close)
	return w
}

func (w *webhookReceiver) deliveries() []delivery {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.got)
}

// seedResources gives acc a cluster, an integration and a secret.
func seedResources(tb testing.TB, srv *testServer, acc uuid.UUID) (integration, secret string) {
	tb.Helper()
	ctx := context.Background()
	if _, err := srv.db.CreateCluster(ctx, acc, "Site", "website", []byte(`{"url":"https://acme.example","pullType":"entire-website"}`)); err != nil {
		tb.Fatal(err)
	}
	in, err := srv.db.CreateIntegration(ctx, acc, "google-looker-studio", []byte(`{"email":"a@acme.example"}`))
	if err != nil {
		tb.Fatal(err)
	}
	sec, err := srv.secrets.Create(ctx, acc, "API_TOKEN", "s3cr3t")
	if err != nil {
		tb.Fatal(err)
	}
	return in.String(), sec.String()
}

// storeCachedOverview caches an overview, with screenshots, for the
// query "cached frogs" (us, en), as a worker would have.
func storeCachedOverview(tb testing.TB, rdb *redis.Client) {
	tb.Helper()
	// A link resolved through the engine's opaque redirect, its card dated.
	resolved := true
	state := kisa.LinkState{PublishedAt: "2026-08-21", Resolved: &resolved}
	c := kisa.Citation{URL: "https://nature.example/frogs", Title: "Frogs", Source: "Nature", Favicon: "https://nature.example/icon.png", LinkState: state}
	res := kisa.Result{TakenAt: time.Now(), RawHTML: "page.html.gz", Overview: kisa.Overview{HasOverview: true, Complete: true, Text: "Frogs are green.",
		Citations: []kisa.Citation{c}, Paragraphs: []kisa.Paragraph{{Text: "Frogs are green.", Citations: []kisa.Citation{c}}},
		Sources: []kisa.Source{{URL: "https://nature.example/frogs", Title: "Frogs", Source: "nature.example", Icon: "https://nature.example/icon.png", LinkState: state}}},
		Screenshots: map[string]string{kisa.ShotInitial: "a.png", kisa.ShotAfterLoad: "b.png", kisa.ShotAfterExpand: "c.png"}}
	key := overview.Request{Query: "cached frogs", Country: "us", Language: "en", Screenshots: true}.Key()
	results := testenv.Results(tb, rdb, testResultsPrefix)
	if err := results.Store(context.Background(), key, res, time.Hour); err != nil {
		tb.Fatal(err)
	}
	turn := kisa.AnswerTurn{Complete: true, Text: "Frogs are green.", Citations: []kisa.Citation{c},
		Paragraphs: res.Overview.Paragraphs, Sources: res.Overview.Sources,
		RelatedLinks: []kisa.Link{{URL: "https://guides.example/frogs", Title: "A guide to frogs", Source: "guides.example"}}}
	follow := turn
	follow.Query = "and toads?"
	aim := kisa.Result{TakenAt: time.Now(), RawHTML: "page.html.gz", AIMode: &kisa.Answer{HasAnswer: true, AnswerTurn: turn,
		Turns: []kisa.AnswerTurn{follow}}, Screenshots: map[string]string{kisa.ShotInitial: "a.png", kisa.ShotBeforeSubmit: "b.png", kisa.ShotResponse: "c.png"}}
	aim.AIMode.Finish()
	gpt := kisa.Answer{HasAnswer: true, AnswerTurn: turn, Turns: []kisa.AnswerTurn{follow}}
	gpt.Model, gpt.SearchQueries = "GPT-5", []string{"why are frogs green"}
	gpt.Finish()
	assistant := kisa.Result{TakenAt: time.Now(), RawHTML: "page.html.gz", Answer: &gpt,
		Screenshots: map[string]string{kisa.ShotInitial: "a.png", kisa.ShotBeforeSubmit: "b.png", kisa.ShotResponse: "c.png"}}
	web := kisa.Result{TakenAt: time.Now(), RawHTML: "page.html.gz", Web: &kisa.WebResults{Organic: []kisa.OrganicResult{
		{Position: 1, Title: "Why frogs are green", URL: "https://nature.example/frogs", Description: "Frogs are green."},
		{Position: 2, Title: "Frogs", URL: "https://frogs.example/", Description: "All about frogs."}}}}
	for _, r := range []struct {
		req overview.Request
		res kisa.Result
	}{
		{overview.Request{Surface: kisa.SurfaceAIMode, Query: "cached frogs", Country: "us", Language: "en", Screenshots: true, FollowUps: []string{"and toads?"}}, aim},
		{overview.Request{Surface: kisa.SurfaceWeb, Query: "cached frogs", Country: "us", Language: "en"}, web},
		{overview.Request{Surface: kisa.SurfaceChatGPT, Query: "cached frogs", Country: "us", Language: "en", Screenshots: true,
			FollowUps: []string{"and toads?"}, WebSearch: true}, assistant},
		{overview.Request{Surface: kisa.SurfacePerplexity, Query: "cached frogs", Country: "us", Language: "en", Screenshots: true}, assistant},
		{overview.Request{Surface: kisa.SurfaceGemini, Query: "cached frogs", Country: "us", Language: "en", Screenshots: true}, assistant},
		{overview.Request{Surface: kisa.SurfaceCopilot, Query: "cached frogs", Country: "us", Language: "en", Screenshots: true}, assistant},
	} {
		if err := results.Store(context.Background(), r.req.Key(), r.res, time.Hour); err != nil {
			tb.Fatal(err)
		}
	}
}

// modelReplies is the fake completions upstream: it answers by model.
func modelReplies(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	body := string(b)
	switch {
	case strings.Contains(body, `"model":"stream"`):
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.Join(sseEvents, ""))
	case strings.Contains(body, `"model":"unknown"`):
		answer(404, `{"error":{"message":"The model unknown does not exist"}}`)(w, r)
	case strings.Contains(body, `"model":"busy"`):
		answer(429, `{"error":{"message":"slow down"}}`, "Retry-After", "3")(w, r)
	case strings.Contains(body, `"model":"broken"`):
		answer(500, `{"error":{"message":"oops"}}`)(w, r)
	default:
		answer(200, chatReply)(w, r)
	}
}

// exchanges are the requests of TestOpenAPIResponses: per endpoint its
// success and each failure the document names.
func (f *openapiFixture) exchanges(tb testing.TB) []exchange {
	const (
		ov      = "/v1/networks/browser/ai-overview"
		cmpl    = "/v1/completions"
		unknown = "/v1/integrations/0b9b6f4e-0000-4000-8000-000000000000"
	)
	chat := func(model string, extra string) string {
		return `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]` + extra + `}`
	}
	huge := `{"query":"` + strings.Repeat("a", MaxBodyBytes) + `"}`
	m := f.main.Server
	var out []exchange
	add := func(name string, h http.Handler, r *http.Request, want int) {
		out = append(out, exchange{name: name, h: h, req: r, want: want})
	}
	reads := []string{"/v1/knowledgebase", "/v1/integrations", "/v1/integrations/" + f.integration, "/v1/secrets/" + f.secret}
	for _, p := range reads {
		add("GET "+p+" ok", m, req("GET", p, f.key, ""), 200)
		add("GET "+p+" no header", m, req("GET", p, "", ""), 401)
		add("GET "+p+" no scope", m, req("GET", p, f.noScope, ""), 403)
		add("GET "+p+" database down: an incident", f.broken, req("GET", p, f.brokenKey, ""), 500)
		out = append(out, exchange{name: "GET " + p + " rate limited", h: f.limited, want: 429,
			req: req("GET", p, f.limitedKey, ""), before: func(tb testing.TB) {
				do(tb, f.limited, req("GET", p, f.limitedKey, ""))
			}})
	}
	add("GET integration unknown", m, req("GET", unknown, f.key, ""), 404)
	add("GET secret unknown", m, req("GET", "/v1/secrets/not-a-uuid", f.key, ""), 404)
	add("GET knowledgebase without 2FA", m, req("GET", "/v1/knowledgebase", f.no2FA, ""), 403)

	add("overview from the cache", m, req("POST", ov, f.key, `{"query":"Cached  frogs","countryCode":"US","languageCode":"en"}`), 200)
	add("overview from the cache, fields trimmed", m, req("POST", ov, f.key,
		`{"query":"cached frogs","countryCode":"us","languageCode":"en","fields":{"sources":["url"],"citations":["title"],"paragraphs":{"text":false,"citations":["url"]}},"cache":{"enabled":true,"ttl":60}}`), 200)
	out = append(out, exchange{name: "overview from the cache with the raw HTML", h: m, want: 200, contains: `"rawHtml":"http`,
		req: req("POST", ov, f.key, `{"query":"cached frogs","countryCode":"us","languageCode":"en","rawHtml":true,"fields":{"rawHtml":true}}`)})
	add("overview not JSON", m, req("POST", ov, f.key, `{"query":`), 400)
	add("overview duplicate key", m, req("POST", ov, f.key, `{"query":"a","query":"b"}`), 400)
	add("overview no header", m, req("POST", ov, "", `{"query":"q"}`), 401)
	add("overview no scope", m, req("POST", ov, f.noScope, `{"query":"q"}`), 403)
	add("overview too large", m, req("POST", ov, f.key, huge), 413)
	add("overview invalid", m, req("POST", ov, f.key, `{"query":"","countryCode":"xx","cache":{"ttl":0},"colour":1}`), 422)
	add("overview elsewhere", m, req("POST", ov, f.key, `{"query":"q","countryCode":"jp","device":"mobile","location":{"latitude":48.1,"longitude":11.5}}`), 422)
	add("overview Redis down", f.down, req("POST", ov, f.key, `{"query":"q"}`), 503)
	out = append(out, exchange{name: "overview rate limited", h: f.limited, want: 429,
		req: req("POST", ov, f.limitedKey, `{"query":"q"}`), before: func(tb testing.TB) {
			do(tb, f.limited, req("POST", ov, f.limitedKey, `{"query":"q"}`))
		}})

	out = append(out, f.surfaceExchanges(huge)...)

	jobsP, batchesP := overviewPath+"/jobs", overviewPath+"/batches"
	out = append(out, exchange{name: "async job from the cache", h: m, want: 202, contains: `"status":"done"`,
		req: req("POST", ov, f.key, `{"query":"cached frogs","countryCode":"us","languageCode":"en","async":true}`)})
	out = append(out, exchange{name: "jobs list", h: m, want: 200, contains: `"jobs":[{`,
		req: req("GET", jobsP+"?status=done&limit=5", f.key, "")})
	out = append(out, exchange{name: "job", h: m, want: 200, contains: `"result":{`, req: req("GET", jobsP+"/"+f.job, f.key, "")})
	out = append(out, exchange{name: "batch", h: m, want: 200, contains: `"counts":{`, req: req("GET", batchesP+"/"+f.batch, f.key, "")})
	out = append(out, exchange{name: "batch submitted", h: m, want: 202, contains: `"jobs":[{`,
		req: req("POST", batchPath, f.key, `{"requests":[{"query":"cached frogs","countryCode":"us","languageCode":"en"},{"query":"Cached Frogs","countryCode":"us","languageCode":"en","screenshots":true},`+
			`{"query":"frogs","countryCode":"us","device":"mobile","location":"Austin,Texas,United States"},{"query":"frogs","countryCode":"de","location":{"latitude":48.137,"longitude":11.575}}]}`)})
	add("jobs list bad limit", m, req("GET", jobsP+"?limit=0", f.key, ""), 422)
	add("job unknown", m, req("GET", jobsP+"/"+unknown[len("/v1/integrations/"):], f.key, ""), 404)
	add("batch unknown", m, req("GET", batchesP+"/nope", f.key, ""), 404)
	out = append(out, exchange{name: "batch of every surface", h: m, want: 202, contains: `"query":"cached frogs","surface":"web-search"}`,
		req: req("POST", batchPath, f.key, `{"requests":[{"query":"cached frogs","countryCode":"us","languageCode":"en"},`+
			`{"surface":"ai-mode","query":"cached frogs","countryCode":"us","languageCode":"en","followUps":["and toads?"]},`+
			`{"surface":"web-search","query":"cached frogs","countryCode":"us","languageCode":"en","maxResults":1},`+
			`{"surface":"chatgpt","query":"cached frogs","countryCode":"us","languageCode":"en","followUps":["and toads?"],"webSearch":true},`+
			`{"surface":"gemini","query":"cached frogs","countryCode":"us","languageCode":"en"}]}`)})
	add("batch not JSON", m, req("POST", batchPath, f.key, `{"requests":[`), 400)
	add("batch too large", m, req("POST", batchPath, f.key, huge), 413)
	add("batch invalid", m, req("POST", batchPath, f.key, `{"requests":[{"query":""}],"webhook":{"url":"ftp://x"}}`), 422)
	for _, p := range []string{jobsP, jobsP + "/" + f.job, batchesP + "/" + f.batch} {
		add("GET "+p+" no header", m, req("GET", p, "", ""), 401)
		add("GET "+p+" no scope", m, req("GET", p, f.noScope, ""), 403)
		add("GET "+p+" database down: unavailable", f.broken, req("GET", p, f.brokenKey, ""), 503)
		add("GET "+p+" no async jobs here", f.unhealthy, req("GET", p, f.key, ""), 503)
		out = append(out, exchange{name: "GET " + p + " rate limited", h: f.limited, want: 429,
			req: req("GET", p, f.limitedKey, ""), before: func(tb testing.TB) {
				do(tb, f.limited, req("GET", p, f.limitedKey, ""))
			}})
	}
	add("batch no header", m, req("POST", batchPath, "", `{"requests":[{"query":"q"}]}`), 401)
	add("batch no scope", m, req("POST", batchPath, f.noScope, `{"requests":[{"query":"q"}]}`), 403)
	add("batch database down", f.broken, req("POST", batchPath, f.brokenKey, `{"requests":[{"query":"cached frogs","countryCode":"us","languageCode":"en"}]}`), 503)
	add("batch no async jobs here", f.unhealthy, req("POST", batchPath, f.key, `{"requests":[{"query":"q"}]}`), 503)
	out = append(out, exchange{name: "batch rate limited", h: f.limited, want: 429,
		req: req("POST", batchPath, f.limitedKey, `{"requests":[{"query":"q"}]}`), before: func(tb testing.TB) {
			do(tb, f.limited, req("POST", ov, f.limitedKey, `{"query":"q"}`))
		}})

	const countries = "/v1/networks/browser/countries"
	add("countries", m, req("GET", countries, f.noScope, ""), 200)
	add("countries no header", m, req("GET", countries, "", ""), 401)
	add("countries without 2FA", m, req("GET", countries, f.no2FA, ""), 403)
	out = append(out, exchange{name: "countries rate limited", h: f.limited, want: 429,
		req: req("GET", countries, f.limitedKey, ""), before: func(tb testing.TB) {
			do(tb, f.limited, req("GET", countries, f.limitedKey, ""))
		}})

	out = append(out, f.observationExchanges()...)

	add("completion", m, req("POST", cmpl, f.key, chat("gpt-test", `,"temperature":0.2`)), 200)
	add("completion streamed", m, req("POST", cmpl, f.key, chat("stream", `,"stream":true`)), 200)
	add("completion not JSON", m, req("POST", cmpl, f.key, `[]`), 400)
	add("completion refused upstream", m, req("POST", cmpl, f.key, chat("unknown", "")), 400)
	add("completion no header", m, req("POST", cmpl, "", chat("m", "")), 401)
	add("completion no scope", m, req("POST", cmpl, f.noScope, chat("m", "")), 403)
	add("completion too large", m, req("POST", cmpl, f.key, huge), 413)
	add("completion invalid", m, req("POST", cmpl, f.key, `{"model":"m","messages":[{"role":"user"}]}`), 422)
	add("completion upstream rate limit", m, req("POST", cmpl, f.key, chat("busy", "")), 429)
	add("completion upstream fails", m, req("POST", cmpl, f.key, chat("broken", "")), 503)
	add("completion not enabled", f.unhealthy, req("POST", cmpl, f.key, chat("m", "")), 503)

	for _, p := range []string{"/readyz", "/healthz"} {
		add(p, m, req("GET", p, "", ""), 200)
		add(p+" not ready", f.unhealthy, req("GET", p, "", ""), 503)
	}
	add("livez", m, req("GET", "/livez", "", ""), 200)
	add("metrics", m, req("GET", "/metrics", testAdminToken, ""), 200)
	add("metrics without the admin token", m, req("GET", "/metrics", f.key, ""), 401)
	dash := req("GET", DashboardPath, "", "")
	dash.SetBasicAuth("admin", testAdminToken)
	add("dashboard", m, dash, 200)
	add("dashboard without the admin token", m, req("GET", DashboardPath, "", ""), 401)
	add("dashboard file", m, req("GET", DashboardPath+"/manifest.json", testAdminToken, ""), 200)
	add("dashboard file without the admin token", m, req("GET", DashboardPath+"/manifest.json", "", ""), 401)
	add("profiler", m, req("GET", "/debug/pprof/heap?debug=1", testAdminToken, ""), 200)
	add("profiler without the admin token", m, req("GET", "/debug/pprof/heap", "", ""), 401)
	add("openapi.json", m, req("GET", "/v1/openapi.json", "", ""), 200)
	add("docs", m, req("GET", "/docs", "", ""), 200)
	add("docs script", m, req("GET", "/docs/assets/redoc.standalone.js", "", ""), 200)
	add("docs licence", m, req("GET", "/docs/assets/redoc-LICENSE.txt", "", ""), 200)
	add("docs unknown file", m, req("GET", "/docs/assets/nothing.js", "", ""), 404)
	return append(out, f.monitorExchanges(tb)...)
}

// surfaceExchanges are the exchanges of the AI Mode and web search
// endpoints: answers from the cache (synchronous and as a job) and every
// failure the overview's endpoint has.
func (f *openapiFixture) surfaceExchanges(huge string) []exchange {
	m := f.main.Server
	var out []exchange
	for _, s := range []struct{ path, cached, contains, invalid string }{
		{aiModePath, `{"query":"cached frogs","countryCode":"us","languageCode":"en","followUps":["and toads?"]}`, `"beforeSubmit":"http`,
			`{"query":"","followUps":[],"colour":1}`},
		{webSearchPath, `{"query":"cached frogs","countryCode":"us","languageCode":"en","maxResults":1,"fields":["position","url"],"rawHtml":true}`,
			`"organic":[{"position":1,"url":"https://nature.example/frogs"}],"rawHtml":"http`, `{"query":"q","maxResults":11,"screenshots":true}`},
		{browserPath + "chatgpt", `{"query":"cached frogs","countryCode":"us","languageCode":"en","followUps":["and toads?"]}`,
			`"model":"GPT-5"`, `{"query":"","webSearch":1}`},
		{browserPath + "perplexity", `{"query":"cached frogs","countryCode":"us","languageCode":"en","rawHtml":true}`,
			`"cited":true,"icon"`, `{"query":"q","webSearch":true}`},
		{browserPath + "gemini", `{"query":"cached frogs","countryCode":"us","languageCode":"en","fields":{"sources":["url"]}}`,
			`"sources":[{"cited":true,"position":1,"url":"https://nature.example/frogs"}]`, `{"query":"q","followUps":["a","b","c","d"]}`},
		{browserPath + "copilot", `{"query":"cached frogs","countryCode":"us","languageCode":"en"}`,
			`"markdown":"Frogs are green. [1]"`, `{"query":"` + strings.Repeat("q", 4001) + `"}`},
	} {
		add := func(name string, h http.Handler, r *http.Request, want int, contains string) {
			out = append(out, exchange{name: s.path + " " + name, h: h, req: r, want: want, contains: contains})
		}
		add("from the cache", m, req("POST", s.path, f.key, s.cached), 200, s.contains)
		add("as a job from the cache", m, req("POST", s.path, f.key, strings.TrimSuffix(s.cached, "}")+`,"async":true}`), 202, `"status":"done"`)
		add("not JSON", m, req("POST", s.path, f.key, `{"query":`), 400, "")
		add("no header", m, req("POST", s.path, "", `{"query":"q"}`), 401, "")
		add("no scope", m, req("POST", s.path, f.noScope, `{"query":"q"}`), 403, "")
		add("too large", m, req("POST", s.path, f.key, huge), 413, "")
		add("invalid", m, req("POST", s.path, f.key, s.invalid), 422, "")
		add("Redis down", f.down, req("POST", s.path, f.key, `{"query":"q"}`), 503, "")
		path := s.path
		out = append(out, exchange{name: path + " rate limited", h: f.limited, want: 429,
			req: req("POST", path, f.limitedKey, `{"query":"q"}`), before: func(tb testing.TB) {
				do(tb, f.limited, req("POST", path, f.limitedKey, `{"query":"q"}`))
			}})
	}
	return out
}
