package api

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/kisa-dev/kisa/client"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

// newMonitorService is the monitors use case of a test server: no reader
// (no worker runs), the default limits.
func newMonitorService(o *Options, rdb *redis.Client, shots *storage.Artifacts) *monitor.Service {
	return monitor.New(monitor.Options{DB: o.DB, Queue: asynq.NewClientFromRedisClient(rdb), Artifacts: shots,
		Secrets: o.Secrets, HTTP: o.Webhooks.Client(), Limits: monitor.DefaultLimits, Now: o.Now, Logger: o.Logger})
}

// monitorBody is paused: every worker's scheduler (of other tests too)
// reads the shared test database's active monitors.
const monitorBody = `{"name":"Frogs","schedule":{"type":"daily","time":"06:00"},"paused":true,
	"targets":[{"query":"cached frogs","countryCode":"us","languageCode":"en","device":"mobile","location":"Austin,Texas,United States"},
		{"query":"tree frogs","countryCode":"us","languageCode":"en"}],
	"watch":{"domains":["nature.example"],"brands":[{"name":"Frogs","domains":["nature.example"],"own":true},{"name":"Toads"}]}}`

// seededMonitor creates a monitor of account through the use case and
// stores a run of it with one reading and one change event, as a worker
// would; it returns the monitor, its first target and the run.
func seededMonitor(tb testing.TB, srv *testServer, account uuid.UUID, webhookURL string) (monitor.View, string, uuid.UUID) {
	tb.Helper()
	ctx := context.Background()
	d, err := monitor.Decode([]byte(monitorBody))
	if err != nil {
		tb.Fatal(err)
	}
	if webhookURL != "" {
		d.Webhook = &monitor.Hook{URL: webhookURL}
	}
	v, err := srv.opts.Monitors.Create(ctx, account, d, monitor.Vetting{})
	if err != nil {
		tb.Fatal(err)
	}
	mid, target := uuid.MustParse(v.ID), uuid.MustParse(v.Targets[0].ID)
	run, _ := uuid.NewV7()
	var url *string
	if webhookURL != "" {
		url = &webhookURL
	}
	_, readings, _, err := srv.db.StartRun(ctx, storage.NewRun{ID: run, MonitorID: mid, AccountID: account,
		Slot: time.Now().UTC(), Trigger: monitor.TriggerManual, WebhookURL: url, Targets: []uuid.UUID{target}})
	if err != nil {
		tb.Fatal(err)
	}
	change, _ := json.Marshal(monitor.Change{Kind: monitor.DomainCited, Domain: "nature.example", Position: 1})
	one := 1
	if _, err := srv.db.FinishReading(ctx, readings[0], storage.ReadingResult{HasOverview: true, Complete: true,
		Text: "Frogs are green.", Sources: []byte(`[{"url":"https://nature.example/frogs","title":"Frogs","source":"nature.example","icon":""}]`),
		Citations: []byte(`[]`), TakenAt: time.Now().UTC(), CitedDomains: []string{"nature.example"},
		Brands: storage.BrandFigures{Version: &one, Mentions: storage.IntList{1, 0}, Ranks: storage.IntList{1, 0},
			Cited: storage.IntList{1, 0}, Detail: []byte(`{"0":{"c":[1],"p":[0,16]}}`)}},
		[]storage.NewChange{{Kind: monitor.DomainCited, Detail: change}}); err != nil {
		tb.Fatal(err)
	}
	if _, ended, err := srv.db.EndRun(ctx, run); err != nil || !ended {
		tb.Fatalf("end run: %v, %v", ended, err)
	}
	return v, v.Targets[0].ID, run
}

