package monitor_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/jobs"
	"github.com/kisa-dev/kisa/monitor"
	"github.com/kisa-dev/kisa/overview"
	"github.com/kisa-dev/kisa/testenv"
)

// pages is a Reader whose answer per query the test sets: the slow outside
// system (a browser visit) replaced by what it would have read.
type pages struct {
	mu       sync.Mutex
	answers  map[string]any // kisa.Overview or error
	asked    []time.Time    // notBefore of each read
	requests []overview.Request
}

func (p *pages) set(query string, answer any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers[query] = answer
}

// Fresh answers what set said for the query.
func (p *pages) Fresh(_ context.Context, req overview.Request, notBefore time.Time) (kisa.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, notBefore)
	p.requests = append(p.requests, req)
	switch a := p.answers[req.Query].(type) {
	case kisa.Overview:
		return kisa.Result{Overview: a, TakenAt: time.Now().UTC()}, nil
	case error:
		return kisa.Result{}, a
	}
	return kisa.Result{}, errors.New("no answer set")
}

func withSources(urls ...string) kisa.Overview {
	ov := kisa.Overview{HasOverview: true, Complete: true, Text: "Trail shoes need grip."}
	for _, u := range urls {
		ov.Sources = append(ov.Sources, kisa.Source{URL: u})
	}
	return ov
}

// setup is a service on the real PostgreSQL and Redis with a test
// account and reader.
func setup(t *testing.T, limits monitor.Limits) (*monitor.Service, *pages, uuid.UUID) {
	t.Helper()
	db := testenv.Postgres(t)
	rdb := testenv.Redis(t)
	acc, err := db.CreateAccount(context.Background(), "monitor-test-"+testenv.RandomHex(6), true)
	if err != nil {
		t.Fatal(err)
	}
	p := &pages{answers: map[string]any{}}
	svc := monitor.New(monitor.Options{DB: db, Queue: asynq.NewClientFromRedisClient(rdb), Reader: p, Limits: limits})
	return svc, p, acc.ID
}

// create makes a monitor of queries, deleted when the test ends: every
// worker's scheduler (of other tests too) reads the shared test
// database's active monitors.
func create(t *testing.T, svc *monitor.Service, acc uuid.UUID, queries ...string) monitor.View {
	t.Helper()
	d := monitor.Definition{Name: "m", Schedule: monitor.Schedule{Type: monitor.Daily, Time: "06:00"},
		Watch: monitor.Watch{Domains: []string{"example.com"}}}
	for _, q := range queries {
		d.Targets = append(d.Targets, monitor.Target{Query: q, CountryCode: "us", LanguageCode: "en"})
	}
	v, err := svc.Create(context.Background(), acc, d, monitor.Vetting{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Delete(context.Background(), acc, uuid.MustParse(v.ID)) })
	return v
}

