package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/geo"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/webhook"
)

// jobsServer is a test server with the async use case on Redis database
// 14; guard vets webhook URLs. No worker runs: tests end jobs themselves
// with the Finisher, as the worker does.
type jobsServer struct {
	*testServer
	jobs   *overview.Jobs
	finish *overview.Finisher
	queue  *asynq.Inspector
}

func newJobsServer(t *testing.T, guard webhook.Guard, tweaks ...func(*Options)) *jobsServer {
	t.Helper()
	rdb := testenv.Redis(t)
	shots, err := storage.NewArtifacts(testenv.S3(t))
	if err != nil {
		t.Fatal(err)
	}
	js := &jobsServer{queue: asynq.NewInspectorFromRedisClient(rdb)}
	js.testServer = newTestServer(t, 0, func(o *Options) {
		results, client := testenv.Results(t, rdb, testResultsPrefix), asynq.NewClientFromRedisClient(rdb)
		visits := overview.NewVisits(overview.VisitsOptions{Results: results, Client: client, Inspector: js.queue,
			Timing: overview.Timing{Wait: time.Minute, Visit: time.Minute, MaxRetry: 1}})
		svc := overview.New(overview.Options{Visits: visits, Artifacts: shots})
		js.jobs = overview.NewJobs(overview.JobsOptions{Visits: visits, Artifacts: shots, DB: o.DB, Retention: time.Hour})
		js.finish = overview.NewFinisher(overview.FinisherOptions{Results: results, DB: o.DB, Client: client})
		o.Overviews, o.Jobs, o.Webhooks = svc, js.jobs, guard
		for _, tweak := range tweaks {
			tweak(o)
		}
	})
	return js
}

// queued is how many overview tasks wait in the queue.
func (s *jobsServer) queued(t *testing.T) int {
	t.Helper()
	q, err := s.queue.GetQueueInfo(jobs.QueueOverview)
	if err != nil {
		return 0
	}
	return q.Pending
}