// monitorExchanges are the monitor endpoints' requests of
// TestOpenAPIResponses.
func (f *openapiFixture) monitorExchanges(tb testing.TB) []exchange {
	openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.FileBodyDecoder)
	mon, target, _ := seededMonitor(tb, f.main, f.account, "")
	doomed, _, _ := seededMonitor(tb, f.main, f.account, "")
	m := f.main.Server
	base := monitorsPath + "/" + mon.ID
	unknown := monitorsPath + "/0b9b6f4e-0000-4000-8000-000000000000"
	span := "?from=2000-01-01&to=2100-01-01"
	huge := `{"name":"` + strings.Repeat("a", MaxBodyBytes) + `"}`
	var out []exchange
	add := func(name string, h http.Handler, r *http.Request, want int, contains string) {
		out = append(out, exchange{name: name, h: h, req: r, want: want, contains: contains})
	}
	add("monitor created", m, req("POST", monitorsPath, f.key, monitorBody), 201, `"targets":[{"id":`)
	add("monitor too large", m, req("POST", monitorsPath, f.key, huge), 413, "")
	add("monitor invalid", m, req("POST", monitorsPath, f.key, `{"name":"","schedule":{"type":"cron","cron":"* * * * *"},"targets":[]}`), 422, `"schedule.cron"`)
	add("monitors list", m, req("GET", monitorsPath+"?limit=1", f.key, ""), 200, `"nextCursor":"`)
	add("monitors list bad limit", m, req("GET", monitorsPath+"?limit=0", f.key, ""), 422, "")
	add("monitor", m, req("GET", base, f.key, ""), 200, `"device":"mobile","location":"Austin,Texas,United States","samples":1}`)
	add("monitor unknown", m, req("GET", unknown, f.key, ""), 404, "")
	add("monitor paused", m, req("PATCH", base, f.key, `{"paused":true,"watch":{"domains":["nature.example","frogs.example"],"brands":[{"name":"Frogs","domains":["nature.example"],"own":true},{"name":"Toads"}]}}`), 200, `"paused":true`)
	add("monitor patch unknown", m, req("PATCH", unknown, f.key, `{"paused":true}`), 404, "")
	add("monitor patch too large", m, req("PATCH", base, f.key, huge), 413, "")
	add("monitor patch invalid", m, req("PATCH", base, f.key, `{"colour":"green"}`), 422, `"colour"`)
	add("monitor deleted", m, req("DELETE", monitorsPath+"/"+doomed.ID, f.key, ""), 204, "")
	add("monitor delete unknown", m, req("DELETE", unknown, f.key, ""), 404, "")
	add("monitor run now", m, req("POST", base+"/run", f.key, ""), 202, `"trigger":"manual"`)
	add("monitor run unknown", m, req("POST", unknown+"/run", f.key, ""), 404, "")
	add("runs", m, req("GET", base+"/runs", f.key, ""), 200, `"changed":1`)
	add("runs unknown", m, req("GET", unknown+"/runs", f.key, ""), 404, "")
	add("runs bad cursor", m, req("GET", base+"/runs?cursor=nope", f.key, ""), 422, "")
	add("changes", m, req("GET", base+"/changes?since=2000-01-01", f.key, ""), 200, `"kind":"domain.cited"`)
	add("changes unknown", m, req("GET", unknown+"/changes", f.key, ""), 404, "")
	add("changes bad since", m, req("GET", base+"/changes?since=yesterday", f.key, ""), 422, "")
	add("visibility", m, req("GET", base+"/visibility"+span+"&groupBy=country", f.key, ""), 200, `"citedShare":1`)
	add("visibility unknown", m, req("GET", unknown+"/visibility", f.key, ""), 404, "")
	add("visibility bad group", m, req("GET", base+"/visibility?groupBy=week", f.key, ""), 422, "")
	add("brands", m, req("GET", base+"/brands"+span+"&groupBy=surface,day", f.key, ""), 200, `"name":"Frogs","own":true,"readings":1,"answers":1,"mentions":1,"mentionRate":1,"mentionRateInterval":{"low":0.2065,"high":1}`)
	add("brands as CSV", m, req("GET", base+"/brands"+span+"&groupBy=country&format=csv", f.key, ""), 200, "us,Frogs,true,1,1,1,1,0.2065,1,1,0.2065,1,1,0.2065,1,1,1\nus,Toads,false,1,1,0,0,0,0.7935,0,0,0.7935,0,0,0.7935,,\n")
	add("brands unknown", m, req("GET", unknown+"/brands", f.key, ""), 404, "")
	add("brands bad group", m, req("GET", base+"/brands?groupBy=week", f.key, ""), 422, "")
	add("sources", m, req("GET", base+"/sources"+span, f.key, ""), 200, `"domains":[{"domain":"nature.example","brand":"Frogs","kind":"own","answers":1,"share":1,"bySurface":{"ai-overview":{"answers":1,"share":1}}}]`)
	add("sources as CSV", m, req("GET", base+"/sources"+span+"&format=csv", f.key, ""), 200, "nature.example,own,Frogs,,1,1\nnature.example,own,Frogs,ai-overview,1,1\n")
	add("sources unknown", m, req("GET", unknown+"/sources", f.key, ""), 404, "")
	add("sources bad limit", m, req("GET", base+"/sources?limit=0", f.key, ""), 422, "")
	hist := base + "/targets/" + target + "/history"
	add("history", m, req("GET", hist+span, f.key, ""), 200, `"brands":[{"name":"Frogs","own":true,"mentioned":true,"mentions":1,"firstMentionRank":1,"cited":true,"citationPositions":[1],"passage":"Frogs are green."},{"name":"Toads"`)
	add("history as CSV", m, req("GET", hist+span+"&format=csv", f.key, ""), 200, `mobile,"Austin,Texas,United States",1,true,1,https://nature.example/frogs,Frogs`)
	add("history unknown target", m, req("GET", base+"/targets/"+uuid.NewString()+"/history", f.key, ""), 404, "")
	add("history bad format", m, req("GET", hist+"?format=xml", f.key, ""), 422, "")
	for _, op := range []struct{ method, path, body string }{
		{"POST", monitorsPath, monitorBody}, {"GET", monitorsPath, ""}, {"GET", base, ""}, {"PATCH", base, `{"name":"x"}`},
		{"DELETE", base, ""}, {"POST", base + "/run", ""}, {"GET", base + "/runs", ""}, {"GET", base + "/changes", ""},
		{"GET", base + "/visibility", ""}, {"GET", hist, ""}, {"GET", base + "/brands", ""}, {"GET", base + "/sources", ""},
	} {
		name := op.method + " " + op.path
		add(name+" no header", m, req(op.method, op.path, "", op.body), 401, "")
		add(name+" no scope", m, req(op.method, op.path, f.noScope, op.body), 403, `monitors`)
		add(name+" no monitors here", f.unhealthy, req(op.method, op.path, f.key, op.body), 503, "")
		out = append(out, exchange{name: name + " rate limited", h: f.limited, want: 429,
			req: req(op.method, op.path, f.limitedKey, op.body), before: func(tb testing.TB) {
				do(tb, f.limited, req("GET", "/v1/knowledgebase", f.limitedKey, ""))
			}})
	}
	return out
}

