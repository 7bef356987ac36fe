package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/testenv"
	"github.com/kisa-dev/kisa/webhook"
)

// TestAsyncEndToEnd runs async jobs, batches and webhooks through real
// web and worker processes, Chromium and the fixture search engine.
func TestAsyncEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s", env: []string{"KISA_WEBHOOK_ALLOW_PRIVATE=true", "KISA_LIMIT_OTHER=0"},
		fixture: serpfixture.Options{OverviewDelay: 300 * time.Millisecond}})
	db := testenv.Postgres(t)
	account, key := newAccountKey(t, db)
	_, otherKey := newAccountKey(t, db)
	other := s.otherWeb(t)

	t.Run("submit, 202, poll from another web process, result as the sync data", func(t *testing.T) {
		const body = `{"query":"why is the sky blue","countryCode":"us","languageCode":"en","async":true}`
		status, header, raw := call(t, http.MethodPost, s.base+"/v1/networks/browser/ai-overview", key, body)
		if status != http.StatusAccepted {
			t.Fatalf("submit: %d %s", status, raw)
		}
		job := dataOf[overview.Job](t, raw)
		loc := header.Get("Location")
		// The answer shows the job as it is once enqueued: a free worker
		// may already have started it.
		if loc != "/v1/networks/browser/ai-overview/jobs/"+job.ID || (job.Status != "queued" && job.Status != "running") {
			t.Fatalf("Location %q, job %+v", loc, job)
		}
		done := pollJob(t, other, key, job.ID, func(j overview.Job) bool { return j.Status == "done" })
		if done.Result == nil || done.Result.IsCached || done.Result.CacheExpiresIn != nil || done.StartedAt == nil || done.FinishedAt == nil {
			t.Fatalf("done job = %+v", done)
		}
		// The sync call for the same request is answered by the cache the job filled: one visit.
		sync := s.mustOK(t, `{"query":"why is the sky blue","countryCode":"us","languageCode":"en"}`)
		if !sync.Data.IsCached || s.fixture.Visits("why is the sky blue") != 1 {
			t.Errorf("sync after async: isCached %v, visits %d; want a cache hit and one visit", sync.Data.IsCached, s.fixture.Visits("why is the sky blue"))
		}
		_, _, syncRaw := s.post(t, `{"query":"why is the sky blue","countryCode":"us","languageCode":"en"}`)
		want := withoutShots(t, dataOf[map[string]any](t, syncRaw)["results"])
		if diff := cmp.Diff(want, withoutShots(t, testenv.Object(t, done.Result.Results))); diff != "" {
			t.Errorf("job result differs from the sync data (-sync +job):\n%s", diff)
		}
		shots, _ := testenv.Object(t, done.Result.Results)["screenshots"].(map[string]any)
		urls := map[string]string{}
		for k, v := range shots {
			urls[k], _ = v.(string)
		}
		s.checkScreenshots(t, urls)

		st, _, raw404 := call(t, http.MethodGet, other+loc, otherKey, "")
		_, _, rawUnknown := call(t, http.MethodGet, other+"/v1/networks/browser/ai-overview/jobs/"+uuid.NewString(), key, "")
		if st != http.StatusNotFound || string(raw404) != string(rawUnknown) {
			t.Errorf("another account: %d %s; unknown id: %s; want the same 404", st, raw404, rawUnknown)
		}
	})

	t.Run("webhook: 500 twice, the third delivery is signed and recorded", func(t *testing.T) {
		rcv := newReceiver(t, 2)
		body := `{"query":"webhook retries","languageCode":"en","screenshots":false,"async":true,"webhook":{"url":"` + rcv.url + `/hook"}}`
		status, _, raw := call(t, http.MethodPost, s.base+"/v1/networks/browser/ai-overview", key, body)
		if status != http.StatusAccepted {
			t.Fatalf("submit: %d %s", status, raw)
		}
		id := dataOf[overview.Job](t, raw).ID
		j := pollJob(t, other, key, id, func(j overview.Job) bool { return j.Webhook != nil && j.Webhook.DeliveredAt != nil })
		if j.Webhook.Attempts != 3 || j.Webhook.LastStatus == nil || *j.Webhook.LastStatus != 200 {
			t.Errorf("webhook state = %+v, want 3 attempts, last 200", j.Webhook)
		}
		calls := rcv.deliveries()
		if len(calls) != 3 {
			t.Fatalf("receiver got %d deliveries, want 3", len(calls))
		}
		secret := webhookSecret(t, s, account)
		third := calls[2]
		if err := webhook.Verify(secret, third.signature, third.body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("third delivery's signature: %v (%s)", err, third.signature)
		}
		var ev struct {
			Event string       `json:"event"`
			Job   overview.Job `json:"job"`
		}
		if err := json.Unmarshal(third.body, &ev); err != nil || ev.Event != "overview.done" || ev.Job.ID != id || ev.Job.Status != "done" || ev.Job.Result == nil {
			t.Errorf("delivery body = %s (%v)", third.body, err)
		}
	})

	t.Run("batch of 10 ends with 10 done jobs and one batch webhook", func(t *testing.T) {
		rcv := newReceiver(t, 0)
		items := make([]string, 10)
		for i := range items {
			items[i] = fmt.Sprintf(`{"query":"batch item %d","languageCode":"en","screenshots":false}`, i)
		}
		body := `{"requests":[` + strings.Join(items, ",") + `],"webhook":{"url":"` + rcv.url + `/batch"}}`
		status, header, raw := call(t, http.MethodPost, s.base+"/v1/networks/browser/ai-overview/batch", key, body)
		if status != http.StatusAccepted {
			t.Fatalf("batch: %d %s", status, raw)
		}
		b := dataOf[overview.Batch](t, raw)
		if header.Get("Location") != "/v1/networks/browser/ai-overview/batches/"+b.ID || len(b.Jobs) != 10 || b.Status != "running" {
			t.Fatalf("Location %q, batch %+v", header.Get("Location"), b)
		}
		var done overview.Batch
		testenv.Eventually(t, 90*time.Second, "the batch to end", func() bool {
			_, _, raw := call(t, http.MethodGet, other+header.Get("Location"), key, "")
			done = dataOf[overview.Batch](t, raw)
			return done.Status == "done"
		})
		if done.Counts["done"] != 10 || len(done.Jobs) != 10 || done.Jobs[3].Query != "batch item 3" {
			t.Errorf("batch = %+v, want 10 done jobs in order", done)
		}
		testenv.Eventually(t, 30*time.Second, "the batch webhook", func() bool { return len(rcv.deliveries()) >= 1 })
		// A second delivery could only come from the task's retry: none
		// comes once it has completed.
		testenv.Eventually(t, 30*time.Second, "the batch webhook's task to complete", func() bool {
			task, err := s.queue.GetTaskInfo(jobs.QueueWebhooks, "wh-"+jobs.EventBatchDone+"-"+b.ID)
			return err == nil && task.State == asynq.TaskStateCompleted
		})
		calls := rcv.deliveries()
		if len(calls) != 1 || !strings.Contains(string(calls[0].body), `"event":"overview.batch.done"`) {
			t.Errorf("batch webhook deliveries = %d, first %s; want one overview.batch.done", len(calls), calls[0].body)
		}
	})

	t.Run("a web process SIGKILLed after the 202 loses nothing", func(t *testing.T) {
		web := exec.Command(buildKisa(t), "web")
		web.Env = append(append(os.Environ(), s.environ...), "PORT=0")
		logs := &testenv.Buffer{}
		web.Stderr = logs
		if err := web.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { web.Process.Kill(); web.Wait() })
		base := "http://" + listenAddr(t, logs, "web listening")
		testenv.Eventually(t, 30*time.Second, "kisa web at "+base, answers200(base+"/healthz"))
		status, _, raw := call(t, http.MethodPost, base+"/v1/networks/browser/ai-overview", key,
			`{"query":"killed web process","languageCode":"en","screenshots":false,"async":true}`)
		if err := web.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		web.Wait()
		if status != http.StatusAccepted {
			t.Fatalf("submit: %d %s", status, raw)
		}
		j := pollJob(t, s.base, key, dataOf[overview.Job](t, raw).ID, func(j overview.Job) bool { return j.Status == "done" })
		if j.Result == nil || testenv.Object(t, j.Result.Results)["hasOverview"] != true {
			t.Errorf("job = %+v", j)
		}
	})

	t.Run("job list: newest first, limit, own jobs only", func(t *testing.T) {
		_, _, raw := call(t, http.MethodGet, other+"/v1/networks/browser/ai-overview/jobs?limit=3", key, "")
		page := dataOf[overview.JobPage](t, raw)
		if len(page.Jobs) != 3 || page.NextCursor == nil {
			t.Fatalf("page = %s", raw)
		}
		if q := page.Jobs[0].Request.Query; q != "killed web process" {
			t.Errorf("newest job is %q, want the last submitted", q)
		}
		for i := 1; i < len(page.Jobs); i++ {
			if page.Jobs[i-1].CreatedAt < page.Jobs[i].CreatedAt {
				t.Errorf("jobs not newest first: %s before %s", page.Jobs[i-1].CreatedAt, page.Jobs[i].CreatedAt)
			}
		}
		_, _, rest := call(t, http.MethodGet, other+"/v1/networks/browser/ai-overview/jobs?limit=100&cursor="+*page.NextCursor, key, "")
		if n := len(dataOf[overview.JobPage](t, rest).Jobs); n != 10 {
			t.Errorf("second page has %d jobs, want the other 10 (13 in all)", n)
		}
		_, _, theirs := call(t, http.MethodGet, other+"/v1/networks/browser/ai-overview/jobs", otherKey, "")
		if got := string(theirs); got != `{"status":true,"data":{"jobs":[],"nextCursor":null}}` {
			t.Errorf("another account's list = %s", got)
		}
	})
}