// TestAsyncValidation: every problem is a 422 before anything is stored
// or queued; webhook URLs pass the SSRF guard (no opt-in here).
func TestAsyncValidation(t *testing.T) {
	srv := newJobsServer(t, webhook.Guard{})
	acc, key := newCaller(t, srv.db)
	items := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"query":"q%d"}`, i)
		}
		return strings.Join(parts, ",")
	}
	tests := []struct {
		name, path, body string
		wantErrors       map[string]string
	}{
		{name: "private webhook without opt-in", path: overviewPath,
			body:       `{"query":"q","async":true,"webhook":{"url":"http://127.0.0.1:9000/hook"}}`,
			wantErrors: map[string]string{"webhook.url": "must be an https URL"}},
		{name: "loopback https webhook", path: overviewPath,
			body:       `{"query":"q","async":true,"webhook":{"url":"https://127.0.0.1/hook"}}`,
			wantErrors: map[string]string{"webhook.url": "must not point to a loopback address"}},
		{name: "cloud metadata webhook", path: overviewPath,
			body:       `{"query":"q","async":true,"webhook":{"url":"https://169.254.169.254/"}}`,
			wantErrors: map[string]string{"webhook.url": "must not point to a link-local address"}},
		{name: "webhook without async, with the other problems", path: overviewPath,
			body:       `{"query":"","async":"yes","webhook":{"url":"https://10.0.0.1/","secret":"x"}}`,
			wantErrors: map[string]string{"query": "must not be empty", "async": "must be a boolean", "webhook": `needs "async": true`, "webhook.url": "must not point to a private address", "webhook.secret": "unknown field; allowed: url"}},
		{name: "batch of 101", path: overviewPath + "/batch", body: `{"requests":[` + items(101) + `]}`,
			wantErrors: map[string]string{"requests": "must hold 1 to 100 requests, got 101"}},
		{name: "empty batch", path: overviewPath + "/batch", body: `{"requests":[]}`,
			wantErrors: map[string]string{"requests": "must hold 1 to 100 requests, got 0"}},
		{name: "device and location of items", path: overviewPath + "/batch",
			body: `{"requests":[{"query":"a","device":"tablet"},{"query":"b","countryCode":"jp","location":"Munich,Bavaria,Germany"},{"query":"c","location":{"latitude":48}}]}`,
			wantErrors: map[string]string{"requests[0].device": "must be one of: desktop, mobile",
				"requests[1].location":           `names a place in "Germany", not in Japan (countryCode "jp"); its last part must be "Japan"`,
				"requests[2].location.longitude": "is required"}},
		{name: "async location out of range", path: overviewPath,
			body:       `{"query":"q","async":true,"countryCode":"us","location":{"latitude":100,"longitude":-97.7}}`,
			wantErrors: map[string]string{"location.latitude": "must be from -90 to 90 degrees"}},
		{name: "bad items keyed by index", path: overviewPath + "/batch",
			body: `{"requests":[{"query":"ok"},{"query":" "},{"query":"x","countryCode":"xx","async":true},7],"webhook":{"url":"https://192.168.1.1/"},"extra":1}`,
			wantErrors: map[string]string{"requests[1].query": "must not be empty", "requests[2].countryCode": "must be an ISO 3166-1 alpha-2 country code",
				"requests[2].async": "unknown field; allowed: query, countryCode, languageCode, device, location, screenshots, rawHtml, fields, cache, surface",
				"requests[3]":       "must be an object", "webhook.url": "must not point to a private address",
				"extra": "unknown field; allowed: requests, webhook"}},
		{name: "batch without requests", path: overviewPath + "/batch", body: `{}`,
			wantErrors: map[string]string{"requests": "is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := do(t, srv, request(http.MethodPost, tt.path, key, tt.body))
			want, _ := json.Marshal(errorBody{Error: "validation failed", Errors: tt.wantErrors})
			checkJSON(t, res, http.StatusUnprocessableEntity, string(want))
		})
	}
	if list, _ := srv.db.ListJobs(context.Background(), acc, "", nil, 10); len(list) != 0 || srv.queued(t) != 0 {
		t.Errorf("%d jobs stored, %d tasks queued after 422s; want none", len(list), srv.queued(t))
	}
}

// jobReply is the envelope of a job.
type jobReply struct {
	Data overview.Job `json:"data"`
}

func decodeJob(t *testing.T, res response) overview.Job {
	t.Helper()
	var r jobReply
	if err := json.Unmarshal([]byte(res.Body), &r); err != nil {
		t.Fatalf("job reply: %v: %s", err, res.Body)
	}
	return r.Data
}

// TestAsyncJobLifecycle submits a job (202, Location, queued, one task),
// ends it as the worker does, and reads it back: the result is the sync
// call's data; a failed job tells the sync call's message. Another
// account, an unknown and a malformed id all get the same 404.
func TestAsyncJobLifecycle(t *testing.T) {
	srv := newJobsServer(t, webhook.Guard{})
	_, key := newCaller(t, srv.db)
	_, otherKey := newCaller(t, srv.db)
	body := `{"query":"Async  Coffee","countryCode":"us","languageCode":"en","device":"mobile","location":"Austin,Texas,United States",
		"screenshots":false,"async":true,"fields":{"sources":["url"]}}`
	res := do(t, srv, request(http.MethodPost, overviewPath, key, body))
	if res.Status != http.StatusAccepted {
		t.Fatalf("submit: %d %s", res.Status, res.Body)
	}
	job := decodeJob(t, res)
	if loc := res.Header.Get("Location"); loc != "/v1/networks/browser/ai-overview/jobs/"+job.ID {
		t.Errorf("Location = %q", loc)
	}
	wantRequest := `{"query":"Async Coffee","countryCode":"us","languageCode":"en","device":"mobile","location":"Austin,Texas,United States",
		"screenshots":false,"rawHtml":false,
		"fields":{"sources":["url"],"paragraphs":{"text":true},"rawHtml":true},"cache":{"enabled":true,"ttl":120}}`
	if diff := testenv.JSONDiff(t, wantRequest, testenv.MustJSON(t, job.Request)); diff != "" || job.Status != "queued" || job.Result != nil {
		t.Errorf("job = %+v; request diff:\n%s", job, diff)
	}
	if n := srv.queued(t); n != 1 {
		t.Errorf("%d tasks queued, want 1", n)
	}

	path := jobsPath + "/" + job.ID
	notFound := `{"status":false,"error":"job not found"}`
	checkJSON(t, get(t, srv, path, otherKey), http.StatusNotFound, notFound)
	checkJSON(t, get(t, srv, jobsPath+"/"+uuid.NewString(), key), http.StatusNotFound, notFound)
	checkJSON(t, get(t, srv, jobsPath+"/not-an-id", key), http.StatusNotFound, notFound)

	// The job is keyed by its device and location too.
	r := overview.Request{Query: "Async Coffee", Country: "us", Language: "en", Device: kisa.DeviceMobile,
		Location: geo.Location{Name: "Austin,Texas,United States"}}
	result := &kisa.Result{Overview: kisa.Overview{HasOverview: true, Complete: true, Text: "Coffee.",
		Sources: []kisa.Source{{URL: "https://a.example/", Title: "A", Source: "a", Icon: "i"}}}, TakenAt: time.Now()}
	if err := srv.finish.Finish(context.Background(), jobs.OverviewPayload{Key: r.Key()}, jobs.Outcome{Result: result}); err != nil {
		t.Fatal(err)
	}
	got := decodeJob(t, get(t, srv, path, key))
	wantResult := `{"isCached":false,"cacheExpiresIn":null,"results":{"hasOverview":true,"complete":true,"text":"Coffee.","citations":[],"paragraphs":[],"sources":[{"url":"https://a.example/"}]}}`
	if diff := testenv.JSONDiff(t, wantResult, testenv.MustJSON(t, got.Result)); diff != "" || got.Status != "done" || got.FinishedAt == nil || got.StartedAt == nil {
		t.Errorf("done job = %+v; result diff:\n%s", got, diff)
	}

	// The same request again is answered by the cache the job filled.
	again := decodeJob(t, do(t, srv, request(http.MethodPost, overviewPath, key, body)))
	if again.Status != "done" || again.Result == nil || !again.Result.IsCached {
		t.Errorf("second job = %+v, want done at once from the cache", again)
	}

	failing := `{"query":"blocked query","screenshots":false,"async":true}`
	fj := decodeJob(t, do(t, srv, request(http.MethodPost, overviewPath, key, failing)))
	blocked := overview.Request{Query: "blocked query", Country: "at", Language: "de"}
	if err := srv.finish.Finish(context.Background(), jobs.OverviewPayload{Key: blocked.Key()}, jobs.Outcome{Failure: kisa.Blocked}); err != nil {
		t.Fatal(err)
	}
	fr := get(t, srv, jobsPath+"/"+fj.ID, key)
	var m map[string]any
	json.Unmarshal([]byte(fr.Body), &m)
	d := m["data"].(map[string]any)
	if d["status"] != "failed" || d["error"] != "the search engine refused the request (CAPTCHA); try again later" || d["retryable"] != true {
		t.Errorf("failed job = %s", fr.Body)
	}
	if _, ok := d["result"]; ok {
		t.Errorf("failed job has a result: %s", fr.Body)
	}
}

// TestJobList: newest first, limit and cursor, status filter, only the
// caller's own jobs, and 422 for bad parameters.
func TestJobList(t *testing.T) {
	srv := newJobsServer(t, webhook.Guard{})
	_, key := newCaller(t, srv.db)
	otherAcc, otherKey := newCaller(t, srv.db)
	var ids []string
	for i := range 5 {
		res := do(t, srv, request(http.MethodPost, overviewPath, key, fmt.Sprintf(`{"query":"list %d","async":true}`, i)))
		ids = append(ids, decodeJob(t, res).ID)
	}
	type page struct {
		Data overview.JobPage `json:"data"`
	}
	list := func(k, query string) (overview.JobPage, response) {
		res := get(t, srv, jobsPath+query, k)
		var p page
		json.Unmarshal([]byte(res.Body), &p)
		return p.Data, res
	}
	pageIDs := func(p overview.JobPage) []string {
		out := []string{}
		for _, j := range p.Jobs {
			out = append(out, j.ID)
		}
		return out
	}
	first, _ := list(key, "?limit=2")
	if got, want := pageIDs(first), []string{ids[4], ids[3]}; fmt.Sprint(got) != fmt.Sprint(want) || first.NextCursor == nil {
		t.Fatalf("first page = %v (next %v), want %v and a cursor", got, first.NextCursor, want)
	}
	second, _ := list(key, "?limit=2&cursor="+*first.NextCursor)
	third, _ := list(key, "?limit=2&cursor="+*second.NextCursor)
	if got, want := append(pageIDs(second), pageIDs(third)...), []string{ids[2], ids[1], ids[0]}; fmt.Sprint(got) != fmt.Sprint(want) || third.NextCursor != nil {
		t.Errorf("next pages = %v (last next %v), want %v and no cursor", got, third.NextCursor, want)
	}
	all, _ := list(key, "?status=queued")
	if len(all.Jobs) != 5 {
		t.Errorf("queued jobs = %d, want 5", len(all.Jobs))
	}
	if done, _ := list(key, "?status=done"); len(done.Jobs) != 0 {
		t.Errorf("done jobs = %d, want 0", len(done.Jobs))
	}
	if theirs, res := list(otherKey, ""); len(theirs.Jobs) != 0 || res.Status != http.StatusOK {
		t.Errorf("other account (%s) sees %d jobs: %s", otherAcc, len(theirs.Jobs), res.Body)
	}
	checkJSON(t, get(t, srv, jobsPath+"?limit=101&status=lost&cursor=zz", key), http.StatusUnprocessableEntity,
		`{"status":false,"error":"validation failed","errors":{"limit":"must be a whole number from 1 to 100","status":"must be one of queued, running, done, failed"}}`)
	checkJSON(t, get(t, srv, jobsPath+"?cursor=zz", key), http.StatusUnprocessableEntity,
		`{"status":false,"error":"validation failed","errors":{"cursor":"is not a cursor of this list; use nextCursor as given"}}`)
}

// TestJobScreenshotsExpire: a done job lists fresh screenshot URLs while
// its objects outlive them, then says screenshotsExpired and lists none.
func TestJobScreenshotsExpire(t *testing.T) {
	srv := newJobsServer(t, webhook.Guard{})
	_, key := newCaller(t, srv.db)
	shots := map[string]string{kisa.ShotInitial: "a/initial.png", kisa.ShotAfterLoad: "a/afterLoad.png", kisa.ShotAfterExpand: "a/afterExpand.png"}
	tests := []struct {
		name        string
		takenAgo    time.Duration
		wantExpired bool
	}{
		{name: "taken an hour ago", takenAgo: time.Hour},
		{name: "taken 25 hours ago", takenAgo: 25 * time.Hour, wantExpired: true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := fmt.Sprintf("shots %d", i)
			job := decodeJob(t, do(t, srv, request(http.MethodPost, overviewPath, key, `{"query":"`+q+`","async":true,"cache":{"enabled":false}}`)))
			r := overview.Request{Query: q, Country: "at", Language: "de", Screenshots: true}
			res := &kisa.Result{Screenshots: shots, TakenAt: time.Now().Add(-tt.takenAgo)}
			if err := srv.finish.Finish(context.Background(), jobs.OverviewPayload{Key: r.Key()}, jobs.Outcome{Result: res}); err != nil {
				t.Fatal(err)
			}
			got := decodeJob(t, get(t, srv, jobsPath+"/"+job.ID, key))
			urls, listed := testenv.Object(t, got.Result.Results)["screenshots"].(map[string]any)
			if got.ScreenshotsExpired != tt.wantExpired || listed == tt.wantExpired {
				t.Fatalf("screenshotsExpired %v, screenshots %v; want expired %v", got.ScreenshotsExpired, testenv.Object(t, got.Result.Results)["screenshots"], tt.wantExpired)
			}
			if listed && (len(urls) != 3 || !testenv.ValidForADay(urls["initial"].(string))) {
				t.Errorf("screenshots = %v, want three URLs valid 24 h", urls)
			}
		})
	}
}

// TestBatchSpendsTheAIBudget: a batch of n spends n AI requests; one the
// budget cannot hold is refused whole, nothing stored.
func TestBatchSpendsTheAIBudget(t *testing.T) {
	limits := testenv.Redis(t)
	srv := newJobsServer(t, webhook.Guard{}, func(o *Options) { o.Limits = Limits{Redis: limits, AI: 5, Hold: time.Minute} })
	acc, key := newCaller(t, srv.db)
	batch := func(n int) response {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`{"query":"budget %d"}`, i)
		}
		return do(t, srv, request(http.MethodPost, batchPath, key, `{"requests":[`+strings.Join(items, ",")+`]}`))
	}
	checkJSON(t, batch(6), http.StatusUnprocessableEntity, `{"status":false,"error":"validation failed","errors":{"requests":"must hold at most 5 requests: a batch spends one AI request per item, and this API key may make 5 a minute"}}`)
	if res := batch(3); res.Status != http.StatusAccepted {
		t.Fatalf("batch of 3: %d %s", res.Status, res.Body)
	}
	res := batch(3)
	checkLimited(t, res, "rate limit exceeded: this API key may make 5 AI requests a minute and this batch needs 3")
	if list, _ := srv.db.ListJobs(context.Background(), acc, "", nil, 10); len(list) != 3 {
		t.Errorf("%d jobs stored, want the first batch's 3", len(list))
	}
}
