package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/serpfixture"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// TestObservationsEndToEnd: through web and worker, a synchronous
// overview, a cache hit, an async job, a batch, a 422 and a 503 each show
// up in GET /v1/observations with their trace (the visits' steps come
// from the worker), and GET /v1/usage counts them.
func TestObservationsEndToEnd(t *testing.T) {
	s := startStack(t, stackOptions{waitTimeout: "60s", fixture: serpfixture.Options{OverviewDelay: -1}})
	_, key := newAccountKey(t, testenv.Postgres(t))
	tag := testenv.RandomHex(4)
	post := func(path, body string, want int) string {
		t.Helper()
		status, h, raw := call(t, http.MethodPost, s.base+path, key, body)
		if status != want {
			t.Fatalf("POST %s %s: %d %s, want %d", path, body, status, raw, want)
		}
		if path == overviewPath && want == http.StatusAccepted {
			id := dataOf[overview.Job](t, raw).ID
			pollJob(t, s.base, key, id, func(j overview.Job) bool { return j.Status == "done" })
		}
		return h.Get("X-Request-Id")
	}
	q := func(query string) string { return `{"query":"` + query + ` ` + tag + `","languageCode":"en"}` }
	ids := map[string]string{
		"sync":  post(overviewPath, q("observed sync"), 200),
		"hit":   post(overviewPath, q("observed sync"), 200),
		"async": post(overviewPath, strings.TrimSuffix(q("observed async"), "}")+`,"async":true}`, 202),
		"4xx":   post(overviewPath, `{"query":""}`, 422),
		"5xx":   post(overviewPath, q("captcha"), 503),
	}
	status, h, raw := call(t, http.MethodPost, s.base+overviewPath+"/batch", key,
		`{"requests":[`+q("observed sync")+`,`+q("observed batch")+`]}`)
	if status != 202 {
		t.Fatalf("batch: %d %s", status, raw)
	}
	ids["batch"] = h.Get("X-Request-Id")
	batch := dataOf[overview.Batch](t, raw).ID
	testenv.Eventually(t, 60*time.Second, "the batch", func() bool {
		_, _, raw := call(t, http.MethodGet, s.base+overviewPath+"/batches/"+batch, key, "")
		return dataOf[overview.Batch](t, raw).Status == "done"
	})

	api := client.New(s.base, key, client.WithRetries(0, 0))
	byID := map[string]client.Observation{}
	// Web writes its observations and the worker its visits within a
	// second or so; wait until every request shows, with its visits.
	testenv.Eventually(t, 30*time.Second, "every request's observation, with its visits", func() bool {
		page, err := api.ListObservations(context.Background(), client.ObservationQuery{Path: overviewPath, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		batches, err := api.ListObservations(context.Background(), client.ObservationQuery{Path: overviewPath + "/batch"})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range append(page.Observations, batches.Observations...) {
			byID[o.RequestID] = o
		}
		for name, id := range ids {
			o, ok := byID[id]
			if !ok || o.Trace == nil || name != "hit" && name != "4xx" && len(o.Trace.Visits) == 0 {
				return false
			}
		}
		return true
	})

	type trace struct {
		Surface                 string
		Status                  int
		Items, CacheHits, Joins int
		Visits                  int
		Failure, Part           string
	}
	got := map[string]trace{}
	for name, id := range ids {
		o := byID[id]
		tr := trace{Surface: o.Surface, Status: o.Status, Items: o.Trace.Items, CacheHits: o.Trace.CacheHits,
			Joins: o.Trace.Joins, Visits: len(o.Trace.Visits)}
		if o.Trace.Failure != nil {
			tr.Failure = *o.Trace.Failure
		}
		if o.Trace.Part != nil {
			tr.Part = *o.Trace.Part
		}
		got[name] = tr
		for _, v := range o.Trace.Visits {
			checkVisit(t, name, v)
		}
	}
	want := map[string]trace{
		"sync":  {Surface: "overview", Status: 200, Items: 1, Visits: 1},
		"hit":   {Surface: "overview", Status: 200, Items: 1, CacheHits: 1},
		"async": {Surface: "overview_async", Status: 202, Items: 1, Visits: 1},
		"batch": {Surface: "batch", Status: 202, Items: 2, CacheHits: 1, Visits: 1},
		"4xx":   {Surface: "overview", Status: 422, Failure: "invalid"},
		"5xx":   {Surface: "overview", Status: 503, Items: 1, Visits: 1, Failure: "blocked", Part: string(kisa.PartBrowser)},
	}
	for name := range want {
		if got[name] != want[name] {
			t.Errorf("%s: trace %+v, want %+v", name, got[name], want[name])
		}
	}
	checkUsage(t, s, key)
}

// checkVisit checks one visit of a trace: its steps, a direct connection
// (no proxy configured), and the 5xx's failure.
func checkVisit(t *testing.T, name string, v client.TraceVisit) {
	t.Helper()
	if name == "5xx" {
		if v.Failure == nil || *v.Failure != "blocked" {
			t.Errorf("5xx visit failure %v, want blocked", v.Failure)
		}
		return
	}
	var steps []string
	for s := range v.Steps {
		steps = append(steps, s)
	}
	slices.Sort(steps)
	for _, s := range []string{"navigate", "settle", "upload"} {
		if !slices.Contains(steps, s) {
			t.Errorf("%s: visit steps %v lack %s", name, steps, s)
		}
	}
	if v.ProxyCountry != nil || v.Failure != nil || v.DurationMS <= 0 {
		t.Errorf("%s: visit %+v: want no proxy, no failure, a duration", name, v)
	}
}

// checkUsage reads today's use through `kisa client usage`.
func checkUsage(t *testing.T, s *stack, key string) {
	t.Helper()
	out := &testenv.Buffer{}
	env := testenv.Environ("KISA_URL="+s.base, "KISA_API_KEY="+key)
	if err := run(context.Background(), []string{"client", "usage"}, env, strings.NewReader(""), out, os.Stderr); err != nil {
		t.Fatal(err)
	}
	var u client.Usage
	if err := json.Unmarshal([]byte(out.String()), &u); err != nil || len(u.Days) != 1 {
		t.Fatalf("usage: %v: %s", err, out.String())
	}
	d := u.Days[0]
	// Visits: sync, async, the batch's new one, the CAPTCHA (not retried).
	// Billable: sync, hit, async, both batch items. AI: every overview
	// and both batch items (the 422 got past the limiter too).
	if d.Visits != 4 || d.CacheHits != 2 || d.BillableResults != 5 || d.AISpent != 7 {
		t.Errorf("usage %+v: want 4 visits, 2 cache hits, 5 billable, 7 AI", d)
	}
	if !slices.Equal(u.Billable, []string{"billableResults"}) {
		t.Errorf("billable = %v", u.Billable)
	}
}

// TestObservationsLostOnKill SIGKILLs a `kisa web` process under load:
// what it had not written yet is lost, and only that: every request
// answered more than observe.FlushEvery plus one write's time
// (observe.WriteTimeout) before the kill is stored.
func TestObservationsLostOnKill(t *testing.T) {
	bin := buildKisa(t)
	s := startStack(t, stackOptions{waitTimeout: "60s", noWorker: true})
	db := testenv.Postgres(t)
	acc, key := newAccountKey(t, db)
	web := exec.Command(bin, "web")
	web.Env = append(os.Environ(), s.environ...)
	logs := &testenv.Buffer{}
	web.Stderr = logs
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Process.Kill(); web.Wait() })
	base := "http://" + listenAddr(t, logs, "web listening")
	testenv.Eventually(t, 30*time.Second, "kisa web at "+base, answers200(base+"/healthz"))

	var mu sync.Mutex
	answered := map[string]time.Time{} // request id: when its answer came
	var sent []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				id := uuid.NewString()
				mu.Lock()
				sent = append(sent, id)
				mu.Unlock()
				req, _ := http.NewRequest(http.MethodGet, base+"/v1/knowledgebase", nil)
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("X-Request-Id", id)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					continue // the process is gone
				}
				res.Body.Close()
				mu.Lock()
				answered[id] = time.Now()
				mu.Unlock()
			}
		})
	}
	// Kill once some observations are written and more are buffered.
	testenv.Eventually(t, 60*time.Second, "observations written", func() bool { return countObservations(t, db, acc) >= 50 })
	mu.Lock()
	n := len(answered)
	mu.Unlock()
	testenv.Eventually(t, 60*time.Second, "more load", func() bool { mu.Lock(); defer mu.Unlock(); return len(answered) >= n+50 })
	if err := web.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	web.Wait()
	close(stop)
	wg.Wait()

	stored := storedRequestIDs(t, db, acc)
	bound := observe.FlushEvery + observe.WriteTimeout
	var lost int
	var oldest time.Duration
	for id, at := range answered {
		if stored[id] {
			continue
		}
		lost++
		age := killed.Sub(at)
		oldest = max(oldest, age)
		if age > bound {
			t.Errorf("request %s answered %s before the kill is lost; the bound is %s", id, age, bound)
		}
	}
	for id := range stored {
		if !slices.Contains(sent, id) {
			t.Errorf("stored observation %s was never sent", id)
		}
	}
	t.Logf("answered %d, stored %d, lost %d (the oldest answered %s before the kill)", len(answered), len(stored), lost, oldest)
}

func countObservations(tb testing.TB, db *storage.DB, acc uuid.UUID) int {
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM observations WHERE account_id = $1`, acc).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func storedRequestIDs(tb testing.TB, db *storage.DB, acc uuid.UUID) map[string]bool {
	rows, err := db.SQL().Query(`SELECT request_id FROM observations WHERE account_id = $1`, acc)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		out[id] = true
	}
	return out
}