// otherWeb runs one more `kisa web` of the stack, on a port of its own,
// until the test ends, and returns its base URL.
func (s *stack) otherWeb(t *testing.T) string {
	t.Helper()
	env := testenv.Environ(append(append([]string{}, s.environ...), "PORT=0")...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	logs := &testenv.Buffer{}
	go func() {
		defer close(done)
		if err := run(ctx, []string{"web"}, env, strings.NewReader(""), io.Discard, logs); err != nil && ctx.Err() == nil {
			t.Errorf("second kisa web: %v\n%s", err, logs.String())
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	base := "http://" + listenAddr(t, logs, "web listening")
	testenv.Eventually(t, 30*time.Second, "kisa web at "+base, answers200(base+"/healthz"))
	return base
}

// answers200 is a condition for testenv.Eventually: a GET of url is
// answered 200.
func answers200(url string) func() bool {
	return func() bool {
		res, err := http.Get(url)
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
}

// call sends a request with the key and returns the status, the headers
// and the body.
func call(tb testing.TB, method, url, key, body string) (int, http.Header, []byte) {
	tb.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, raw
}

// dataOf decodes the data of a success envelope.
func dataOf[T any](tb testing.TB, raw []byte) T {
	tb.Helper()
	var env struct {
		Data T `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		tb.Fatalf("reply: %v: %s", err, raw)
	}
	return env.Data
}

// pollJob polls a job at base until cond holds (60 s at most).
func pollJob(t *testing.T, base, key, id string, cond func(overview.Job) bool) overview.Job {
	t.Helper()
	var j overview.Job
	testenv.Eventually(t, 60*time.Second, "job "+id, func() bool {
		_, _, raw := call(t, http.MethodGet, base+"/v1/networks/browser/ai-overview/jobs/"+id, key, "")
		j = dataOf[overview.Job](t, raw)
		return cond(j)
	})
	return j
}

// withoutShots returns results without its screenshots (their URLs are
// signed afresh on every read), through JSON so both sides compare alike.
func withoutShots(tb testing.TB, results any) map[string]any {
	tb.Helper()
	b, _ := json.Marshal(results)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	delete(m, "screenshots")
	return m
}

// webhookSecret asks `kisa admin account webhook-secret` for the account's secret.
func webhookSecret(t *testing.T, s *stack, account uuid.UUID) string {
	t.Helper()
	out, _, err := cliRun(t, s.env, "", "admin", "account", "webhook-secret", "--account", account.String())
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Secret string }
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Secret == "" {
		t.Fatalf("webhook-secret printed %q", out)
	}
	return v.Secret
}

// receiver is a webhook endpoint on loopback that answers 500 to its
// first failFirst deliveries and 200 afterwards.
type receiver struct {
	url       string
	failFirst int
	mu        sync.Mutex
	calls     []delivered
}

type delivered struct {
	signature string
	body      []byte
}

func newReceiver(t *testing.T, failFirst int) *receiver {
	r := &receiver{failFirst: failFirst}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.calls = append(r.calls, delivered{signature: req.Header.Get(webhook.SignatureHeader), body: body})
		n := len(r.calls)
		r.mu.Unlock()
		if n <= r.failFirst {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *receiver) deliveries() []delivered {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivered(nil), r.calls...)
}
