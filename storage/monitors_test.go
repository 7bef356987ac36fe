package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
	"github.com/kisa-dev/kisa/testenv"
)

func target(query, country string) storage.MonitorTarget {
	return storage.MonitorTarget{Surface: "ai-overview", Query: query, CountryCode: country, LanguageCode: "en",
		Identity: query + "/" + country}
}

func newMonitor(tb testing.TB, db *storage.DB, account uuid.UUID, targets ...storage.MonitorTarget) storage.Monitor {
	tb.Helper()
	id, _ := uuid.NewV7()
	m, err := db.CreateMonitor(context.Background(), account, id, storage.MonitorDef{Name: "m",
		Schedule: json.RawMessage(`{"type":"hourly"}`), Cron: "0 * * * *", WatchDomains: []string{"example.com"},
		Targets: targets, Paused: true}) // paused: workers of other tests schedule the shared database's active monitors
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func queries(tb testing.TB, db *storage.DB, m uuid.UUID) (map[string]uuid.UUID, []string) {
	tb.Helper()
	ts, err := db.MonitorTargets(context.Background(), m)
	if err != nil {
		tb.Fatal(err)
	}
	ids, order := map[string]uuid.UUID{}, []string{}
	for _, t := range ts {
		ids[t.Query] = t.ID
		order = append(order, t.Query)
	}
	return ids, order
}

func TestMonitorsCRUD(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acc, other := newAccount(t, db, false), newAccount(t, db, false)
	m := newMonitor(t, db, acc.ID, target("a", "us"), target("b", "us"))
	if m.Targets != 2 || m.Name != "m" || !m.Paused || m.Cron != "0 * * * *" || !cmp.Equal([]string(m.WatchDomains), []string{"example.com"}) {
		t.Errorf("created %+v", m)
	}
	if _, err := db.Monitor(ctx, other.ID, m.ID); !errors.Is(err, kisa.NotFound) {
		t.Errorf("another account's monitor: %v, want NotFound", err)
	}
	if err := db.DeleteMonitor(ctx, other.ID, m.ID); !errors.Is(err, kisa.NotFound) {
		t.Errorf("deleting another account's monitor: %v, want NotFound", err)
	}
	placed := target("d", "de")
	placed.Device, placed.Location = "mobile", []byte(`{"latitude": 48.137, "longitude": 11.575}`)
	p := newMonitor(t, db, acc.ID, target("a", "us"), placed)
	ts, err := db.MonitorTargets(ctx, p.ID)
	if err != nil || len(ts) != 2 {
		t.Fatalf("targets = %+v, %v", ts, err)
	}
	if ts[0].Device != "desktop" || ts[0].Location != nil || ts[1].Device != "mobile" ||
		string(ts[1].Location) != `{"latitude": 48.137, "longitude": 11.575}` {
		t.Errorf("devices and locations stored: %q %q, %q %q; want desktop, none, mobile, the point",
			ts[0].Device, ts[0].Location, ts[1].Device, ts[1].Location)
	}
	before, _ := queries(t, db, m.ID)
	// Replace: b stays (its id kept), a goes, c comes first.
	got, err := db.ReplaceMonitor(ctx, acc.ID, m.ID, storage.MonitorDef{Name: "n", Schedule: json.RawMessage(`{"type":"daily","time":"06:00"}`),
		Cron: "0 6 * * *", Paused: true, Targets: []storage.MonitorTarget{target("c", "at"), target("b", "us")}})
	if err != nil {
		t.Fatal(err)
	}
	after, order := queries(t, db, m.ID)
	if got.Name != "n" || !got.Paused || got.Targets != 2 || after["b"] != before["b"] || !cmp.Equal(order, []string{"c", "b"}) {
		t.Errorf("replaced: %+v, targets %v (b was %v)", got, after, before["b"])
	}
	if _, err := db.ReplaceMonitor(ctx, other.ID, m.ID, storage.MonitorDef{Name: "x", Schedule: json.RawMessage(`{}`)}); !errors.Is(err, kisa.NotFound) {
		t.Errorf("replacing another account's monitor: %v", err)
	}
	plans, err := db.MonitorPlans(ctx, acc.ID)
	if err != nil || len(plans) != 2 || plans[0].Targets != 2 || !plans[0].Paused {
		t.Errorf("MonitorPlans = %+v, %v", plans, err)
	}
	active, err := db.ActiveMonitors(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range active {
		if a.ID == m.ID {
			t.Error("a paused monitor is active")
		}
	}
	if err := db.DeleteMonitor(ctx, acc.ID, m.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Monitor(ctx, acc.ID, m.ID); !errors.Is(err, kisa.NotFound) {
		t.Errorf("deleted monitor: %v", err)
	}
}

func TestListMonitorsPages(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acc := newAccount(t, db, false)
	var want []uuid.UUID
	for range 5 {
		want = append([]uuid.UUID{newMonitor(t, db, acc.ID, target("q", "us")).ID}, want...)
	}
	var got []uuid.UUID
	var after *storage.Cursor
	for {
		page, err := db.ListMonitors(ctx, acc.ID, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			got = append(got, m.ID)
		}
		if len(page) < 2 {
			break
		}
		after = &storage.Cursor{At: page[1].CreatedAt, ID: page[1].ID}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
}

func TestRunOncePerSlotAndReadings(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	acc := newAccount(t, db, false)
	m := newMonitor(t, db, acc.ID, target("a", "us"), target("b", "de"))
	ids, _ := queries(t, db, m.ID)
	slot := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	start := func() (storage.MonitorRun, []uuid.UUID, bool) {
		id, _ := uuid.NewV7()
		r, readings, created, err := db.StartRun(ctx, storage.NewRun{ID: id, MonitorID: m.ID, AccountID: acc.ID, Slot: slot,
			Trigger: "schedule", Targets: []uuid.UUID{ids["a"], ids["b"]}})
		if err != nil {
			t.Fatal(err)
		}
		return r, readings, created
	}
	run, readings, created := start()
	if !created || len(readings) != 2 || run.Targets != 2 || run.Status != storage.RunRunning {
		t.Fatalf("first StartRun = %+v, %v, %v", run, readings, created)
	}
	if _, again, created := start(); created || again != nil {
		t.Errorf("a second run of the same slot was created")
	}
	if n, err := db.VisitsSince(ctx, acc.ID, slot.Add(-time.Hour)); err != nil || n != 2 {
		t.Errorf("VisitsSince = %d, %v; want 2", n, err)
	}
	// First reading done with a change, second failed once then for good.
	r0, _ := db.Reading(ctx, readings[0])
	taken := time.Now().UTC().Truncate(time.Microsecond)
	done, err := db.FinishReading(ctx, r0.ID, storage.ReadingResult{HasOverview: true, Complete: true, Text: "t",
		Sources: json.RawMessage(`[{"url":"https://example.com/"}]`), Citations: json.RawMessage(`[]`), TakenAt: taken},
		[]storage.NewChange{{Kind: "overview.appeared", Detail: json.RawMessage(`{}`)}})
	if err != nil || !done {
		t.Fatalf("FinishReading = %v, %v", done, err)
	}
	if done, err := db.FinishReading(ctx, r0.ID, storage.ReadingResult{TakenAt: taken}, nil); err != nil || done {
		t.Errorf("finishing a reading twice = %v, %v; want false", done, err)
	}
	if _, ended, err := db.EndRun(ctx, run.ID); err != nil || ended {
		t.Errorf("EndRun with a pending reading = %v, %v", ended, err)
	}
	if err := db.FailReading(ctx, readings[1], "timed_out", "the browser", false); err != nil {
		t.Fatal(err)
	}
	if err := db.FailReading(ctx, readings[1], "blocked", "", true); err != nil {
		t.Fatal(err)
	}
	r1, _ := db.Reading(ctx, readings[1])
	if r1.Status != storage.ReadingFailed || r1.Attempts != 2 || *r1.Failure != "blocked" {
		t.Errorf("failed reading = %+v", r1)
	}
	ended, ok, err := db.EndRun(ctx, run.ID)
	if err != nil || !ok || ended.Read != 1 || ended.Failed != 1 || ended.Changed != 1 || ended.Status != storage.RunDone {
		t.Errorf("EndRun = %+v, %v, %v", ended, ok, err)
	}
	if _, ok, _ := db.EndRun(ctx, run.ID); ok {
		t.Error("a run ended twice")
	}
	changes, err := db.RunChanges(ctx, run.ID)
	if err != nil || len(changes) != 1 || changes[0].Kind != "overview.appeared" || changes[0].Query != "a" {
		t.Errorf("RunChanges = %+v, %v", changes, err)
	}
	since, err := db.Changes(ctx, m.ID, slot.Add(-time.Hour), nil, 10)
	if err != nil || len(since) != 1 {
		t.Errorf("Changes = %+v, %v", since, err)
	}
	prev, ok, err := db.PreviousReading(ctx, ids["a"], taken.Add(time.Second), 0)
	if err != nil || !ok || prev.ID != r0.ID {
		t.Errorf("PreviousReading = %+v, %v, %v", prev, ok, err)
	}
	if _, ok, err := db.PreviousReading(ctx, ids["a"], taken, 0); err != nil || ok {
		t.Errorf("PreviousReading before the first = %v, %v", ok, err)
	}
	hist, err := db.History(ctx, ids["b"], slot.Add(-24*time.Hour), time.Now().Add(time.Hour), 10)
	if err != nil || len(hist) != 1 || hist[0].Status != storage.ReadingFailed {
		t.Errorf("History = %+v, %v", hist, err)
	}
	obs, err := db.Observations(ctx, m.ID, taken.Add(-time.Hour), taken.Add(time.Hour), 10)
	if err != nil || len(obs) != 1 || obs[0].CountryCode != "us" || !obs[0].HasOverview {
		t.Errorf("Observations = %+v, %v", obs, err)
	}
	runs, err := db.Runs(ctx, m.ID, nil, 10)
	if err != nil || len(runs) != 1 || runs[0].ID != run.ID {
		t.Errorf("Runs = %+v, %v", runs, err)
	}
}

func TestSkippedRunAndRetention(t *testing.T) {
	db, _ := testenv.OwnPostgres(t)
	ctx := context.Background()
	acc := newAccount(t, db, false)
	m := newMonitor(t, db, acc.ID, target("a", "us"))
	id, _ := uuid.NewV7()
	run, readings, created, err := db.StartRun(ctx, storage.NewRun{ID: id, MonitorID: m.ID, AccountID: acc.ID,
		Slot: time.Now().UTC().Truncate(time.Minute), Trigger: "manual", SkipReason: "visits_per_day"})
	if err != nil || !created || len(readings) != 0 || run.Status != storage.RunSkipped || *run.SkipReason != "visits_per_day" || run.FinishedAt == nil {
		t.Fatalf("skipped run = %+v, %v, %v, %v", run, readings, created, err)
	}
	if n, err := db.DeleteMonitorRunsBefore(ctx, run.StartedAt); err != nil || n != 0 {
		t.Errorf("retention removed %d, %v; want none", n, err)
	}
	if n, err := db.DeleteMonitorRunsBefore(ctx, run.StartedAt.Add(time.Millisecond)); err != nil || n != 1 {
		t.Errorf("retention removed %d, %v; want 1", n, err)
	}
}