// TestMonitorChangedWebhook delivers a run's monitor.changed webhook as
// the worker does and checks it against the document and its signature.
func TestMonitorChangedWebhook(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	rdb := testenv.Redis(t)
	srv := newTestServer(t, 0, withOverviews(t, rdb, time.Second))
	acc := newAccount(t, srv.db, true)
	hook := newWebhookReceiver(t)
	_, _, run := seededMonitor(t, srv, acc, hook.URL)
	ctx := context.Background()
	if err := srv.opts.Monitors.Deliver(ctx, jobs.WebhookPayload{Event: jobs.EventMonitorChanged, RunID: run}); err != nil {
		t.Fatal(err)
	}
	// Delivered once: a repeated task finds it delivered.
	if err := srv.opts.Monitors.Deliver(ctx, jobs.WebhookPayload{Event: jobs.EventMonitorChanged, RunID: run}); err != nil {
		t.Fatal(err)
	}
	got := hook.deliveries()
	if len(got) != 1 {
		t.Fatalf("%d deliveries, want 1", len(got))
	}
	secret, err := srv.secrets.WebhookSecret(ctx, acc, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := client.VerifySignature(secret, got[0].Header.Get(client.SignatureHeader), got[0].Body, srv.clock.Now(), client.DefaultTolerance); err != nil {
		t.Errorf("signature: %v", err)
	}
	var body any
	if err := json.Unmarshal(got[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	schema := doc.Webhooks[jobs.EventMonitorChanged].Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	if err := schema.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("body does not match the document: %v\n%s", err, got[0].Body)
	}
	if !strings.Contains(string(got[0].Body), `"kind":"domain.cited"`) {
		t.Errorf("body lacks the run's change: %s", got[0].Body)
	}
}

// TestMonitorIsolation checks that another account's monitor, target and
// history are a 404 like an unknown one, and that limits refuse with 422.
func TestMonitorIsolation(t *testing.T) {
	rdb := testenv.Redis(t)
	srv := newTestServer(t, 0, withOverviews(t, rdb, time.Second))
	owner := newAccount(t, srv.db, true)
	mon, target, _ := seededMonitor(t, srv, owner, "")
	_, otherKey := newCaller(t, srv.db)
	for _, r := range []*http.Request{
		request("GET", monitorsPath+"/"+mon.ID, otherKey, ""),
		request("PATCH", monitorsPath+"/"+mon.ID, otherKey, `{"paused":true}`),
		request("DELETE", monitorsPath+"/"+mon.ID, otherKey, ""),
		request("POST", monitorsPath+"/"+mon.ID+"/run", otherKey, ""),
		request("GET", monitorsPath+"/"+mon.ID+"/runs", otherKey, ""),
		request("GET", monitorsPath+"/"+mon.ID+"/targets/"+target+"/history", otherKey, ""),
		request("GET", monitorsPath+"/not-a-uuid", otherKey, ""),
	} {
		checkJSON(t, do(t, srv, r), 404, `{"status":false,"error":"`+map[bool]string{true: "target", false: "monitor"}[strings.Contains(r.URL.Path, "/targets/")]+` not found"}`)
	}
	list := get(t, srv, monitorsPath, otherKey)
	checkJSON(t, list, 200, `{"status":true,"data":{"items":[],"nextCursor":null}}`)
}

// TestMonitorLimitsAndPatch checks the 422 of a monitor past the
// account's targets, and that a PATCH keeps the ids of the targets that
// stay.
func TestMonitorLimitsAndPatch(t *testing.T) {
	rdb := testenv.Redis(t)
	srv := newTestServer(t, 0, withOverviews(t, rdb, time.Second), func(o *Options) {
		o.Monitors = monitor.New(monitor.Options{DB: o.DB, Queue: asynq.NewClientFromRedisClient(rdb),
			Limits: monitor.Limits{Monitors: 5, Targets: 3, VisitsPerDay: 100}, Now: o.Now})
	})
	_, key := newCaller(t, srv.db)
	res := do(t, srv, request("POST", monitorsPath, key, monitorBody))
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	var created struct{ Data monitor.View }
	json.Unmarshal([]byte(res.Body), &created)
	res = do(t, srv, request("POST", monitorsPath, key, monitorBody))
	checkJSON(t, res, 422, `{"status":false,"error":"validation failed","errors":{"targets":"this account's monitors may hold at most 3 targets in all; this would make 4"}}`)
	res = do(t, srv, request("PATCH", monitorsPath+"/"+created.Data.ID, key,
		`{"targets":[{"query":"Tree  Frogs","countryCode":"US","languageCode":"en"},{"query":"pond frogs","countryCode":"us","languageCode":"en"}]}`))
	var patched struct{ Data monitor.View }
	if err := json.Unmarshal([]byte(res.Body), &patched); err != nil || res.Status != 200 {
		t.Fatalf("patch: %d %s", res.Status, res.Body)
	}
	if len(patched.Data.Targets) != 2 || patched.Data.Targets[0].ID != created.Data.Targets[1].ID ||
		patched.Data.Targets[0].Query != "Tree Frogs" || patched.Data.Targets[1].ID == created.Data.Targets[0].ID {
		t.Errorf("targets after PATCH = %+v; before %+v", patched.Data.Targets, created.Data.Targets)
	}
	hourly := do(t, srv, request("PATCH", monitorsPath+"/"+created.Data.ID, key, `{"paused":false,"schedule":{"type":"hourly"},"targets":[{"query":"a"},{"query":"b"},{"query":"c"},{"query":"d","countryCode":"de"},{"query":"e"}]}`))
	if hourly.Status != 422 || !strings.Contains(hourly.Body, `"schedule":"this account's monitors may read at most 100 targets a day`) {
		t.Errorf("hourly monitor of 5 targets past 100 a day: %d %s", hourly.Status, hourly.Body)
	}
}

// TestMonitorTargetPlaces checks a target's device and location: refused
// as the overview request refuses them (each problem at its target's
// path), shown as given, and part of the target's identity (a target
// read elsewhere is another target, with a history of its own).
func TestMonitorTargetPlaces(t *testing.T) {
	rdb := testenv.Redis(t)
	srv := newTestServer(t, 0, withOverviews(t, rdb, time.Second))
	_, key := newCaller(t, srv.db)
	const head = `{"name":"Cafes","schedule":{"type":"daily","time":"06:00"},"paused":true,"watch":{"domains":[]},"targets":`
	bad := do(t, srv, request("POST", monitorsPath, key, head+`[{"query":"cafe","device":"tablet"},
		{"query":"cafe","countryCode":"de","location":{"latitude":"48"}},
		{"query":"cafe","countryCode":"at","location":"Munich,Bavaria,Germany"},
		{"query":"cafe","location":null},{"query":"cafe","location":{"latitude":91,"longitude":11,"alt":3}},
		{"surface":"web-search","query":"`+strings.Repeat("cafe ", 21)+`"},{"surface":"shopping","query":"cafe"}]}`))
	checkJSON(t, bad, 422, `{"status":false,"error":"validation failed","errors":{`+
		`"targets[0].device":"must be one of: desktop, mobile",`+
		`"targets[1].location.latitude":"must be a number of decimal degrees","targets[1].location.longitude":"is required",`+
		`"targets[2].location":"names a place in \"Germany\", not in Austria (countryCode \"at\"); its last part must be \"Austria\"",`+
		`"targets[3].location":"must be a place name or {latitude, longitude}",`+
		`"targets[4].location.alt":"unknown field; allowed: latitude, longitude","targets[4].location.latitude":"must be from -90 to 90 degrees",`+
		`"targets[5].query":"must be at most 100 characters, got 104","targets[6].surface":"must be one of: ai-overview, ai-mode, web-search, chatgpt, perplexity, gemini, copilot"}}`)

	three := `[{"query":"cafe","countryCode":"de","device":"mobile","location":"Munich,Bavaria,Germany"},
		{"query":"cafe","countryCode":"de","location":{"latitude":48.137,"longitude":11.575}},{"query":"cafe","countryCode":"de"},
		{"surface":"ai-mode","query":"cafe","countryCode":"de"},{"surface":"web-search","query":"cafe","countryCode":"de"}]`
	res := do(t, srv, request("POST", monitorsPath, key, head+three+`}`))
	if res.Status != 201 {
		t.Fatalf("create: %d %s", res.Status, res.Body)
	}
	for _, want := range []string{`"query":"cafe","countryCode":"de","languageCode":"de","device":"mobile","location":"Munich,Bavaria,Germany","samples":1}`,
		`"device":"desktop","location":{"latitude":48.137,"longitude":11.575},"samples":1}`, `"surface":"web-search","query":"cafe","countryCode":"de","languageCode":"de","device":"desktop","samples":1}]`} {
		if !strings.Contains(res.Body, want) {
			t.Errorf("created monitor lacks %s: %s", want, res.Body)
		}
	}
	var created struct{ Data monitor.View }
	json.Unmarshal([]byte(res.Body), &created)
	ids := func(v monitor.View) (out []string) {
		for _, t := range v.Targets {
			out = append(out, t.ID)
		}
		return out
	}
	before := ids(created.Data)
	if len(before) != 5 || len(slices.Compact(slices.Sorted(slices.Values(before)))) != 5 {
		t.Fatalf("five targets of one query in three places and on three surfaces: %v", before)
	}
	path := monitorsPath + "/" + created.Data.ID
	var renamed struct{ Data monitor.View }
	res = do(t, srv, request("PATCH", path, key, `{"name":"Cafes in Munich"}`))
	if err := json.Unmarshal([]byte(res.Body), &renamed); err != nil || !strings.Contains(res.Body, `"location":"Munich,Bavaria,Germany"`) {
		t.Fatalf("rename: %d %s", res.Status, res.Body)
	}
	if diff := cmp.Diff(before, ids(renamed.Data)); diff != "" {
		t.Errorf("a rename changed the targets' ids (-before +after):\n%s", diff)
	}
	moved := strings.Replace(three, `"longitude":11.575`, `"longitude":11.58`, 1)
	moved = strings.Replace(moved, `"device":"mobile",`, ``, 1)
	var edited struct{ Data monitor.View }
	res = do(t, srv, request("PATCH", path, key, `{"targets":`+moved+`}`))
	if err := json.Unmarshal([]byte(res.Body), &edited); err != nil || res.Status != 200 {
		t.Fatalf("edit: %d %s", res.Status, res.Body)
	}
	after := ids(edited.Data)
	if len(after) != 5 || after[0] == before[0] || after[1] == before[1] || !slices.Equal(after[2:], before[2:]) {
		t.Errorf("ids after moving two targets = %v; before %v (only the last three stay)", after, before)
	}
}