// TestFailedReadingIsNotADisappearance reads a target three times: a
// reading, a failure (then its retry succeeds with the same page), and a
// change; the failure is recorded and retried, and never compared.
func TestFailedReadingIsNotADisappearance(t *testing.T) {
	svc, p, acc := setup(t, monitor.DefaultLimits)
	ctx := context.Background()
	m := create(t, svc, acc, "trail shoes")
	id := uuid.MustParse(m.ID)
	read := func(want error) monitor.RunView {
		t.Helper()
		run, err := svc.RunNow(ctx, acc, id)
		if err != nil {
			t.Fatal(err)
		}
		reading := onlyReading(t, svc, acc, id, run)
		if err := svc.Read(ctx, jobs.MonitorReadingPayload{ReadingID: reading}); !errors.Is(err, want) {
			t.Fatalf("Read = %v, want %v", err, want)
		}
		return run
	}
	p.set("trail shoes", withSources("https://shop.example.com/a", "https://b.org/"))
	read(nil)
	p.set("trail shoes", kisa.Fail(kisa.Blocked, kisa.PartBrowser, nil))
	failed := read(kisa.Blocked)
	runs, err := svc.Runs(ctx, acc, id, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := runs.Items[0]; got.ID != failed.ID || got.Status != "running" || got.Counts.Pending != 1 {
		t.Errorf("run after a failed attempt = %+v, want it running with the reading pending", got)
	}
	// The retry reads the same page as the first run: no change at all.
	p.set("trail shoes", withSources("https://shop.example.com/a", "https://b.org/"))
	if err := svc.Read(ctx, jobs.MonitorReadingPayload{ReadingID: onlyReading(t, svc, acc, id, failed)}); err != nil {
		t.Fatal(err)
	}
	p.set("trail shoes", withSources("https://b.org/"))
	read(nil)
	changes, err := svc.Changes(ctx, acc, id, time.Time{}, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range changes.Items {
		kinds = append(kinds, c.Kind)
	}
	if diff := cmp.Diff([]string{monitor.SourceRemoved, monitor.SourceMoved, monitor.DomainUncited}, kinds); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	h, err := svc.History(ctx, acc, id, uuid.MustParse(m.Targets[0].ID), monitor.Span{From: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Readings) != 3 || h.Readings[1].Attempts != 2 || h.Readings[1].Status != "done" {
		t.Errorf("history = %+v", h.Readings)
	}
	for i, nb := range p.asked[1:] {
		if nb.Before(p.asked[0]) {
			t.Errorf("read %d asked for pages not before %v, earlier than the first run's %v", i+1, nb, p.asked[0])
		}
	}
}

// onlyReading returns the id of the one reading of a run of a one-target
// monitor, from its history.
func onlyReading(t *testing.T, svc *monitor.Service, acc, id uuid.UUID, run monitor.RunView) uuid.UUID {
	t.Helper()
	var r uuid.UUID
	err := testenv.Postgres(t).SQL().QueryRowContext(context.Background(),
		`SELECT id FROM monitor_readings WHERE run_id = $1`, run.ID).Scan(&r)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunLimitsAndSchedule checks a run skipped past the day's visits,
// and that the scheduler's task of a paused or deleted monitor runs
// nothing and a slot runs once.
func TestRunLimitsAndSchedule(t *testing.T) {
	svc, _, acc := setup(t, monitor.Limits{VisitsPerDay: 3})
	ctx := context.Background()
	m := create(t, svc, acc, "a", "b")
	id := uuid.MustParse(m.ID)
	first, err := svc.RunNow(ctx, acc, id)
	if err != nil || first.Status != "running" {
		t.Fatalf("first run = %+v, %v", first, err)
	}
	second, err := svc.RunNow(ctx, acc, id)
	if err != nil || second.Status != "skipped" || second.SkipReason == nil || *second.SkipReason != monitor.SkipVisits {
		t.Errorf("run past the day's visits = %+v, %v; want skipped, visits_per_day", second, err)
	}

	svc, _, acc = setup(t, monitor.DefaultLimits)
	m = create(t, svc, acc, "a")
	id = uuid.MustParse(m.ID)
	for range 2 { // two schedulers' tasks of one firing
		if err := svc.Scheduled(ctx, jobs.MonitorRunPayload{MonitorID: id}); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := svc.Runs(ctx, acc, id, "", 10)
	if err != nil || len(runs.Items) != 1 || runs.Items[0].Trigger != monitor.TriggerSchedule {
		t.Errorf("runs after two tasks of one slot = %+v, %v; want one scheduled run", runs.Items, err)
	}
	if _, err := svc.Update(ctx, acc, id, []byte(`{"paused":true}`), monitor.Vetting{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, acc, id); err != nil {
		t.Fatal(err)
	}
	if err := svc.Scheduled(ctx, jobs.MonitorRunPayload{MonitorID: id}); err != nil {
		t.Errorf("the task of a deleted monitor: %v", err)
	}
}
