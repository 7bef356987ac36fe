package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/kisa-dev/kisa/apikey"
	"github.com/kisa-dev/kisa/observe"
	"github.com/kisa-dev/kisa/storage"
)

// seedObservation stores, for acc's key at at, the observation of an
// overview request that started a visit which failed once through a
// proxy and succeeded on its retry.
func seedObservation(tb testing.TB, db *storage.DB, acc, key uuid.UUID, at time.Time) storage.ObservedRequest {
	tb.Helper()
	ctx := context.Background()
	id, _ := uuid.NewV7()
	run := uuid.NewString()
	o := storage.ObservedRequest{ID: id, At: at.UTC(), AccountID: acc, KeyID: key, ClientIP: "192.0.2.7", UserAgent: "seed/1.0",
		Method: "POST", Route: overviewPath, Path: overviewPath, Status: 200, DurationUS: 5_250_000, RequestID: "seed-" + id.String(),
		Surface: observe.SurfaceOverview, Items: 1, Runs: storage.StringList{run}, AISpent: 1}
	if err := db.InsertObservations(ctx, []storage.ObservedRequest{o}); err != nil {
		tb.Fatal(err)
	}
	de, blocked, part := "de", "blocked", "the browser"
	visits := []storage.ObservedVisit{
		{Run: run, TaskKey: "k", StartedAt: at.Add(100 * time.Millisecond), DurationUS: 1_000_000,
			Steps: []byte(`{"navigate":900.5}`), ProxyCountry: &de, Failure: &blocked, FailedPart: &part},
		{Run: run, TaskKey: "k", Attempt: 1, StartedAt: at.Add(2 * time.Second), DurationUS: 3_000_000,
			Steps: []byte(`{"navigate":800,"consent":50,"settle":700,"expand":300,"screenshots":400,"upload":120}`), ProxyCountry: &de},
	}
	if err := db.InsertVisits(ctx, visits); err != nil {
		tb.Fatal(err)
	}
	return o
}

// observationExchanges are TestOpenAPIResponses' cases of the
// observation endpoints.
func (f *openapiFixture) observationExchanges() []exchange {
	m := f.main.Server
	var out []exchange
	add := func(name string, h http.Handler, r *http.Request, want int, contains string) {
		out = append(out, exchange{name: name, h: h, req: r, want: want, contains: contains})
	}
	add("observations", m, req("GET", observationsPath+"?limit=100&status=2xx", f.key, ""), 200, `"proxyCountry":"de"`)
	add("observations bad filters", m, req("GET", observationsPath+"?limit=0&status=6xx&keyId=x&from=yesterday", f.key, ""), 422, `"keyId"`)
	add("usage", m, req("GET", usagePath, f.key, ""), 200, `"billableResults":1`)
	add("usage bad range", m, req("GET", usagePath+"?from=2025-11-05&to=2025-11-01", f.key, ""), 422, `"from"`)
	for _, p := range []string{observationsPath, usagePath} {
		add("GET "+p+" no header", m, req("GET", p, "", ""), 401, "")
		add("GET "+p+" no scope", m, req("GET", p, f.noScope, ""), 403, "")
		add("GET "+p+" database down: unavailable", f.broken, req("GET", p, f.brokenKey, ""), 503, "")
		out = append(out, exchange{name: "GET " + p + " rate limited", h: f.limited, want: 429,
			req: req("GET", p, f.limitedKey, ""), before: func(tb testing.TB) {
				do(tb, f.limited, req("GET", p, f.limitedKey, ""))
			}})
	}
	return out
}

// recordingServer is a test server whose requests are recorded; flush
// writes what it buffered.
func recordingServer(tb testing.TB, tweaks ...func(*Options)) (*testServer, func()) {
	tb.Helper()
	var w *observe.Writer[storage.ObservedRequest]
	ts := newTestServer(tb, 0, append([]func(*Options){func(o *Options) {
		w = observe.NewWriter(observe.WriterOptions[storage.ObservedRequest]{Table: "observations",
			Write: o.DB.InsertObservations, Metrics: observe.NewMetrics(prometheus.NewRegistry()), Every: time.Hour})
		o.Observations = w
	}}, tweaks...)...)
	tb.Cleanup(func() { w.Close(context.Background()) })
	// Close writes what is buffered; a new writer takes over.
	flush := func() {
		tb.Helper()
		if err := w.Close(context.Background()); err != nil {
			tb.Fatal(err)
		}
		w = observe.NewWriter(observe.WriterOptions[storage.ObservedRequest]{Table: "observations",
			Write: ts.db.InsertObservations, Metrics: observe.NewMetrics(prometheus.NewRegistry()), Every: time.Hour})
		ts.opts.Observations = w
	}
	return ts, flush
}

// TestObservationsRecorded: each request of a key is recorded with what
// a client would want to see, and never its key; the client address is
// the peer unless a trusted proxy forwarded the request.
func TestObservationsRecorded(t *testing.T) {
	ts, flush := recordingServer(t, func(o *Options) { o.TrustedProxies = []string{"10.1.0.0/16"} })
	acc := newAccount(t, ts.db, true)
	key, keyID := newKey(t, ts.db, acc, apikey.AllScopes()...)
	send := func(method, path, body, peer, forwarded, id string) {
		r := request(method, path, key, body)
		r.RemoteAddr = peer + ":4321"
		r.Header.Set("User-Agent", "obs-test/1.0")
		r.Header.Set("X-Request-Id", id)
		if forwarded != "" {
			r.Header.Set("X-Forwarded-For", forwarded)
		}
		do(t, ts, r)
	}
	send("GET", "/v1/knowledgebase?x=secret-query", "", "10.1.2.3", "203.0.113.9", "req-1")
	send("GET", "/v1/integrations/"+uuid.NewString(), "", "198.51.100.4", "203.0.113.66", "req-2")
	send("POST", overviewPath, `{"query":""}`, "198.51.100.4", "", "req-3")
	do(t, ts, request("GET", "/v1/knowledgebase", "", "")) // no key: not recorded
	flush()
	res := do(t, ts, request("GET", observationsPath, key, ""))
	var page struct {
		Data observe.Page `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Body), &page); err != nil || res.Status != 200 {
		t.Fatalf("%d %s", res.Status, res.Body)
	}
	type seen struct {
		RequestID, ClientIP, Route, Path, Surface string
		Status                                    int
		Trace                                     bool
	}
	var got []seen
	for _, o := range page.Data.Observations {
		if o.KeyID != keyID.String() || o.UserAgent != "obs-test/1.0" || o.Method != map[bool]string{true: "POST", false: "GET"}[o.RequestID == "req-3"] {
			t.Errorf("observation %+v: wrong key, user agent or method", o)
		}
		got = append(got, seen{o.RequestID, o.ClientIP, o.Route, o.Path, o.Surface, o.Status, o.Trace != nil})
	}
	want := []seen{
		{"req-3", "198.51.100.4", overviewPath, overviewPath, "overview", 422, true},
		{"req-2", "198.51.100.4", "/v1/integrations/:id", got[1].Path, "read", 404, false},
		{"req-1", "203.0.113.9", "/v1/knowledgebase", "/v1/knowledgebase", "read", 200, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
	if strings.Contains(res.Body, key) || strings.Contains(res.Body, "secret-query") {
		t.Errorf("the list shows the key or a query string: %s", res.Body)
	}
}

// TestObservationsPageAndFilter: pages follow nextCursor to the end
// without repeats; status and path filter.
func TestObservationsPageAndFilter(t *testing.T) {
	ts := newTestServer(t, 0)
	acc := newAccount(t, ts.db, true)
	key, keyID := newKey(t, ts.db, acc, apikey.AllScopes()...)
	at := ts.clock.Now()
	var ids []string
	for i := range 5 {
		o := seedObservation(t, ts.db, acc, keyID, at.Add(time.Duration(i)*time.Second))
		ids = append([]string{o.ID.String()}, ids...)
	}
	var got []string
	cursor := ""
	for range 5 {
		res := do(t, ts, request("GET", observationsPath+"?limit=2"+cursor, key, ""))
		var page struct{ Data observe.Page }
		if err := json.Unmarshal([]byte(res.Body), &page); err != nil || res.Status != 200 {
			t.Fatalf("%d %s", res.Status, res.Body)
		}
		for _, o := range page.Data.Observations {
			got = append(got, o.ID)
		}
		if page.Data.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + *page.Data.NextCursor
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("paged (-want +got):\n%s", diff)
	}
	for _, q := range []string{"status=5xx", "status=404", "path=/v1/knowledgebase"} {
		res := do(t, ts, request("GET", observationsPath+"?"+q, key, ""))
		if res.Status != 200 || !strings.Contains(res.Body, `"observations":[]`) {
			t.Errorf("%s: %d %s, want none", q, res.Status, res.Body)
		}
	}
	res := do(t, ts, request("GET", observationsPath+"?status=2xx&path="+overviewPath+"&limit=100", key, ""))
	if n := strings.Count(res.Body, `"surface":"overview"`); n != 5 {
		t.Errorf("2xx overviews: %d, want 5: %s", n, res.Body)
	}
	res = do(t, ts, request("GET", observationsPath+"?cursor=bogus", key, ""))
	if res.Status != 422 {
		t.Errorf("bad cursor: %d %s", res.Status, res.Body)
	}
}
